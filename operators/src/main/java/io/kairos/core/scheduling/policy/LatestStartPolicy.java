package io.kairos.core.scheduling.policy;

import io.kairos.core.device.DeviceView;
import io.kairos.core.model.LatencyProfile;
import io.kairos.core.request.RequestQueue;
import io.kairos.core.scheduling.GroupView;
import io.kairos.core.scheduling.SchedulingPolicy;

import java.util.List;

/**
 * The strategy queue by latest start time, Clockwork's controller (OSDI'20). Each model and batch
 * size is a strategy whose latest start time is the head request's deadline minus the batch
 * latency. Whenever a device has less than the lookahead of work booked (or none), it gets the
 * strategy with the earliest latest start time that can still start in time: across models that
 * is earliest-deadline-first, and within a model the largest batch that still fits, since a
 * larger batch has an earlier latest start time.
 *
 * <p>Two configurations: {@link ClockworkPolicy} as the paper runs it, and {@link KairosPolicy}.
 * Parameter {@code lookahead_ms}, per group.
 */
abstract class LatestStartPolicy implements SchedulingPolicy {
    static final String LOOKAHEAD_MS = "lookahead_ms";

    private final double defaultLookaheadMs;
    private final boolean padded;

    /**
     * @param padded whether a queue shorter than an allowed batch size may run padded up to it,
     *               when that serves more requests per millisecond than the next smaller size
     */
    LatestStartPolicy(double defaultLookaheadMs, boolean padded) {
        this.defaultLookaheadMs = defaultLookaheadMs;
        this.padded = padded;
    }

    @Override
    public long schedule(long now, GroupView group) {
        long lookahead = group.params().getMillisAsMicros(null, LOOKAHEAD_MS, defaultLookaheadMs);
        List<DeviceView> devices = group.devices();
        long stuck = 0; // devices with room but no feasible strategy, by bit (index < 64)
        while (true) {
            DeviceView device = null;
            int index = -1;
            for (int i = 0; i < devices.size(); i++) {
                DeviceView d = devices.get(i);
                boolean isStuck = i < 64 && (stuck & (1L << i)) != 0;
                if (!isStuck && (d.outstandingMicros(now) < lookahead || d.freeAtMicros() <= now) && (device == null || d.freeAtMicros() < device.freeAtMicros())) {
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
    private boolean dispatchBest(long now, GroupView group, DeviceView device) {
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
                int take = Math.min(size, q.size());
                if (take < size && !(padded && paddingPays(p, i, take))) continue;
                long latestStart = deadline - p.latencyAt(i);
                if (latestStart >= start) {
                    if (latestStart < bestLatestStart || (latestStart == bestLatestStart && take > bestSize)) {
                        bestModel = q.model();
                        bestSize = take;
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

    /**
     * Whether {@code take} requests padded to the i-th allowed size serve more requests per
     * millisecond than a full batch of the next smaller size: 3 requests padded to 4 (5.1 ms for
     * ResNet50) beat 2 (3.5 ms) and leaving one behind; 5 padded to 8 (8.3 ms) lose to 4 (5.1 ms).
     */
    private static boolean paddingPays(LatencyProfile p, int i, int take) {
        if (i == 0) return true;
        int smaller = p.batchSizeAt(i - 1);
        return take > smaller && take / (double) p.latencyAt(i) > smaller / (double) p.latencyAt(i - 1);
    }
}
