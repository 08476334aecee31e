package io.kairos.core.device;

import io.kairos.core.model.ModelCatalog;
import io.kairos.core.onnx.ModelRepository;
import io.kairos.core.onnx.RepositorySource;
import io.kairos.core.onnx.OnnxDevice;

import java.io.Serializable;

/** Makes the device of one slot; shipped to wherever the slot runs, hence serializable. */
@FunctionalInterface
public interface DeviceFactory extends Serializable {

    /**
     * @param gpu the GPU that the engine gave this slot (Flink's external resource {@code gpu}),
     *            or -1 when it manages none
     */
    Device create(int slot, int gpu, ModelCatalog catalog);

    /** Simulated devices that take the profiled latency times {@code speedFactor} (0: no time at all). */
    static DeviceFactory simulated(double speedFactor) {
        return (slot, gpu, catalog) -> new SimulatedDevice(slot, catalog, io.kairos.core.time.WallClock::nowMicros, speedFactor);
    }

    /**
     * ONNX Runtime devices running the models of a model repository (see {@link ModelRepository}),
     * found where {@code repository} puts it on the device's machine,
     * each loading models on first use within {@code memoryBudgetBytes}. Where the process can use
     * CUDA (the GPU build of ONNX Runtime, {@code mvn -Pcuda}, on a machine with CUDA) a device
     * runs on the GPU the engine gave its slot, or on GPU {@code slot} when the engine manages
     * none; else on the CPU with {@code intraOpThreads} threads per batch. A slot given a GPU that
     * the process cannot use is an error, not a silent fall back to the CPU.
     */
    static DeviceFactory onnx(RepositorySource repository, long memoryBudgetBytes, int intraOpThreads) {
        return (slot, gpu, catalog) -> {
            String cuda = gpu >= 0 ? OnnxDevice.cudaProblem() : null;
            if (cuda != null) throw new IllegalStateException("device " + slot + " was given GPU " + gpu + " by Flink, but " + cuda);
            return new OnnxDevice(slot, ModelRepository.readManifests(repository.localRoot()),
                    new OnnxDevice.Options(memoryBudgetBytes, intraOpThreads, gpu >= 0 ? gpu : slot), io.kairos.core.time.WallClock::nowMicros);
        };
    }
}
