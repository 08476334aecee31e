package io.kairos.wire.device;

import io.kairos.core.api.PublicEvolving;
import io.kairos.core.device.DeviceSlots;
import io.kairos.core.device.Eviction;
import io.kairos.core.device.ExecutionModel;
import io.kairos.core.device.ExecutionNoise;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.time.WallClock;

import java.io.Serializable;
import java.util.SplittableRandom;

/** Makes the device of one slot; shipped to wherever the slot runs, hence serializable. */
@FunctionalInterface
@PublicEvolving
public interface DeviceFactory extends Serializable {

    /**
     * @param gpu the GPU that the engine gave this slot (Flink's external resource {@code gpu}),
     *            or -1 when it manages none
     */
    Device create(int slot, int gpu, ModelCatalog catalog);

    /**
     * Simulated devices that take the profiled latency times {@code speedFactor} (0: no time at
     * all), and load a model (its catalog {@code load_ms}) when it is not among those their
     * {@code memoryBudgetBytes} holds: the budget the scheduler's views of them replay.
     */
    static DeviceFactory simulated(double speedFactor, long memoryBudgetBytes) {
        return simulated(speedFactor, memoryBudgetBytes, null);
    }

    /**
     * {@link #simulated(double, long)} devices of hardware types: each takes its models' profiles on
     * its slot's type. {@code deviceTypes}: types with counts in slot order ({@code cpu:2,gpu-t4:1},
     * read by {@link DeviceSlots#parse} against the catalog the device is made with); null: every
     * slot of the catalog's first type.
     */
    static DeviceFactory simulated(double speedFactor, long memoryBudgetBytes, String deviceTypes) {
        return simulated(speedFactor, memoryBudgetBytes, deviceTypes, Eviction.LRU);
    }

    /** {@link #simulated(double, long, String)} devices that evict by {@code eviction} when a model must load that does not fit. */
    static DeviceFactory simulated(double speedFactor, long memoryBudgetBytes, String deviceTypes, Eviction eviction) {
        return (slot, gpu, catalog) -> new RealTimeSimulatedDevice(slot,
                new ExecutionModel(catalog, deviceTypes == null ? catalog.firstHardwareType().name() : DeviceSlots.parse(deviceTypes, catalog).typeOf(slot),
                        speedFactor, ExecutionNoise.none(), memoryBudgetBytes, eviction, new SplittableRandom(slot)), WallClock::nowMicros);
    }
}
