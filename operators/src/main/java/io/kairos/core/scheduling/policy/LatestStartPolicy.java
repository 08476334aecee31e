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
    static final String CONFLICT_RATIO = "conflict_ratio";
    static final String OVERLOAD_RATIO = "overload_ratio";

    private final double defaultLookaheadMs;
    private final boolean padded;
    private final Ratios defaultRatios;

    /**
     * @param padded whether a queue shorter than an allowed batch size may run padded up to it,
     *               when that serves more requests per millisecond than the next smaller size
     * @param ratios        defaults of parameters {@code conflict_ratio} and {@code overload_ratio}, see {@link #unlessOverloaded}
     */
    LatestStartPolicy(double defaultLookaheadMs, boolean padded, Ratios ratios) {
        this.defaultLookaheadMs = defaultLookaheadMs;
        this.padded = padded;
        this.defaultRatios = ratios;
    }

    @Override
    public long schedule(long now, GroupView group) {
        long lookahead = group.params().getMillisAsMicros(null, LOOKAHEAD_MS, defaultLookaheadMs);
        Ratios ratios = new Ratios(group.params().getDouble(null, CONFLICT_RATIO, defaultRatios.conflict()),
                group.params().getDouble(null, OVERLOAD_RATIO, defaultRatios.overload()));
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
            if (!dispatchBest(now, group, device, ratios)) {
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

    /** The overload rule's thresholds; 0 and 0: off. */
    record Ratios(double conflict, double overload) {
        static final Ratios OFF = new Ratios(0, 0);

        Ratios {
            if (!(conflict == 0 && overload == 0) && !(conflict >= 1 && overload >= conflict)) {
                throw new IllegalArgumentException("policy parameters '" + CONFLICT_RATIO + "' and '" + OVERLOAD_RATIO
                        + "' must both be 0 (off), or 1 <= conflict_ratio <= overload_ratio; got " + conflict + " and " + overload);
            }
        }

        boolean on() {
            return conflict > 0;
        }
    }

    /** A batch of {@code take} requests of a model, run at its {@code index}-th allowed size. */
    private record Strategy(RequestQueue queue, int take, int index, long latestStart) {
        long latency() {
            return queue.profile().latencyAt(index);
        }

        /** Requests served per microsecond of device time. */
        double efficiency() {
            return take / (double) latency();
        }
    }

    /**
     * Dispatches the strategy with the earliest feasible latest start time on {@code device}, or,
     * with an overload ratio set, a more efficient one when the two cannot both be served in time.
     */
    private boolean dispatchBest(long now, GroupView group, DeviceView device, Ratios ratios) {
        long start = device.startAtMicros(now);
        Strategy best = null;
        long extra = group.largestBatchExtraMicros();
        for (RequestQueue q : group.pendingQueues()) {
            // Queues come by latest start alone; from here on none can beat the best found.
            if (best != null && q.headDeadline() - q.profile().latencyAt(0) - extra > best.latestStart()) break;
            if (!device.holds(q.model())) continue;
            Strategy s = largestFeasible(q, start);
            if (s != null && (best == null || s.latestStart() < best.latestStart() || (s.latestStart() == best.latestStart() && s.take() > best.take()))) {
                best = s;
            }
        }
        if (best == null) return false;
        if (ratios.on()) best = unlessOverloaded(best, start, group, device, ratios);
        group.dispatch(best.queue().model(), best.take(), device, now);
        return true;
    }

    /**
     * The largest batch of {@code q} that can start at {@code start} and finish by its head's
     * deadline: a full allowed size, or, padded, a shorter queue where {@link #paddingPays}.
     */
    private Strategy largestFeasible(RequestQueue q, long start) {
        LatencyProfile p = q.profile();
        long deadline = q.headDeadline();
        for (int i = p.batchSizeCount() - 1; i >= 0; i--) {
            int size = p.batchSizeAt(i);
            int take = Math.min(size, q.size());
            if (take < size && !(padded && paddingPays(p, i, take))) continue;
            long latestStart = deadline - p.latencyAt(i);
            if (latestStart >= start) return new Strategy(q, take, i, latestStart);
        }
        return null;
    }

    /**
     * The overload rule. The earliest latest start first is what meets every deadline when the
     * devices can; when they cannot, it spends them on whatever is most urgent, typically one
     * request of a rarely used model at batch 1 (2.7 ms for ResNet50) while a busy model's queue,
     * which would run 16 requests in 14.7 ms, loses its head to the deadline. So the most efficient
     * strategy (requests per millisecond) is weighed against the urgent one, by the ratio of their
     * efficiencies, the gain:
     * <ul>
     *   <li>below {@code conflict_ratio}, or if the urgent one can wait for the efficient one
     *       (after it on this device, or on another device before its latest start): the urgent
     *       one, as Clockwork would;</li>
     *   <li>from {@code overload_ratio} on: the efficient one, and the urgent one is given up;</li>
     *   <li>in between: the efficient one only if it cannot wait for the urgent one either, a true
     *       conflict in which one of the two is lost anyway.</li>
     * </ul>
     * Only queues of two requests or more are looked at: a single request is never more
     * efficient than the urgent strategy by a ratio above 1.
     */
    private Strategy unlessOverloaded(Strategy urgent, long start, GroupView group, DeviceView device, Ratios ratios) {
        // Another device takes it in time whatever runs here: the common case below capacity, decided without a scan.
        if (canWait(urgent, Long.MAX_VALUE, start, group, device)) return urgent;
        Strategy efficient = null;
        for (RequestQueue q : group.batchableQueues()) {
            if (q == urgent.queue() || !device.holds(q.model())) continue;
            Strategy s = largestFeasible(q, start);
            if (s != null && (efficient == null || s.efficiency() > efficient.efficiency()
                    || (s.efficiency() == efficient.efficiency() && s.latestStart() < efficient.latestStart()))) {
                efficient = s;
            }
        }
        if (efficient == null) return urgent;
        double gain = efficient.efficiency() / urgent.efficiency();
        if (gain < ratios.conflict() || canWait(urgent, start + efficient.latency(), start, group, device)) return urgent;
        // Running the efficient strategy first loses the urgent one.
        if (gain >= ratios.overload()) return efficient;
        return canWait(efficient, start + urgent.latency(), start, group, device) ? urgent : efficient;
    }

    /** Whether {@code s} can still start in time after {@code freeAgain} on this device, or on another one that holds its model. */
    private static boolean canWait(Strategy s, long freeAgain, long start, GroupView group, DeviceView device) {
        long couldStart = freeAgain;
        for (DeviceView d : group.devices()) {
            if (d != device && d.holds(s.queue().model())) couldStart = Math.min(couldStart, d.startAtMicros(start));
        }
        return s.latestStart() >= couldStart;
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
