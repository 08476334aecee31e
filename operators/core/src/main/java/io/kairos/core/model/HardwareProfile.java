package io.kairos.core.model;

import io.kairos.core.api.PublicEvolving;
import java.util.Objects;

/**
 * How a model runs on one hardware type: its latency per batch size, and the time to load it onto a
 * device of that type (0 where loading is not modelled). The memory it takes is the model's, the
 * same on every type.
 */
@PublicEvolving
public record HardwareProfile(LatencyProfile latency, long loadMicros) {

    public HardwareProfile {
        Objects.requireNonNull(latency, "latency");
        if (loadMicros < 0) throw new IllegalArgumentException("load time must not be negative, got " + loadMicros + " us");
    }
}
