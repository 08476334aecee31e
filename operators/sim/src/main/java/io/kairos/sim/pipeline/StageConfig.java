package io.kairos.sim.pipeline;

import io.kairos.core.model.HardwareType;
import io.kairos.core.model.LatencyProfile;
import io.kairos.core.model.ModelSpec;

/**
 * How one stage of a pipeline is served: InferLine's three knobs per model.
 *
 * @param hardwareType the type of every replica's device
 * @param maxBatch     the largest batch its central queue hands a replica (one of the model's batch sizes)
 * @param replicas     how many devices of that type serve it
 */
public record StageConfig(String hardwareType, int maxBatch, int replicas) {

    public StageConfig {
        if (!HardwareType.validName(hardwareType)) throw new IllegalArgumentException("stage configuration: '" + hardwareType + "' is no hardware type name");
        if (maxBatch < 1) throw new IllegalArgumentException("stage configuration: max batch must be at least 1, got " + maxBatch);
        if (replicas < 1) throw new IllegalArgumentException("stage configuration: replicas must be at least 1, got " + replicas);
    }

    public StageConfig withReplicas(int n) {
        return new StageConfig(hardwareType, maxBatch, n);
    }

    public StageConfig withMaxBatch(int b) {
        return new StageConfig(hardwareType, b, replicas);
    }

    /** The latency of a full batch on the stage's hardware, microseconds. */
    public long fullBatchMicros(ModelSpec model) {
        return profile(model).latencyMicros(maxBatch);
    }

    /**
     * Requests per second one replica serves when every batch is full: {@code maxBatch / tau(maxBatch)},
     * InferLine's profiled throughput of a (hardware, batch) pair.
     */
    public double replicaThroughputPerSecond(ModelSpec model) {
        return maxBatch * 1e6 / Math.max(1, fullBatchMicros(model));
    }

    /** The model's profile on the stage's hardware. */
    public LatencyProfile profile(ModelSpec model) {
        LatencyProfile p = model.latencyOn(hardwareType);
        if (p == null) throw new IllegalArgumentException("model '" + model.name() + "' has no profile on hardware type '" + hardwareType + "'");
        return p;
    }

    @Override
    public String toString() {
        return hardwareType + " x" + replicas + " b" + maxBatch;
    }
}
