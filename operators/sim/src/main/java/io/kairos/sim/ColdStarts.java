package io.kairos.sim;

/**
 * The cost of a model that is not in a device's memory: each device keeps the {@code capacity}
 * models it ran most recently, and running any other model first loads it for {@code loadMicros}
 * (evicting the least recently used). The policies do not see this cost; they learn of it only as
 * a batch that ends later than predicted, as a scheduler would in production.
 */
public record ColdStarts(long loadMicros, int capacity) {

    /** Every model is always loaded on every device. */
    public static final ColdStarts NONE = new ColdStarts(0, Integer.MAX_VALUE);

    public ColdStarts {
        if (loadMicros < 0) throw new IllegalArgumentException("model load time must not be negative, got " + loadMicros + " us");
        if (capacity < 1) throw new IllegalArgumentException("a device must hold at least one model, got capacity " + capacity);
    }

    public boolean enabled() {
        return loadMicros > 0 && capacity != Integer.MAX_VALUE;
    }
}
