package io.kairos.core.scheduling.policy;

import io.kairos.core.api.Internal;
import io.kairos.core.scheduling.BatchableHeap;
import io.kairos.core.scheduling.DeviceChoice;
import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.model.LatencyProfile;
import io.kairos.core.scheduling.RequestQueue;
import io.kairos.core.scheduling.GroupView;
import io.kairos.core.scheduling.ParamReader;
import io.kairos.core.scheduling.QueueHeap;
import io.kairos.core.scheduling.SchedulingPolicy;

import java.util.List;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/**
 * The strategy queue by latest start time, Clockwork's controller (OSDI'20). Each model and batch
 * size is a strategy whose latest start time is the head request's deadline minus the batch
 * latency. Whenever a device has less than the lookahead of work booked (or none), it gets the
 * strategy with the earliest latest start time that can still start in time: across models that
 * is earliest-deadline-first, and within a model the largest batch that still fits, since a
 * larger batch has an earlier latest start time.
 *
 * <p>Two registered configurations of the one policy, differing only in their {@link Preset}:
 * {@link #clockwork()} as the paper runs it, and {@link #kairos()}, Kairos' own. Parameters,
 * group-wide: {@code lookahead_ms} (at least 0) and {@code efficiency_gain} (0 for off, or at
 * least 1); a parameter left out takes the preset's default.
 */
@Internal
public final class LatestStartPolicy implements SchedulingPolicy {
    /** The name of the {@link #clockwork()} configuration. */
    public static final String CLOCKWORK = "clockwork";
    /** The name of the {@link #kairos()} configuration. */
    public static final String KAIROS = "kairos";

    static final String LOOKAHEAD_MS = "lookahead_ms";
    static final String EFFICIENCY_GAIN = "efficiency_gain";
    /** How many of the most urgent queues the fluid test of {@link #behind} looks at. */
    static final int BEHIND_SCAN = 16;

    /**
     * What tells one configuration from the other: its name, its parameters' defaults, and
     * whether a queue shorter than an allowed batch size may run padded up to it when that serves
     * more requests per millisecond than the next smaller size ({@link #paddingPays}).
     *
     * @param efficiencyGain default of {@code efficiency_gain}: 0 for none, else see {@link #whenBehind}
     */
    record Preset(String name, double lookaheadMs, boolean padded, double efficiencyGain) {}

    private static final Preset CLOCKWORK_PRESET = new Preset(CLOCKWORK, 5.0, false, 0);
    private static final Preset KAIROS_PRESET = new Preset(KAIROS, 0.0, true, 1.1);

    // The key of the batchable queues' heap that earliest searches: one key object per padding
    // rule, so that a group keeps its heap when its policy is configured anew.
    private static final ToLongFunction<RequestQueue> LARGEST_START_PADDED = q -> largestBatchStart(q, true);
    private static final ToLongFunction<RequestQueue> LARGEST_START_WHOLE = q -> largestBatchStart(q, false);
    private static final Supplier<BatchableHeap> HEAP_PADDED = () -> new BatchableHeap(LARGEST_START_PADDED);
    private static final Supplier<BatchableHeap> HEAP_WHOLE = () -> new BatchableHeap(LARGEST_START_WHOLE);

    private final Preset preset;
    private final boolean padded;
    private final long lookahead;
    private final double efficiencyGain;

    private LatestStartPolicy(Preset preset, long lookaheadMicros, double efficiencyGain) {
        this.preset = preset;
        this.padded = preset.padded();
        this.lookahead = lookaheadMicros;
        this.efficiencyGain = efficiencyGain;
    }

    private LatestStartPolicy(Preset preset) {
        this(preset, Math.round(preset.lookaheadMs() * 1000.0), preset.efficiencyGain());
    }

    /**
     * Clockwork's controller as the paper runs it: a device topped up whenever it has less than
     * 5 ms of work booked, so that the next batch is already there when the current one ends, and
     * whole batches only. Defaults: {@code lookahead_ms} 5, {@code efficiency_gain} 0 (off).
     */
    public static LatestStartPolicy clockwork() {
        return new LatestStartPolicy(CLOCKWORK_PRESET);
    }

