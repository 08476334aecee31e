package io.kairos.core.scheduling.policy;

import io.kairos.core.scheduling.RequestQueue;
import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.scheduling.GroupView;
import io.kairos.core.scheduling.SchedulingPolicy;

/** Device look-ups of the policies that only ever start a batch on an idle device. */
final class IdleDevices {
    private IdleDevices() {}

    /**
     * The device for a batch of {@code q} that has been idle longest at {@code now}, or null if none
     * is idle: the group's {@link io.kairos.core.scheduling.DeviceChoice}, which asks the model's placement.
     */
    static DeviceView idleFor(long now, GroupView group, RequestQueue q) {
        return group.deviceChoice().idleFor(q, now);
    }

    /**
     * The device that has been idle longest at {@code now}, or null if none is idle: when every
     * device holds every model ({@link GroupView#everyDeviceHoldsEveryModel}), {@link #idleFor}
     * of any model, looked up once for a scan of thousands of queues.
     */
    static DeviceView idleAny(long now, GroupView group) {
        DeviceView best = null;
        for (DeviceView d : group.devices()) {
            if (d.freeAtMicros() <= now && (best == null || d.freeAtMicros() < best.freeAtMicros())) best = d;
        }
        return best;
    }

    /**
     * Whether any device of the group is idle at {@code now}. Policies that start batches on idle
     * devices only ask this first: with every device busy, as under overload, there is nothing to
     * decide, and the scan of thousands of pending queues is skipped on every arrival.
     */
    static boolean anyIdle(long now, GroupView group) {
        for (DeviceView d : group.devices()) {
            if (d.freeAtMicros() <= now) return true;
        }
        return false;
    }

    /** When the first device becomes free; a wake-up then finds out whether it holds pending work. */
    static long nextFree(GroupView group) {
        long t = SchedulingPolicy.NO_WAKE;
        for (DeviceView d : group.devices()) t = Math.min(t, d.freeAtMicros());
        return t;
    }

    /** When the first device that may take a batch of {@code q} becomes free. */
    static long nextFreeFor(long now, GroupView group, RequestQueue q) {
        return group.deviceChoice().nextFreeFor(q, now);
    }
}
