package io.kairos.core.scheduling.policy;

import io.kairos.core.device.DeviceView;
import io.kairos.core.model.LatencyProfile;
import io.kairos.core.request.RequestQueue;
import io.kairos.core.scheduling.GroupView;
import io.kairos.core.scheduling.SchedulingPolicy;

import java.util.List;

/**
 * Clockwork's controller (OSDI'20). Each model and batch size is a strategy whose latest start
 * time is the head request's deadline minus the batch latency. Whenever a device has less than the
 * lookahead (5 ms) of work booked, it gets the strategy with the earliest latest start time that
 * can still start in time: across models that is earliest-deadline-first, and within a model the
 * largest batch that still fits, since a larger batch has an earlier latest start time.
 *
 * <p>Parameter {@code lookahead_ms} (default 5).
 */
public final class ClockworkPolicy implements SchedulingPolicy {
    public static final String NAME = "clockwork";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public long schedule(long now, GroupView group) {
        long lookahead = group.params().getMillisAsMicros(null, "lookahead_ms", 5.0);
        List<DeviceView> devices = group.devices();
        long stuck = 0; // devices with room but no feasible strategy, by bit (index < 64)
        while (true) {
            DeviceView device = null;
            int index = -1;
            for (int i = 0; i < devices.size(); i++) {
                DeviceView d = devices.get(i);
                boolean isStuck = i < 64 && (stuck & (1L << i)) != 0;
                if (!isStuck && d.outstandingMicros(now) < lookahead && (device == null || d.freeAtMicros() < device.freeAtMicros())) {
                    device = d;
                    index = i;
                }
            }
            if (device == null) break;
            if (!dispatchBest(now, group, device)) {
                if (index >= 64) break;
                stuck |= 1L << index;
            }
        }
        if (group.pendingQueues().isEmpty()) return NO_WAKE;
        // Ask again when a device drops below the lookahead; a stuck device only changes with new arrivals.
        long wake = NO_WAKE;
        for (int i = 0; i < devices.size(); i++) {
            boolean isStuck = i < 64 && (stuck & (1L << i)) != 0;
            if (!isStuck) wake = Math.min(wake, devices.get(i).freeAtMicros() - lookahead);
        }
        return wake == NO_WAKE ? NO_WAKE : Math.max(wake, now + 1);
    }

    /** Dispatches the strategy with the earliest feasible latest start time on {@code device}. */
    private static boolean dispatchBest(long now, GroupView group, DeviceView device) {
        long start = device.startAtMicros(now);
        String bestModel = null;
        int bestSize = 0;
        long bestLatestStart = Long.MAX_VALUE;
        long extra = group.largestBatchExtraMicros();
        for (RequestQueue q : group.pendingQueues()) {
            // Queues come by latest start alone; from here on none can beat the best found.
            if (bestModel != null && q.headDeadline() - q.profile().latencyAt(0) - extra > bestLatestStart) break;
            if (!device.holds(q.model())) continue;
            LatencyProfile p = q.profile();
            long deadline = q.headDeadline();
            for (int i = p.batchSizeCount() - 1; i >= 0; i--) {
                int size = p.batchSizeAt(i);
                if (size > q.size()) continue;
                long latestStart = deadline - p.latencyAt(i);
                if (latestStart >= start) {
                    if (latestStart < bestLatestStart || (latestStart == bestLatestStart && size > bestSize)) {
                        bestModel = q.model();
                        bestSize = size;
                        bestLatestStart = latestStart;
                    }
                    break;
                }
            }
        }
        if (bestModel == null) return false;
        group.dispatch(bestModel, bestSize, device, now);
        return true;
    }
}
