package io.kairos.onnx;

import io.kairos.core.device.DeviceSlots;
import io.kairos.core.device.Eviction;
import io.kairos.core.model.HardwareType;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.time.WallClock;
import io.kairos.wire.device.DeviceFactory;

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
        return factory(repository, memoryBudgetBytes, intraOpThreads, warmUp, eviction, null);
    }

    /**
     * As {@link #factory(RepositorySource, long, int, boolean, Eviction)}, each slot running on what
     * its hardware type says ({@link HardwareType#execution}): {@code deviceTypes} are the slots'
     * types with counts in slot order ({@code cpu:2,gpu-t4:1}, read by {@link DeviceSlots#parse}
     * against the catalog the device is made with); null: every slot of the catalog's first type.
     * A {@code cpu} type runs on the CPU in a process that could use a GPU; a {@code cuda} type on
     * the GPU Flink gave the slot, or else its turn among the slots of {@code cuda} types, and
     * fails naming why where CUDA is not available; a type that says neither runs as the process can.
     */
    public static DeviceFactory factory(RepositorySource repository, long memoryBudgetBytes, int intraOpThreads, boolean warmUp, Eviction eviction,
                                        String deviceTypes) {
        return (slot, gpu, catalog) -> {
            DeviceSlots slots = deviceTypes == null ? null : DeviceSlots.parse(deviceTypes, catalog);
            String type = slots == null ? catalog.firstHardwareType().name() : slots.typeOf(slot);
            HardwareType.Execution execution = catalog.hardwareType(type).execution();
            int gpuIndex = switch (execution) {
                case CPU -> -1;
                case CUDA -> {
                    String cuda = OnnxDevice.cudaProblem();
                    if (cuda != null) throw new IllegalStateException("device " + slot + " is of hardware type '" + type + "', which runs on CUDA, but " + cuda);
                    yield gpu >= 0 ? gpu : cudaTurn(slots, slot, catalog);
                }
                case ANY -> {
                    String cuda = gpu >= 0 ? OnnxDevice.cudaProblem() : null;
                    if (cuda != null) throw new IllegalStateException("device " + slot + " was given GPU " + gpu + " by Flink, but " + cuda);
                    yield gpu >= 0 ? gpu : slot;
                }
            };
            return new OnnxDevice(slot, ModelRepository.readManifests(repository.localRoot()),
                    new OnnxDevice.Options(memoryBudgetBytes, intraOpThreads, gpuIndex, warmUp, eviction), WallClock::nowMicros);
        };
    }

    /** How many slots before {@code slot} are of types that run on CUDA: its GPU where the engine manages none. */
    static int cudaTurn(DeviceSlots slots, int slot, ModelCatalog catalog) {
        if (slots == null) return slot;
        int turn = 0;
        for (int s = 0; s < slot; s++) {
            if (catalog.hardwareType(slots.typeOf(s)).execution() == HardwareType.Execution.CUDA) turn++;
        }
        return turn;
    }
}
