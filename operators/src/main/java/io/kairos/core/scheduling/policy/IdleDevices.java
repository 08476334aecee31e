package io.kairos.core.scheduling.policy;

import io.kairos.core.device.DeviceView;
import io.kairos.core.scheduling.GroupView;
import io.kairos.core.scheduling.SchedulingPolicy;

/** Device look-ups of the policies that only ever start a batch on an idle device. */
final class IdleDevices {
    private IdleDevices() {}

    /** The device holding {@code model} that has been idle longest at {@code now}, or null if none is idle. */
    static DeviceView idleFor(long now, GroupView group, String model) {
        DeviceView best = null;
        for (DeviceView d : group.devices()) {
            if (d.holds(model) && d.freeAtMicros() <= now && (best == null || d.freeAtMicros() < best.freeAtMicros())) best = d;
        }
        return best;
    }

    /** When the first device holding {@code model} becomes free. */
    static long nextFreeFor(GroupView group, String model) {
        long t = SchedulingPolicy.NO_WAKE;
        for (DeviceView d : group.devices()) {
            if (d.holds(model)) t = Math.min(t, d.freeAtMicros());
        }
        return t;
    }
}
