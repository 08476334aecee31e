package io.kairos.core.scheduling;

import io.kairos.core.api.Internal;
import io.kairos.core.model.ModelSpec;

import java.util.List;

/**
 * The centralised model registry (the model-aware scheduling thesis, MIT 2025, §4.2): a batch
 * goes to a device that holds its model and has fewer than {@code targetOngoing} batches
 * outstanding (booked and not predicted done; the thesis' {@code targetOngoingRequests}, 3);
 * when every holder has that many, it loads the model on a device that does not hold it. Where
 * every device holds the model, the holders take it whatever their load. The scheduler's views
 * of its devices are the registry: which models each holds, and what is booked on it.
 *
 * <p>The load elsewhere is a decision of its own ({@link #copyWanted}, carried out by the
 * {@link LoadPlanner}, the device making room by its eviction rule): booked on the device's
 * timeline, the copy then has room and takes the batches, each starting once the load is done,
 * as the thesis' request waits for its cold start, while the full holders go on serving what they
 * hold. Only a model no device holds goes to a cold device with its load in front of the batch.
 */
@Internal
public final class RegistryPlacement implements PlacementPolicy {
    public static final String NAME = "registry";
    /** Parameter: how many outstanding batches make a holder full (default {@value #DEFAULT_TARGET_ONGOING}). */
    public static final String TARGET_ONGOING = "target_ongoing";
    public static final int DEFAULT_TARGET_ONGOING = 3;

    private final int targetOngoing;

    public RegistryPlacement(int targetOngoing) {
        if (targetOngoing < 1) throw new IllegalArgumentException(TARGET_ONGOING + " must be at least 1, got " + targetOngoing);
        this.targetOngoing = targetOngoing;
    }

    public int targetOngoing() {
        return targetOngoing;
    }

    @Override
    public String name() {
        return NAME;
    }

    /** A holder is on another machine: the request travels there, its pre- and post-processing stay behind. */
    @Override
    public boolean remote(ModelSpec model, DeviceView device, List<DeviceView> devices, long nowMicros) {
        return device.isWarm(model);
    }

    @Override
    public boolean admits(ModelSpec model, DeviceView device, List<DeviceView> devices, long nowMicros) {
        boolean warm = device.isWarm(model);
        if (warm && device.outstandingBatches(nowMicros) < targetOngoing) return true;
        boolean holderWithRoom = false;
        boolean heldElsewhere = false;
        boolean coldDevice = false;
        for (DeviceView d : devices) {
            if (d == device || !d.holds(model.name())) continue;
            if (!d.isWarm(model)) coldDevice |= canLoad(d, model);
            else {
                heldElsewhere = true;
                if (d.outstandingBatches(nowMicros) < targetOngoing) holderWithRoom = true;
            }
        }
        // A cold device only for the model's first load: another copy is the load planner's
        // (copyWanted). A full holder only when no holder has room and no device is left to load on.
        return warm ? !holderWithRoom && !coldDevice : !heldElsewhere;
    }

    /** Every device that holds the model in memory has {@code targetOngoing} batches outstanding, and one that could hold it does not. */
    @Override
    public String copyWanted(ModelSpec model, List<DeviceView> devices, long nowMicros) {
        boolean held = false;
        boolean coldDevice = false;
        for (DeviceView d : devices) {
            if (!d.holds(model.name())) continue;
            if (!d.isWarm(model)) coldDevice |= canLoad(d, model);
            else if (d.outstandingBatches(nowMicros) < targetOngoing) return null;
            else held = true;
        }
        return held && coldDevice ? "every copy has " + targetOngoing + (targetOngoing == 1 ? " batch" : " batches") + " outstanding (" + TARGET_ONGOING + ")" : null;
    }

    /** Whether the model fits the device's memory at all, evicting what it holds. */
    private static boolean canLoad(DeviceView device, ModelSpec model) {
        return model.memoryBytes() <= device.memoryBudgetBytes();
    }
}
