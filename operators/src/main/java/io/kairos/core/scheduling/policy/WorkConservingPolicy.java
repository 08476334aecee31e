package io.kairos.core.scheduling.policy;

import io.kairos.core.device.DeviceView;
import io.kairos.core.model.LatencyProfile;
import io.kairos.core.request.RequestQueue;
import io.kairos.core.scheduling.GroupView;
import io.kairos.core.scheduling.SchedulingPolicy;

/**
 * Work-conserving batching: a device never idles while requests wait. An idle device takes the
 * model whose head request has the earliest deadline, with the largest allowed batch that the
 * queue can fill and that still finishes by that deadline (a batch of one when none does; the
 * scheduler sheds what cannot make it at all).
 */
public final class WorkConservingPolicy implements SchedulingPolicy {
    public static final String NAME = "work-conserving";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public long schedule(long now, GroupView group) {
        while (true) {
            String first = null;
            long wake = NO_WAKE;
            for (String model : group.modelsWithPending()) {
                if (IdleDevices.idleFor(now, group, model) == null) {
                    wake = Math.min(wake, IdleDevices.nextFreeFor(group, model));
                } else if (first == null || group.queue(model).headDeadline() < group.queue(first).headDeadline()) {
                    first = model;
                }
            }
            if (first == null) return wake;
            DeviceView device = IdleDevices.idleFor(now, group, first);
            group.dispatch(first, largestFeasible(now, group.queue(first), group.profile(first)), device, now);
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
