package io.kairos.core.device;

import io.kairos.core.model.ModelCatalog;

import java.io.Serializable;

/** Makes the device of one slot; shipped to wherever the slot runs, hence serializable. */
@FunctionalInterface
public interface DeviceFactory extends Serializable {

    Device create(int slot, ModelCatalog catalog);

    /** Simulated devices that take the profiled latency times {@code speedFactor} (0: no time at all). */
    static DeviceFactory simulated(double speedFactor) {
        return (slot, catalog) -> new SimulatedDevice(slot, catalog, io.kairos.core.time.WallClock::nowMicros, speedFactor);
    }
}