    /**
     * Kairos' own configuration: Clockwork's strategy queue, dispatched just in time and with
     * padded batches.
     *
     * <ul>
     *   <li><b>Just in time.</b> A device gets its next batch when it is free, not 5 ms before. The
     *       lookahead exists in Clockwork to hide the controller-to-worker network; its cost is that
     *       batches are fixed up to 5 ms before they run, so requests that arrive meanwhile wait for
     *       the next batch, and at tight SLOs or under overload batches stay small. Here the
     *       simulator's devices report their completions, so nothing needs hiding. Where a hand-over
     *       delay exists (the Flink job's hop to the device subtask, about 1 ms on the development
     *       machine), set {@code lookahead_ms} to it.</li>
     *   <li><b>Padded batches.</b> A queue of 3 may run as a batch of 4 when that serves more
     *       requests per millisecond than 2 now and 1 later.</li>
     *   <li><b>Throughput first when behind</b> ({@link #whenBehind}): when a fluid test says the
     *       queued work cannot be done by its deadlines, a device takes the most efficient strategy
     *       (requests per millisecond) rather than the most urgent one, if it is at least
     *       {@code efficiency_gain} (1.1) times as efficient: a batch of 16 rather than one of 8
     *       or a lone request. Below capacity the test fails and the order is Clockwork's.</li>
     * </ul>
     * Where the others lose (see BENCHMARKS.md, "Policies"): Clockwork splits batches small
     * at tight SLOs and under overload; work-conserving and Flex serve whatever is first or largest
     * now, so urgent small queues expire in bursts below capacity; Triton waits a fixed delay whatever
     * the deadline. Defaults: {@code lookahead_ms} 0, {@code efficiency_gain} 1.1 (0 turns
     * throughput-first off).
     */
    public static LatestStartPolicy kairos() {
        return new LatestStartPolicy(KAIROS_PRESET);
    }

    @Override
    public String name() {
        return preset.name();
    }

    @Override
    public SchedulingPolicy configure(ParamReader params) {
        return new LatestStartPolicy(preset, params.millisAsMicros(LOOKAHEAD_MS, preset.lookaheadMs()),
                params.number(EFFICIENCY_GAIN, preset.efficiencyGain(), v -> v == 0 || v >= 1, "0 (off) or at least 1"));
    }

    /** Parameter {@code lookahead_ms}: a device gets more work while it has less than this booked. */
    public long lookaheadMicros() {
        return lookahead;
    }

    /** Parameter {@code efficiency_gain}: 0 for off. */
    public double efficiencyGain() {
        return efficiencyGain;
    }

    @Override
    public long schedule(long now, GroupView group) {
        double gain = efficiencyGain;
        List<DeviceView> devices = group.devices();
        StuckDevices stuck = new StuckDevices(); // devices with room but no feasible strategy
        while (true) {
            DeviceView device = null;
            int index = -1;
            for (int i = 0; i < devices.size(); i++) {
                DeviceView d = devices.get(i);
                if (!stuck.has(i) && (d.outstandingMicros(now) < lookahead || d.freeAtMicros() <= now) && (device == null || d.freeAtMicros() < device.freeAtMicros())) {
                    device = d;
                    index = i;
                }
            }
            if (device == null) break;
            if (!dispatchBest(now, group, device, gain)) {
                stuck.add(index);
            } else if (group.deviceChoice().modelAware()) {
                // A model-aware placement admits a device by what the others hold and have booked,
                // which the dispatch just changed: a device that could take nothing may now.
                stuck.clear();
            }
        }
        if (group.pendingQueues().isEmpty()) return NO_WAKE;
        // Ask again when a device drops below the lookahead; a stuck device only changes with new arrivals.
        long wake = NO_WAKE;
        for (int i = 0; i < devices.size(); i++) {
            if (!stuck.has(i)) wake = Math.min(wake, devices.get(i).freeAtMicros() - lookahead);
        }
        return wake == NO_WAKE ? NO_WAKE : Math.max(wake, now + 1);
    }

    /**
     * The devices of one decision that could take nothing, by index: a bit each of a {@code long}
     * for the first 64 (no allocation in the usual group), a {@link java.util.BitSet} beyond. A
     * group of more than 64 devices (Clockwork's one group of a whole cluster) once stopped
     * scheduling at the first stuck device past the 64th: it then served nothing, and woke every
     * microsecond.
     */
    private static final class StuckDevices {
        private long first;
        private java.util.BitSet beyond;

        boolean has(int device) {
            return device < Long.SIZE ? (first & (1L << device)) != 0 : beyond != null && beyond.get(device);
        }

        void add(int device) {
            if (device < Long.SIZE) {
                first |= 1L << device;
            } else {
                if (beyond == null) beyond = new java.util.BitSet();
                beyond.set(device);
            }
        }

