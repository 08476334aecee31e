package io.kairos.core.scheduling.policy;

import io.kairos.core.api.Internal;
import io.kairos.core.scheduling.BatchableHeap;
import io.kairos.core.scheduling.DeviceChoice;
import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.model.LatencyProfile;
import io.kairos.core.scheduling.RequestQueue;
import io.kairos.core.scheduling.Dispatch;
import io.kairos.core.scheduling.GroupView;
import io.kairos.core.scheduling.ParamReader;
import io.kairos.core.scheduling.QueueHeap;
import io.kairos.core.scheduling.SchedulingPolicy;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/**
 * Shepherd's online scheduler Flex (Zhang et al., "SHEPHERD: Serving DNNs in the Wild", NSDI'23,
 * Algorithm 1). It sees every model queue of the serving group. A model's candidate batch on a
 * device is the largest allowed batch size b, at most the queue's length, that finishes by the
 * earliest deadline among its b requests (the queue is EDF, so that is the head's) when started
 * now: now + latency(b) &le; head deadline. A queue shorter than the smallest allowed size is a
 * candidate as it is, padded.
 *
 * <ul>
 *   <li>An idle device (the one idle longest first) starts the largest candidate batch across the
 *       models it holds; ties go to the earlier head deadline. It never waits for a batch to grow.
 *       If no batch meets its head deadline, which only happens with shedding off, it runs the
 *       earliest-deadline request alone.</li>
 *   <li>Preemption, where the engine allows it ({@link GroupView#preemptionAllowed()}): a device
 *       running a batch of b_run requests at now is looked at as if that batch were aborted now,
 *       its requests counting again in their model's candidate. If the largest candidate is at
 *       least {@code lambda} &times; b_run, the running batch is preempted (its requests go back
 *       to their queue, or are dropped if they can no longer make their deadline) and the
 *       candidate starts now on that device. The preempted requests then count as new arrivals:
 *       idle devices and further preemptions are looked at again. Devices are checked in the
 *       group's order. Since lambda &gt; 1, each preemption at least multiplies the size of what
 *       runs on a device, so a call ends.</li>
 * </ul>
 *
 * <p>Where this reads the paper: the pseudocode adds requests one by one while the batch can still
 * meet the SLO; here a batch has an allowed size of the latency profile. Shedding (the paper's
 * "dequeue requests passing their deadlines") is the scheduler's, before the policy runs.
 *
 * <p>Parameter {@code lambda} (default 3.03, must be above 1). The paper itself was not at hand;
 * 3.03 is the default ({@code ShepherdConfig::Default().preempt_lambda}) of a public C++
 * reimplementation of Flex on Nexus ({@code nexus::shepherd::FlexScheduler}), whose comments quote
 * Algorithm 1 line by line; that is also where the preemption rule |B_new| &ge; lambda &times;
 * |B_running| and the treatment of preempted requests as new arrivals come from.
 *
 * <p>The simulator and the Flink job both allow preemption; the job cancels the preempted batch on
 * its device and keeps one result per request whether or not the cancel came in time.
 */
@Internal
public final class FlexPolicy implements SchedulingPolicy {
    public static final String NAME = "flex";
    public static final String LAMBDA = "lambda";
    public static final double DEFAULT_LAMBDA = 3.03;

    // The batchable queues in a heap, longest first: a candidate holds at most its queue's
    // requests, so a search for the largest leaves every subtree whose root is shorter than the best found.
    private static final ToLongFunction<RequestQueue> LONGEST_FIRST = q -> -q.size();
    private static final Supplier<BatchableHeap> LONGEST_FIRST_HEAP = () -> new BatchableHeap(LONGEST_FIRST);

    private final double lambda;

    public FlexPolicy() {
        this(DEFAULT_LAMBDA);
    }

