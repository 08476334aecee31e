package io.kairos.core.model;

/**
 * A model the serving system knows: its input, how long it takes per batch size, and what it costs
 * to hold on a device: the memory it takes there and the time to load it (a cold start). Both are 0
 * for a model whose loading is not modelled, which the scheduler treats as loaded everywhere.
 * {@code energy} is the energy a batch takes, {@code null} where it was never measured: unknown,
 * which is not zero (see {@link #batchEnergyMillijoules}).
 */
public record ModelSpec(String name, InputSpec input, LatencyProfile latency, long memoryBytes, long loadMicros, EnergyProfile energy) {

    public ModelSpec {
        if (memoryBytes < 0) throw new IllegalArgumentException("model '" + name + "': memory must not be negative, got " + memoryBytes + " bytes");
        if (loadMicros < 0) throw new IllegalArgumentException("model '" + name + "': load time must not be negative, got " + loadMicros + " us");
    }

    /** A model whose energy is unknown. */
    public ModelSpec(String name, InputSpec input, LatencyProfile latency, long memoryBytes, long loadMicros) {
        this(name, input, latency, memoryBytes, loadMicros, null);
    }

    /** A model whose loading is not modelled and whose energy is unknown. */
    public ModelSpec(String name, InputSpec input, LatencyProfile latency) {
        this(name, input, latency, 0, 0);
    }

    /** The same model under another name (an instance of it, see {@link ModelCatalog#get}). */
    public ModelSpec named(String instance) {
        return new ModelSpec(instance, input, latency, memoryBytes, loadMicros, energy);
    }

    public boolean energyKnown() {
        return energy != null;
    }

    /**
     * Millijoules a batch of {@code size} requests takes as it runs, padded to the next allowed
     * size as its latency is; empty when the model's energy is unknown.
     */
    public java.util.OptionalDouble batchEnergyMillijoules(int size) {
        if (energy == null) return java.util.OptionalDouble.empty();
        return java.util.OptionalDouble.of(energy.millijoules(latency.paddedSize(size)));
    }

    /** Whether running it may first have to load it: it takes memory or time to load. */
    public boolean hasLoadCost() {
        return memoryBytes > 0 || loadMicros > 0;
    }
}
