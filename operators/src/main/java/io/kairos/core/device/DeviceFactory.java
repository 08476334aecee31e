package io.kairos.core.device;

import io.kairos.core.model.ModelCatalog;
import io.kairos.core.onnx.ModelRepository;
import io.kairos.core.onnx.OnnxDevice;

import java.io.Serializable;
import java.nio.file.Path;

/** Makes the device of one slot; shipped to wherever the slot runs, hence serializable. */
@FunctionalInterface
public interface DeviceFactory extends Serializable {

    Device create(int slot, ModelCatalog catalog);

    /** Simulated devices that take the profiled latency times {@code speedFactor} (0: no time at all). */
    static DeviceFactory simulated(double speedFactor) {
        return (slot, catalog) -> new SimulatedDevice(slot, catalog, io.kairos.core.time.WallClock::nowMicros, speedFactor);
    }

    /**
     * ONNX Runtime devices running the models of a model repository (see {@link ModelRepository}),
     * each loading models on first use within {@code memoryBudgetBytes}. Device {@code slot} uses
     * GPU {@code slot} when the CUDA build of ONNX Runtime is on the classpath, else the CPU with
     * {@code intraOpThreads} threads per batch.
     */
    static DeviceFactory onnx(String repositoryDir, long memoryBudgetBytes, int intraOpThreads) {
        return (slot, catalog) -> new OnnxDevice(slot, ModelRepository.readManifests(Path.of(repositoryDir)),
                new OnnxDevice.Options(memoryBudgetBytes, intraOpThreads, slot), io.kairos.core.time.WallClock::nowMicros);
    }
}
