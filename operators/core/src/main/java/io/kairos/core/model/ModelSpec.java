package io.kairos.core.model;

/**
 * A model the serving system knows: its input, how long it takes per batch size, and what it costs
 * to hold on a device: the memory it takes there and the time to load it (a cold start). Both are 0
 * for a model whose loading is not modelled, which the scheduler treats as loaded everywhere.
 */
public record ModelSpec(String name, InputSpec input, LatencyProfile latency, long memoryBytes, long loadMicros) {

    public ModelSpec {
        if (memoryBytes < 0) throw new IllegalArgumentException("model '" + name + "': memory must not be negative, got " + memoryBytes + " bytes");
        if (loadMicros < 0) throw new IllegalArgumentException("model '" + name + "': load time must not be negative, got " + loadMicros + " us");
    }

    /** A model whose loading is not modelled. */
    public ModelSpec(String name, InputSpec input, LatencyProfile latency) {
        this(name, input, latency, 0, 0);
    }

    /** The same model under another name (an instance of it, see {@link ModelCatalog#get}). */
    public ModelSpec named(String instance) {
        return new ModelSpec(instance, input, latency, memoryBytes, loadMicros);
    }

    /** Whether running it may first have to load it: it takes memory or time to load. */
    public boolean hasLoadCost() {
        return memoryBytes > 0 || loadMicros > 0;
    }
}
