package io.kairos.core.scheduling.policy;

import io.kairos.core.api.Internal;
import io.kairos.core.scheduling.RequestQueue;
import io.kairos.core.scheduling.ArrivalOrder;
import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.scheduling.GroupView;
import io.kairos.core.scheduling.SchedulingPolicy;

/**
 * No batching: whenever a device is idle, it gets the one request that comes first in the
 * policy's order. Two orders, two classic baselines: {@link #fifo()} serves the oldest arrival,
 * {@link #edf()} the earliest deadline, across all models of the group. Each model's queue is in
 * deadline order, which is its arrival order as long as the model's requests share one SLO; FIFO
 * compares the heads' arrival times.
 */
@Internal
public final class OneAtATimePolicy implements SchedulingPolicy {
    public static final String FIFO = "fifo";
    public static final String EDF = "edf";

    private final String name;
    private final boolean byDeadline;

    private OneAtATimePolicy(String name, boolean byDeadline) {
        this.name = name;
        this.byDeadline = byDeadline;
    }

    public static OneAtATimePolicy fifo() {
        return new OneAtATimePolicy(FIFO, false);
    }

    public static OneAtATimePolicy edf() {
        return new OneAtATimePolicy(EDF, true);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public long schedule(long now, GroupView group) {
        if (!IdleDevices.anyIdle(now, group)) return IdleDevices.nextFree(group);
        if (group.everyDeviceHoldsEveryModel()) return scheduleAnywhere(now, group);
        while (true) {
            RequestQueue first = null;
            long firstKey = Long.MAX_VALUE;
            long wake = NO_WAKE;
            for (RequestQueue q : group.pendingQueues()) {
                // EDF: queues come by latest start alone, which is below the head's deadline; from here on none can beat it.
                if (byDeadline && first != null && q.latestStartAlone() >= firstKey) break;
                long key = byDeadline ? q.headDeadline() : q.peek().arrivalMicros();
                if (IdleDevices.idleFor(now, group, q) == null) {
                    wake = Math.min(wake, IdleDevices.nextFreeFor(now, group, q));
                } else if (key < firstKey) {
                    first = q;
                    firstKey = key;
                }
            }
            if (first == null) return wake;
            group.dispatch(first, 1, IdleDevices.idleFor(now, group, first), now);
        }
    }

    /**
     * The same when every device holds every model: one idle device serves whichever queue comes
     * first, and once none is idle, every queue would wait for the first device to free.
     */
    private long scheduleAnywhere(long now, GroupView group) {
        while (true) {
            DeviceView device = IdleDevices.idleAny(now, group);
            if (device == null) return group.pendingQueues().isEmpty() ? NO_WAKE : IdleDevices.nextFree(group);
            if (group.pendingQueues().isEmpty()) return NO_WAKE;
            if (!byDeadline) {
                // The oldest head, ties in the pending order: the front of the order by head arrival.
                group.dispatch(group.index(ArrivalOrder.class, ArrivalOrder.BY_HEAD, ArrivalOrder::byHead).queues().first(), 1, device, now);
                continue;
            }
            RequestQueue first = null;
            long firstKey = Long.MAX_VALUE;
            for (RequestQueue q : group.pendingQueues()) {
                if (first != null && q.latestStartAlone() >= firstKey) break;
                if (q.headDeadline() < firstKey) {
                    first = q;
                    firstKey = q.headDeadline();
                }
            }
            group.dispatch(first, 1, device, now);
        }
    }
}
