package io.kairos.sim;

import io.kairos.core.model.ModelCatalog;

/**
 * A simple way to ask for cold starts: every model takes {@code loadMicros} to load onto a device,
 * and a device has room for {@code modelsPerDevice} of them; running any other first loads it,
 * evicting the least recently used. It sets the catalog's load figures (each model one unit of
 * memory) and the devices' memory budget ({@code modelsPerDevice} units), so the devices spend,
 * and the scheduler's views of them book, exactly those cold starts. A catalog with its own
 * {@code memory_bytes} and {@code load_ms} needs none of this: give the simulation the devices'
 * memory ({@link Simulation.Builder#deviceMemory}).
 */
public record ColdStarts(long loadMicros, int modelsPerDevice) {

    /** Models cost what the catalog says (by default nothing: every model always loaded). */
    public static final ColdStarts NONE = new ColdStarts(0, Integer.MAX_VALUE);

    public ColdStarts {
        if (loadMicros < 0) throw new IllegalArgumentException("model load time must not be negative, got " + loadMicros + " us");
        if (modelsPerDevice < 1) throw new IllegalArgumentException("a device must hold at least one model, got room for " + modelsPerDevice);
    }

    public boolean enabled() {
        return loadMicros > 0 && modelsPerDevice != Integer.MAX_VALUE;
    }

    /** The catalog with every model one byte large and {@code loadMicros} to load. */
    ModelCatalog applyTo(ModelCatalog catalog) {
        return catalog.withLoadCost(1, loadMicros);
    }

    /** The devices' memory: room for {@code modelsPerDevice} one-byte models. */
    public long deviceMemoryBytes() {
        return modelsPerDevice;
    }
}
