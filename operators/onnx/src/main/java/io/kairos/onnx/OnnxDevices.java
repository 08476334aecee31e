package io.kairos.onnx;

import io.kairos.core.device.DeviceFactory;
import io.kairos.core.device.Eviction;
import io.kairos.core.time.WallClock;

/** The factory of ONNX Runtime devices, for the engine that places one device per slot. */
public final class OnnxDevices {
    private OnnxDevices() {}

    /**
     * ONNX Runtime devices running the models of a model repository (see {@link ModelRepository}),
     * found where {@code repository} puts it on the device's machine,
     * each loading models on first use within {@code memoryBudgetBytes}. Where the process can use
     * CUDA (the GPU build of ONNX Runtime, {@code mvn -Pcuda}, on a machine with CUDA) a device
     * runs on the GPU the engine gave its slot, or on GPU {@code slot} when the engine manages
     * none; else on the CPU with {@code intraOpThreads} threads per batch. A slot given a GPU that
     * the process cannot use is an error, not a silent fall back to the CPU.
     */
    public static DeviceFactory factory(RepositorySource repository, long memoryBudgetBytes, int intraOpThreads) {
        return factory(repository, memoryBudgetBytes, intraOpThreads, false);
    }

    /**
     * As {@link #factory(RepositorySource, long, int)}; with {@code warmUp}, each device loads and
     * warms the repository's models before it takes traffic ({@link OnnxDevice#warmUp}).
     */
    public static DeviceFactory factory(RepositorySource repository, long memoryBudgetBytes, int intraOpThreads, boolean warmUp) {
        return factory(repository, memoryBudgetBytes, intraOpThreads, warmUp, Eviction.LRU);
    }

    /** As {@link #factory(RepositorySource, long, int, boolean)}, each device evicting loaded models by {@code eviction}. */
    public static DeviceFactory factory(RepositorySource repository, long memoryBudgetBytes, int intraOpThreads, boolean warmUp, Eviction eviction) {
        return (slot, gpu, catalog) -> {
            String cuda = gpu >= 0 ? OnnxDevice.cudaProblem() : null;
            if (cuda != null) throw new IllegalStateException("device " + slot + " was given GPU " + gpu + " by Flink, but " + cuda);
            return new OnnxDevice(slot, ModelRepository.readManifests(repository.localRoot()),
                    new OnnxDevice.Options(memoryBudgetBytes, intraOpThreads, gpu >= 0 ? gpu : slot, warmUp, eviction), WallClock::nowMicros);
        };
    }
}
