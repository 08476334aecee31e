package io.kairos.core.device;

import io.kairos.core.model.ModelCatalog;

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
}