        void clear() {
            first = 0;
            if (beyond != null) beyond.clear();
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
     * with an efficiency gain set and the group behind, a more efficient one.
     */
    private boolean dispatchBest(long now, GroupView group, DeviceView device, double efficiencyGain) {
        long start = device.startAtMicros(now);
        DeviceChoice.Round round = group.deviceChoice().round();
        Strategy best = earliest(start, group, device, now, round);
        // The index finds the earliest strategy of all; the scan of the pending queues stops where
        // the largest batch's extra latency says none can come earlier. They agree unless a
        // profile's latency at some size exceeds its smallest's by more than that (a learned
        // profile out of order): then the scan decides, as it always has.
        if (best != null && best.latency() - best.queue().profile().latencyAt(0) > group.largestBatchExtraMicros()) {
            best = earliestByScan(start, group, device, now, round);
        }
        if (best == null) return false;
        if (efficiencyGain > 0 && behind(start, group)) best = whenBehind(best, start, group, device, efficiencyGain, now, round);
        group.dispatch(best.queue().model(), best.take(), device, now);
        return true;
    }

    /**
     * The strategy with the earliest latest start that can start at {@code start}, ties to the
     * larger batch, then to the queue first in the pending order. The queues of two requests or
     * more are in a heap by the latest start of their largest batch (see {@link #largestBatchStart}),
     * below which none of their strategies starts: only those at most the best found are looked
     * at. Of the queues of one request, whose only strategy starts at their latest start alone,
     * the first feasible in the pending order.
     */
    private Strategy earliest(long start, GroupView group, DeviceView device, long now, DeviceChoice.Round choice) {
        Strategy best = earliestBatchable(group.index(BatchableHeap.class, padded ? LARGEST_START_PADDED : LARGEST_START_WHOLE, padded ? HEAP_PADDED : HEAP_WHOLE).heap(), 0, start, device, now, choice, null);
        for (RequestQueue q : group.pendingQueues()) {
            if (best != null && q.latestStartAlone() > best.latestStart()) break;
            if (q.size() > 1) continue;
            Strategy s = strategy(q, start, device, now, choice);
            if (s == null) continue;
            if (best == null || precedes(s, best)) best = s;
            break;
        }
        return best;
    }

    /** The earliest strategy of the queues in the subtree at place {@code i} of the heap, or {@code best} if none precedes it. */
    private Strategy earliestBatchable(QueueHeap heap, int i, long start, DeviceView device, long now, DeviceChoice.Round choice, Strategy best) {
        if (i >= heap.size() || (best != null && heap.keyAt(i) > best.latestStart())) return best;
        Strategy s = strategy(heap.at(i), start, device, now, choice);
        if (s != null && (best == null || precedes(s, best))) best = s;
        best = earliestBatchable(heap, 2 * i + 1, start, device, now, choice, best);
        return earliestBatchable(heap, 2 * i + 2, start, device, now, choice, best);
    }

    /**
     * The best strategy of {@code q} on {@code device} from {@code start}, or null if none: the
     * device must be one the group's {@link DeviceChoice} admits for the model, and the batch must
     * end by its head's deadline once the model is loaded there.
     */
    private Strategy strategy(RequestQueue q, long start, DeviceView device, long now, DeviceChoice.Round choice) {
        if (!choice.admits(q, device, now)) return null;
        int i = largestFeasible(q, choice.readyFromMicros(q, device, start, now));
        if (i < 0) return null;
        return new Strategy(q, Math.min(q.profile().batchSizeAt(i), q.size()), i, q.headDeadline() - q.profile().latencyAt(i));
    }

    /** Whether {@code s} comes before {@code t}: earlier latest start, then larger batch, then the pending order. */
    private static boolean precedes(Strategy s, Strategy t) {
        if (s.latestStart() != t.latestStart()) return s.latestStart() < t.latestStart();
        if (s.take() != t.take()) return s.take() > t.take();
        RequestQueue a = s.queue();
        RequestQueue b = t.queue();
        if (a.latestStartAlone() != b.latestStartAlone()) return a.latestStartAlone() < b.latestStartAlone();
        return a.model().compareTo(b.model()) < 0;
    }

    /**
     * The earliest latest start any strategy of a queue can have, whatever the start: its head's
     * deadline less the longest latency among the sizes it may run at given its length (all sizes
     * up to its length, and, padded, the larger ones where {@link #paddingPays}).
     */
    static long largestBatchStart(RequestQueue q, boolean padded) {
        LatencyProfile p = q.profile();
        long longest = 0;
        for (int i = p.batchSizeCount() - 1; i >= 0; i--) {
            int size = p.batchSizeAt(i);
            int take = Math.min(size, q.size());
            if (take < size && !(padded && paddingPays(p, i, take))) continue;
            longest = Math.max(longest, p.latencyAt(i));
        }
        return q.headDeadline() - longest;
    }

    /** What {@link #earliest} (indexed) or {@link #earliestByScan} picks: for a test to compare them. */
    record Pick(String model, int take, long latestStart) {}

    Pick pick(long start, GroupView group, DeviceView device, boolean indexed) {
        DeviceChoice.Round round = group.deviceChoice().round();
        Strategy s = indexed ? earliest(start, group, device, start, round) : earliestByScan(start, group, device, start, round);
        return s == null ? null : new Pick(s.queue().model(), s.take(), s.latestStart());
    }

    /** The pending queues in order, each looked at until none can beat the best found: what {@link #earliest} finds, in the worst case. */
    private Strategy earliestByScan(long start, GroupView group, DeviceView device, long now, DeviceChoice.Round choice) {
        Strategy best = null;
        long extra = group.largestBatchExtraMicros();
        for (RequestQueue q : group.pendingQueues()) {
            // Queues come by latest start alone; from here on none can beat the best found.
            if (best != null && q.latestStartAlone() - extra > best.latestStart()) break;
            // A lone request's only strategy starts by its latest start alone, which cannot beat the best so far from here.
            if (best != null && q.size() == 1 && q.latestStartAlone() >= best.latestStart()) continue;
            if (!choice.admits(q, device, now)) continue;
            int i = largestFeasible(q, choice.readyFromMicros(q, device, start, now));
            if (i < 0) continue;
            long latestStart = q.headDeadline() - q.profile().latencyAt(i);
            int take = Math.min(q.profile().batchSizeAt(i), q.size());
            if (best == null || latestStart < best.latestStart() || (latestStart == best.latestStart() && take > best.take())) {
                best = new Strategy(q, take, i, latestStart);
            }
        }
        return best;
    }

    /**
     * Whether the group is behind: the work queued in its most urgent queues, served at the
     * largest batches and spread evenly over the devices after what they already hold, cannot be
     * done by the deadlines. A fluid test, queue by queue in order of latest start: the first
     * queue whose head deadline passes before the work up to and including it is done says so.
     * Below capacity it fails almost always; at and above capacity, and in bursts, it holds.
     */
    private static boolean behind(long start, GroupView group) {
        List<DeviceView> devices = group.devices();
        double work = 0;
        for (DeviceView d : devices) work += d.outstandingMicros(start);
        int scanned = 0;
        for (RequestQueue q : group.pendingQueues()) {
            LatencyProfile p = q.profile();
            int max = p.maxBatch();
            int n = q.size();
            work += (n / max) * (double) p.latencyMicros(max) + (n % max > 0 ? p.latencyMicros(n % max) : 0);
            if (start + work / devices.size() > q.headDeadline()) return true;
            if (++scanned == BEHIND_SCAN) break;
        }
        return false;
    }

    /**
     * What a device does when the group is behind: the most efficient strategy (requests served
     * per millisecond), if it is at least {@code efficiencyGain} times as efficient as the most
     * urgent one. The earliest latest start first meets every deadline when the devices can;
     * when they cannot, it spends them on whatever is most urgent, typically one request of a
     * rarely used model at batch 1 (2.7 ms for ResNet50) or a half batch, while a busy queue
     * that would run 16 requests in 14.7 ms waits and loses its head to the deadline. Behind,
     * every millisecond of device should serve as many requests as it can. Only queues of two
     * requests or more are looked at: one request is never more efficient than the urgent strategy.
     */
    private Strategy whenBehind(Strategy urgent, long start, GroupView group, DeviceView device, double efficiencyGain, long now, DeviceChoice.Round choice) {
        Strategy efficient = urgent;
        double best = efficient.efficiency();
        for (RequestQueue q : group.batchableQueues()) {
            if (q == urgent.queue() || !choice.admits(q, device, now)) continue;
            int i = largestFeasible(q, choice.readyFromMicros(q, device, start, now));
            if (i < 0) continue;
            LatencyProfile p = q.profile();
            int take = Math.min(p.batchSizeAt(i), q.size());
            double efficiency = take / (double) p.latencyAt(i);
            long latestStart = q.headDeadline() - p.latencyAt(i);
            if (efficiency > best || (efficiency == best && latestStart < efficient.latestStart())) {
                efficient = new Strategy(q, take, i, latestStart);
                best = efficiency;
            }
        }
        return efficient.efficiency() >= efficiencyGain * urgent.efficiency() ? efficient : urgent;
    }

    /**
     * The largest batch of {@code q} that can start computing at {@code start} (its load, if any,
     * done) and finish by its head's deadline: a full allowed size, or, padded, a shorter queue where {@link #paddingPays}. Returns
     * the index of its allowed size (it takes that size or the whole queue, whichever is fewer),
     * or -1 if none.
     */
    private int largestFeasible(RequestQueue q, long start) {
        LatencyProfile p = q.profile();
        long deadline = q.headDeadline();
        for (int i = p.batchSizeCount() - 1; i >= 0; i--) {
            int size = p.batchSizeAt(i);
            int take = Math.min(size, q.size());
            if (take < size && !(padded && paddingPays(p, i, take))) continue;
            if (deadline - p.latencyAt(i) >= start) return i;
        }
        return -1;
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