    private FlexPolicy(double lambda) {
        this.lambda = lambda;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public SchedulingPolicy configure(ParamReader params) {
        return new FlexPolicy(params.number(LAMBDA, DEFAULT_LAMBDA, v -> v > 1, "a number above 1"));
    }

    /** Parameter {@code lambda}: how many times larger than a running batch a batch must be to preempt it. */
    public double lambda() {
        return lambda;
    }

    @Override
    public long schedule(long now, GroupView group) {
        do {
            startOnIdleDevices(now, group);
        } while (group.preemptionAllowed() && preemptOne(now, group, lambda));
        return nextFree(now, group);
    }

    /**
     * A model's candidate batch: its size and the deadline of its head. {@code order} is its
     * queue's place among the pending queues (their latest start alone), which breaks the last
     * ties as a scan of the queues in that order would; a preempted model with nothing queued
     * comes last.
     */
    private record Candidate(String model, int size, long headDeadline, long order) {}

    private static void startOnIdleDevices(long now, GroupView group) {
        DeviceChoice choice = group.deviceChoice();
        List<DeviceView> passed = null; // idle devices left idle: nothing they could run in time
        while (true) {
            DeviceView device = null;
            for (DeviceView d : group.devices()) {
                if (d.freeAtMicros() <= now && (device == null || d.freeAtMicros() < device.freeAtMicros()) && holdsPending(now, d, group)
                        && (passed == null || !passed.contains(d))) device = d;
            }
            if (device == null) return;
            Candidate c = largestCandidate(now, group, device, null);
            if (c == null) {
                c = earliestHeadAlone(now, group, device);
                // Where devices differ (a load in front of the batch here, none there), the head
                // that cannot make it here may still make it on another device: leave it to that one.
                RequestQueue head = choice.devicesAlike() ? null : group.queue(c.model());
                if (head != null && choice.earliestReadyMicros(head, now) + head.profile().latencyAt(0) <= head.headDeadline()) {
                    if (passed == null) passed = new ArrayList<>();
                    passed.add(device);
                    continue;
                }
            }
            group.dispatch(c.model(), c.size(), device, now);
        }
    }

    /** Preempts the first running batch that a candidate lambda times its size can replace; false if none. */
    private static boolean preemptOne(long now, GroupView group, double lambda) {
        Candidate[] queued = null; // for devices holding every model: the two largest queued candidates, of different models
        int longest = -1; // the most requests a queue holds (at least 1), once asked for
        for (DeviceView device : group.devices()) {
            Dispatch running = device.preemptibleAt(now);
            // Flex only ever starts a batch on an idle device, so what it booked is running now.
            if (running == null || running.predictedStartMicros() > now) continue;
            if (longest < 0) longest = longestQueue(group);
            // Only sizes decide, and no candidate is larger than its requests: another model's at
            // most the longest queue, the running model's at most its queue and the running batch.
            // Most calls end here, without the candidates or a look-up of the running model.
            if (longest + running.size() < lambda * running.size()) continue;
            Candidate c;
            if (device.models() == null && group.deviceChoice().devicesAlike()) {
                // A candidate of one never replaces a batch (lambda > 1), so the queues of one request need no look.
                if (queued == null) queued = largestTwoBatchable(now, group);
                Candidate other = queued[0] != null && queued[0].model().equals(running.model()) ? queued[1] : queued[0];
                c = better(other, withRunning(now, group, running));
            } else {
                c = largestCandidate(now, group, device, running);
            }
            if (c == null || c.size() < lambda * running.size()) continue;
            group.preempt(device, now);
            // From the queues as they are now: the same batch, as long as latency grows with batch
            // size, since a preempted request that was dropped could not meet its deadline even alone.
            Candidate start = largestCandidate(now, group, device, null);
            if (start != null) group.dispatch(start.model(), start.size(), device, now);
            return true;
        }
        return false;
    }

    /**
     * The largest candidate batch across the models {@code device} holds, started at now, or null if
     * none meets its head deadline. With {@code running} given, its requests count as queued.
     *
     * <p>Only queues of two requests or more can give more than one, so those are searched, in a
     * heap by length, leaving out those shorter than the best found (a candidate is no larger than its queue); a
     * candidate of one, when nothing larger fits, is the feasible head with the earliest deadline,
     * found near the front of the pending queues. Same result as scanning every queue, without
     * doing so on every arrival when thousands of queues hold one request each.
     */
    private static Candidate largestCandidate(long now, GroupView group, DeviceView device, Dispatch running) {
        String runningModel = running == null ? null : running.model();
        DeviceChoice choice = group.deviceChoice();
        Candidate best = null;
        best = largestBatchable(now, longestFirst(group), 0, device, runningModel, choice, best);
        if (running != null) best = better(best, withRunning(now, group, running));
        if (best != null && best.size() > 1) return best;
        for (RequestQueue q : group.pendingQueues()) {
            long latestStartAlone = q.latestStartAlone();
            // Queues come by latest start alone, which is below the head's deadline: from here on none can beat the best.
            if (best != null && latestStartAlone >= best.headDeadline()) break;
            if (latestStartAlone < now || !choice.admits(q, device, now) || q.model().equals(runningModel)) continue;
            if (latestStartAlone < choice.readyFromMicros(q, device, now, now)) continue; // too late once loaded (or there)
            best = better(best, new Candidate(q.model(), 1, q.headDeadline(), latestStartAlone));
        }
        return best;
    }

    /** The batchable queues in a heap, longest first. */
    private static QueueHeap longestFirst(GroupView group) {
        return group.index(BatchableHeap.class, LONGEST_FIRST, LONGEST_FIRST_HEAP).heap();
    }

    /** The length of the longest pending queue, or 1 if none holds more. */
    private static int longestQueue(GroupView group) {
        QueueHeap longestFirst = longestFirst(group);
        return longestFirst.isEmpty() ? 1 : longestFirst.at(0).size();
    }

    /**
     * The largest candidate of the queues in the subtree at place {@code i} of the heap (longest
     * first) that {@code device} holds, other than {@code runningModel}'s, or {@code best} if none
     * is larger: a subtree whose root is shorter than the best holds none.
     */
    private static Candidate largestBatchable(long now, QueueHeap heap, int i, DeviceView device, String runningModel, DeviceChoice choice, Candidate best) {
        if (i >= heap.size()) return best;
        RequestQueue q = heap.at(i);
        if (best != null && q.size() < best.size()) return best;
        if (choice.admits(q, device, now) && !q.model().equals(runningModel)) {
            best = better(best, candidate(choice.readyFromMicros(q, device, now, now), q, q.profile(), null));
        }
        best = largestBatchable(now, heap, 2 * i + 1, device, runningModel, choice, best);
        return largestBatchable(now, heap, 2 * i + 2, device, runningModel, choice, best);
    }

    /** The largest candidate of the queues of two requests or more, and the largest of another model. */
    private static Candidate[] largestTwoBatchable(long now, GroupView group) {
        Candidate[] two = new Candidate[2];
        largestTwo(now, longestFirst(group), 0, two);
        return two;
    }

    private static void largestTwo(long now, QueueHeap heap, int i, Candidate[] two) {
        if (i >= heap.size()) return;
        RequestQueue q = heap.at(i);
        if (two[1] != null && q.size() < two[1].size()) return;
        Candidate c = candidate(now, q, q.profile(), null);
        if (c != null) {
            if (better(two[0], c) == c) {
                two[1] = two[0];
                two[0] = c;
            } else {
                two[1] = better(two[1], c);
            }
        }
        largestTwo(now, heap, 2 * i + 1, two);
        largestTwo(now, heap, 2 * i + 2, two);
    }

    private static Candidate better(Candidate best, Candidate c) {
        if (c == null) return best;
        if (best == null || c.size() > best.size()) return c;
        if (c.size() < best.size()) return best;
        if (c.headDeadline() != best.headDeadline()) return c.headDeadline() < best.headDeadline() ? c : best;
        if (c.order() != best.order()) return c.order() < best.order() ? c : best;
        return c.model().compareTo(best.model()) < 0 ? c : best;
    }

    /** The candidate of the running batch's model, its queued requests and the running ones together. */
    private static Candidate withRunning(long now, GroupView group, Dispatch running) {
        RequestQueue q = group.queue(running.model());
        return candidate(now, q == null || q.isEmpty() ? null : q, group.profile(running.model()), running);
    }

    /**
     * The candidate of a model's queue ({@code null}: empty), with the running batch's requests
     * counted in if given, started computing at {@code now} (on a device that must load the model
     * first: when the load is done).
     */
    private static Candidate candidate(long now, RequestQueue q, LatencyProfile p, Dispatch running) {
        int count = q == null ? 0 : q.size();
        long head = count == 0 ? Long.MAX_VALUE : q.headDeadline();
        long order = count == 0 ? Long.MAX_VALUE : q.latestStartAlone();
        String model = q != null ? q.model() : running.model();
        if (running != null) {
            count += running.size();
            head = Math.min(head, running.requests()[0].deadlineMicros());
        }
        for (int i = p.batchSizeCount() - 1; i >= 0; i--) {
            int size = p.batchSizeAt(i);
            if (size > count) {
                if (i > 0) continue;
                size = count; // fewer requests than the smallest allowed size: they run padded
            }
            if (now + p.latencyAt(i) <= head) return new Candidate(model, size, head, order);
        }
        return null;
    }

    private static Candidate earliestHeadAlone(long now, GroupView group, DeviceView device) {
        RequestQueue first = null;
        for (RequestQueue q : group.pendingQueues()) {
            if (group.deviceChoice().admits(q, device, now) && (first == null || q.headDeadline() < first.headDeadline())) first = q;
        }
        return new Candidate(first.model(), 1, first.headDeadline(), first.latestStartAlone());
    }

    /** Whether the group's device choice admits {@code device} for some pending model at {@code now}. */
    private static boolean holdsPending(long now, DeviceView device, GroupView group) {
        if (device.models() == null && group.deviceChoice().devicesAlike()) return !group.pendingQueues().isEmpty();
        for (RequestQueue q : group.pendingQueues()) {
            if (group.deviceChoice().admits(q, device, now)) return true;
        }
        return false;
    }

    /** When the first busy device that holds a pending model becomes free; idle ones have nothing left to run. */
    private static long nextFree(long now, GroupView group) {
        long wake = NO_WAKE;
        for (DeviceView d : group.devices()) {
            if (d.freeAtMicros() > now && holdsPending(now, d, group)) wake = Math.min(wake, d.freeAtMicros());
        }
        return wake;
    }
}
