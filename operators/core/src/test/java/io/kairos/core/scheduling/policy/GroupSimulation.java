package io.kairos.core.scheduling.policy;

import io.kairos.core.scheduling.Drop;
import io.kairos.core.model.LatencyProfile;

import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.request.Request;
import io.kairos.core.scheduling.Dispatch;
import io.kairos.core.scheduling.GroupScheduler;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.core.scheduling.SchedulingPolicy;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Drives a {@link GroupScheduler} in simulated time, the way the simulator and the Flink operator
 * do: schedule() at every arrival and at every wake time it returns. Checks, on every call, the
 * properties that hold for every policy; the caller checks the policy's own on the result.
 *
 * <p>With preemption on, a preempted batch does not complete: it leaves {@link #dispatched} (for
 * {@link #preempted}), and its requests end later, in another batch or dropped.
 */
final class GroupSimulation {

    /** A batch and the time it was decided. */
    record Made(long at, Dispatch dispatch) {}

    /** A shed request and the time it was shed. */
    record Shed(long at, Drop drop) {}

    /** Batches that completed (as predicted), in the order they were decided. */
    final List<Made> dispatched = new ArrayList<>();
    final List<Shed> dropped = new ArrayList<>();
    /** A batch, the time it was decided and the time it was preempted. */
    record Preempted(long dispatchedAt, long at, Dispatch dispatch) {}

    final List<Preempted> preempted = new ArrayList<>();
    int calls;

    /** Random arrivals over the given models: gaps of 0..maxGap us, SLOs drawn from {@code slosMs}. */
    static List<Request> arrivals(Random rnd, int count, List<String> models, long maxGap, int... slosMs) {
        List<Request> out = new ArrayList<>(count);
        long t = 0;
        for (int i = 0; i < count; i++) {
            t += rnd.nextLong(maxGap + 1); // same-instant arrivals happen too
            String model = models.get(rnd.nextInt(models.size()));
            long slo = slosMs[rnd.nextInt(slosMs.length)] * 1000L;
            out.add(new Request("r" + i, model, t, t + slo, null));
        }
        return out;
    }

    /** {@code count} arrivals with a mean gap of 0.25-1 ms and SLOs of 10-100 ms: light load to overload. */
    static List<Request> randomLoad(Random rnd, int count, List<String> models) {
        int maxGap = 500 + rnd.nextInt(1500);
        return arrivals(rnd, count, models, maxGap, 10, 25, 50, 100);
    }

    /** Each device holds a random non-empty subset of the models, or (one in four) all of them. */
    static List<DeviceView> devices(Random rnd, int count, List<String> models) {
        List<DeviceView> out = new ArrayList<>();
        for (int slot = 0; slot < count; slot++) {
            if (rnd.nextInt(4) == 0) {
                out.add(new DeviceView(slot, null));
                continue;
            }
            Set<String> held = new HashSet<>();
            for (String m : models) if (rnd.nextBoolean()) held.add(m);
            if (held.isEmpty()) held.add(models.get(rnd.nextInt(models.size())));
            out.add(new DeviceView(slot, held));
        }
        return out;
    }

    GroupSimulation run(ModelCatalog catalog, List<DeviceView> devices, SchedulingPolicy policy, PolicyParams params,
                        List<Request> arrivals) {
        return run(catalog, devices, policy, params, false, arrivals);
    }

    GroupSimulation run(ModelCatalog catalog, List<DeviceView> devices, SchedulingPolicy policy, PolicyParams params,
                        boolean preemption, List<Request> arrivals) {
        GroupScheduler g = new GroupScheduler("sim", catalog, devices, policy, params);
        boolean shedding = g.shedding();
        g.allowPreemption(preemption);
        List<Request> byArrival = new ArrayList<>(arrivals);
        byArrival.sort(Comparator.comparingLong(Request::arrivalMicros));
        Map<Integer, Long> lastEnd = new HashMap<>();
        Map<Integer, DeviceView> bySlot = new HashMap<>();
        for (DeviceView d : devices) {
            lastEnd.put(d.slot(), 0L);
            bySlot.put(d.slot(), d);
        }
        Set<String> ended = new HashSet<>();
        Set<String> admitted = new HashSet<>();
        long wake = SchedulingPolicy.NO_WAKE;
        int next = 0;
        long previous = Long.MIN_VALUE;
        while (next < byArrival.size() || g.pendingCount() > 0) {
            long nextArrival = next < byArrival.size() ? byArrival.get(next).arrivalMicros() : SchedulingPolicy.NO_WAKE;
            long now = Math.min(nextArrival, wake);
            assertThat(now).as("requests pending with nothing to wake the scheduler").isNotEqualTo(SchedulingPolicy.NO_WAKE);
            assertThat(now).as("time moves forward").isGreaterThan(previous);
            previous = now;
            while (next < byArrival.size() && byArrival.get(next).arrivalMicros() == now) {
                Request r = byArrival.get(next++);
                admitted.add(r.id());
                g.admit(r);
            }
            // Earliest finish of a lone request per model, on the devices as they are before this call.
            // And of a full batch, with the requests queued per model: what shedding early is judged by.
            Map<String, Long> earliestFinish = new HashMap<>();
            Map<String, Long> fullBatchFinish = new HashMap<>();
            Map<String, Integer> queued = new HashMap<>();
            for (String model : catalog.names()) {
                long start = Long.MAX_VALUE;
                for (DeviceView d : devices) if (d.holds(model)) start = Math.min(start, Math.max(now, lastEnd.get(d.slot())));
                LatencyProfile p = catalog.get(model).latency();
                earliestFinish.put(model, start == Long.MAX_VALUE ? Long.MAX_VALUE : start + p.latencyMicros(1));
                fullBatchFinish.put(model, start == Long.MAX_VALUE ? Long.MAX_VALUE : start + p.latencyMicros(p.maxBatch()));
                queued.put(model, g.queue(model) == null ? 0 : g.queue(model).size());
            }

            GroupScheduler.Outcome o = g.schedule(now);
            calls++;

            if (!preemption) assertThat(o.preempted()).isEmpty();
            for (Dispatch p : o.preempted()) {
                // Only the last batch booked on its device, running or not started, and one that an earlier call dispatched.
                assertThat(p.predictedEndMicros()).as("preempted after it ended: %s", p.model()).isGreaterThan(now);
                assertThat(p.predictedEndMicros()).as("preempted a batch booked before the last on device %d", p.device())
                        .isEqualTo(lastEnd.get(p.device()));
                int at = indexOf(p);
                assertThat(at).as("preempted a batch that is not running: %s", p.model()).isNotNegative();
                preempted.add(new Preempted(dispatched.remove(at).at(), now, p));
                lastEnd.put(p.device(), Math.max(now, p.predictedStartMicros()));
                for (Request r : p.requests()) assertThat(ended.remove(r.id())).isTrue();
            }

            for (Drop drop : o.drops()) {
                Request r = drop.request();
                assertThat(admitted).as("dropped before it arrived: %s", r).contains(r.id());
                assertThat(ended.add(r.id())).as("ended twice: %s", r).isTrue();
                assertThat(drop.reason()).isNotBlank();
                long finish = earliestFinish.get(r.model());
                if (drop.reason().startsWith("shed under overload")) {
                    // Shed early: two full batches were waiting, and it could not finish in one.
                    assertThat(g.sheddingEarly()).as("shed early with shedding early off: %s", r).isTrue();
                    assertThat(queued.get(r.model())).as("shed early from a short queue: %s", r).isGreaterThanOrEqualTo(2 * catalog.get(r.model()).latency().maxBatch());
                    assertThat(fullBatchFinish.get(r.model())).as("shed early although a full batch would finish in time: %s", r).isGreaterThan(r.deadlineMicros());
                } else if (drop.reason().startsWith("queue timeout")) {
                    // A policy's own queue policy (Triton's): never before the request's timeout.
                    if (drop.reason().contains("timeout = SLO")) {
                        assertThat(now).as("timed out before its deadline: %s", r).isGreaterThanOrEqualTo(r.deadlineMicros());
                    }
                } else if (finish != Long.MAX_VALUE) {
                    assertThat(shedding).as("shed with shedding off: %s", r).isTrue();
                    assertThat(finish).as("shed although it could still finish in time: %s", r).isGreaterThan(r.deadlineMicros());
                } else {
                    assertThat(drop.reason()).contains("'" + r.model() + "'");
                }
                dropped.add(new Shed(now, drop));
            }
            for (Dispatch d : o.dispatches()) {
                assertThat(bySlot.get(d.device()).holds(d.model())).as("%s on a device without the model", d.model()).isTrue();
                assertThat(d.size()).isPositive();
                assertThat(d.predictedStartMicros()).isGreaterThanOrEqualTo(now);
                assertThat(d.predictedStartMicros()).as("overlapping batches on device %d", d.device())
                        .isGreaterThanOrEqualTo(lastEnd.get(d.device()));
                assertThat(d.predictedLatencyMicros()).isEqualTo(catalog.get(d.model()).latency().latencyMicros(d.size()));
                lastEnd.put(d.device(), d.predictedEndMicros());
                for (int i = 0; i < d.size(); i++) {
                    Request r = d.requests()[i];
                    assertThat(r.model()).isEqualTo(d.model());
                    assertThat(admitted).as("dispatched before it arrived: %s", r).contains(r.id());
                    assertThat(ended.add(r.id())).as("ended twice: %s", r).isTrue();
                    if (i > 0) assertThat(r.deadlineMicros()).isGreaterThanOrEqualTo(d.requests()[i - 1].deadlineMicros());
                }
                dispatched.add(new Made(now, d));
            }
            wake = o.nextWakeMicros();
            if (wake != SchedulingPolicy.NO_WAKE) assertThat(wake).as("wake in the past").isGreaterThan(now);
            if (shedding && g.pendingCount() > 0) assertThat(wake).as("pending requests but no wake").isNotEqualTo(SchedulingPolicy.NO_WAKE);
        }
        assertThat(ended).as("every request ends exactly once").hasSize(arrivals.size());
        assertThat(g.pendingCount()).isZero();
        assertThat(dispatched.stream().mapToInt(m -> m.dispatch().size()).sum() + dropped.size()).isEqualTo(arrivals.size());
        return this;
    }

    private int indexOf(Dispatch d) {
        for (int i = dispatched.size() - 1; i >= 0; i--) {
            if (dispatched.get(i).dispatch() == d) return i;
        }
        return -1;
    }
}
