package io.kairos.core.scheduling;

import io.kairos.core.api.Internal;
import io.kairos.core.model.ModelSpec;

import java.util.List;

/**
 * Model colocation (the model-aware scheduling thesis, MIT 2025, §4.1): a batch goes to a device
 * that already holds its model in memory. The two variants differ when no such device can take it
 * as soon as a device that would have to load the model:
 * <ul>
 *   <li>{@code colocation}, without queuing: the batch cold-starts on that other device rather
 *       than wait behind the work booked on a warm one;</li>
 *   <li>{@code colocation-queuing}, with queuing: it waits for a warm device.</li>
 * </ul>
 * A model no device holds yet loads wherever the scheduling policy puts it: the first load is
 * unavoidable.
 */
@Internal
public final class ColocationPlacement implements PlacementPolicy {
    public static final String WITHOUT_QUEUING = "colocation";
    public static final String WITH_QUEUING = "colocation-queuing";

    private final boolean queuing;

    public ColocationPlacement(boolean queuing) {
        this.queuing = queuing;
    }

    @Override
    public String name() {
        return queuing ? WITH_QUEUING : WITHOUT_QUEUING;
    }

    @Override
    public boolean admits(ModelSpec model, DeviceView device, List<DeviceView> devices, long nowMicros) {
        if (device.isWarm(model)) return true;
        long start = device.startAtMicros(nowMicros);
        for (DeviceView d : devices) {
            if (d == device || !d.holds(model.name()) || !d.isWarm(model)) continue;
            // With queuing, a warm device is worth any wait; without, only one that starts as soon.
            if (queuing || d.startAtMicros(nowMicros) <= start) return false;
        }
        return true;
    }
}
