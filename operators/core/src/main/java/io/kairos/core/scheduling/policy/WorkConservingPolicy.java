package io.kairos.core.scheduling.policy;

import io.kairos.core.api.Internal;
import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.model.LatencyProfile;
import io.kairos.core.scheduling.RequestQueue;
import io.kairos.core.scheduling.GroupView;
import io.kairos.core.scheduling.SchedulingPolicy;

/**
 * Work-conserving batching: a device never idles while requests wait. An idle device takes the
 * model whose head request has the earliest deadline, with the largest allowed batch that the
 * queue can fill and that still finishes by that deadline, counted from when the batch could start
 * there, its model's load included (a batch of one when none does; the scheduler sheds what cannot
 * make it at all).
 */
@Internal
public final class WorkConservingPolicy implements SchedulingPolicy {
    public static final String NAME = "work-conserving";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public long schedule(long now, GroupView group) {
        if (!IdleDevices.anyIdle(now, group)) return IdleDevices.nextFree(group);
        if (group.everyDeviceHoldsEveryModel()) return scheduleAnywhere(now, group);
        while (true) {
            RequestQueue first = null;
            long wake = NO_WAKE;
            for (RequestQueue q : group.pendingQueues()) {
                // Queues come by latest start alone, which is below the head's deadline: from here on none can beat it.
                if (first != null && q.latestStartAlone() >= first.headDeadline()) break;
                if (IdleDevices.idleFor(now, group, q) == null) {
                    wake = Math.min(wake, IdleDevices.nextFreeFor(now, group, q));
                } else if (first == null || q.headDeadline() < first.headDeadline()) {
                    first = q;
                }
            }
            if (first == null) return wake;
            DeviceView device = IdleDevices.idleFor(now, group, first);
            group.dispatch(first, largestFeasible(group.deviceChoice().readyAtMicros(first, device, now), first, first.profile()), device, now);
        }
    }

    /**
     * The same when every device holds every model: one idle device serves whichever queue wins,
     * and once none is idle, every queue would wait for the first device to free.
     */
    private static long scheduleAnywhere(long now, GroupView group) {
        while (true) {
            DeviceView device = IdleDevices.idleAny(now, group);
            if (device == null) return group.pendingQueues().isEmpty() ? NO_WAKE : IdleDevices.nextFree(group);
            RequestQueue first = null;
            for (RequestQueue q : group.pendingQueues()) {
                if (first != null && q.latestStartAlone() >= first.headDeadline()) break;
                if (first == null || q.headDeadline() < first.headDeadline()) first = q;
            }
            if (first == null) return NO_WAKE;
            group.dispatch(first, largestFeasible(group.deviceChoice().readyAtMicros(first, device, now), first, first.profile()), device, now);
        }
    }

    private static int largestFeasible(long start, RequestQueue q, LatencyProfile p) {
        for (int i = p.batchSizeCount() - 1; i >= 0; i--) {
            int size = p.batchSizeAt(i);
            if (size <= q.size() && start + p.latencyAt(i) <= q.headDeadline()) return size;
        }
        return 1;
    }
}
