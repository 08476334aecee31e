package io.kairos.core.scheduling;

import io.kairos.core.model.ModelSpec;

import java.util.List;

/**
 * The centralised model registry (the model-aware scheduling thesis, MIT 2025, §4.2): a batch
 * goes to a device that holds its model and has fewer than {@code targetOngoing} batches
 * outstanding (booked and not predicted done; the thesis' {@code targetOngoingRequests}, 3);
 * when every holder has that many, it loads the model on a device that does not hold it. Where
 * every device holds the model, the holders take it whatever their load. The scheduler's views
 * of its devices are the registry: which models each holds, and what is booked on it.
 */
public final class Registry implements PlacementPolicy {
    public static final String NAME = "registry";
    /** Parameter: how many outstanding batches make a holder full (default {@value #DEFAULT_TARGET_ONGOING}). */
    public static final String TARGET_ONGOING = "target_ongoing";
    public static final int DEFAULT_TARGET_ONGOING = 3;

    private final int targetOngoing;

    public Registry(int targetOngoing) {
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
        boolean coldDevice = false;
        for (DeviceView d : devices) {
            if (d == device || !d.holds(model.name())) continue;
            if (!d.isWarm(model)) coldDevice = true;
            else if (d.outstandingBatches(nowMicros) < targetOngoing) holderWithRoom = true;
        }
        // A cold device only when no holder has room; a full holder only when no device is left to load on.
        return warm ? !holderWithRoom && !coldDevice : !holderWithRoom;
    }
}
