package io.kairos.sim;

import io.kairos.core.metrics.ResultSummary;
import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.request.Request;
import io.kairos.core.scheduling.BatchReport;
import io.kairos.core.scheduling.Dispatch;
import io.kairos.core.scheduling.GroupScheduler;
import io.kairos.core.scheduling.SchedulingPolicy;
import io.kairos.workload.Arrival;
import io.kairos.schema.ResultStatus;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * One run of a {@link Simulation}: the event loop. The next event is the earliest of the next
 * arrival, the end of a running batch, and the next policy invocation; there are few enough
 * devices that finding it is a scan, and no event objects are allocated.
 *
 * <p>Events at the same instant are taken together: batches that end, then arrivals, then one
 * policy invocation, which sees them all, as a scheduler woken once would.
 */
final class SimulationRun {
    private final Simulation sim;
    private final FateListener listener;
    private final GroupScheduler scheduler;
    private final SimulatedGpu[] gpus;
    private final ArrivalSource source;
    private final Invocation invocation;
    private final long warmup;

    private long now;
    private long wakeAt = SchedulingPolicy.NO_WAKE;
    private boolean dirty;
    private long sequence;

    // What the report counts: requests arriving at or after the warm-up, batches starting then.
    private final ResultSummary.Stats results;
    private long simulated;
    private long batches;
    private long busyMicros;
    private long coldStarts;
    private long preemptions;

    SimulationRun(Simulation sim, FateListener listener) {
        this.sim = sim;
        this.listener = listener;
        this.invocation = sim.invocation();
        this.warmup = sim.warmupMicros();
        this.results = new ResultSummary.Stats(sim.policyName());
        SplittableRandom root = new SplittableRandom(sim.seed());
        this.source = sim.load().start(root.split().nextLong(), sim.durationMicros());
        List<DeviceView> views = new ArrayList<>();
        gpus = new SimulatedGpu[sim.placement().size()];
        for (int slot = 0; slot < gpus.length; slot++) {
            // The view replays the device's model cache on the same budget: it books the cold starts the device spends.
            DeviceView view = new DeviceView(slot, sim.placement().get(slot), sim.deviceMemoryBytes());
            views.add(view);
            SplittableRandom random = root.split();
            gpus[slot] = new SimulatedGpu(view, sim.deviceTime(random), sim.dispatchDelay(), random);
        }
        this.scheduler = new GroupScheduler("simulated", sim.catalog(), views, sim.newPolicy(), sim.params());
        scheduler.allowPreemption(sim.preemption());
        scheduler.learnLatency(sim.learnLatency());
    }

    SimulationReport run() {
        long started = System.nanoTime();
        while (true) {
            long nextArrival = source.peekMicros();
            int gpu = earliestEvent();
            long nextEnd = gpu < 0 ? Long.MAX_VALUE : gpus[gpu].nextEvent();
            long nextInvocation = dirty ? invocation.nextAtOrAfter(now)
                    : wakeAt == SchedulingPolicy.NO_WAKE ? Long.MAX_VALUE : invocation.nextAtOrAfter(Math.max(wakeAt, now));
            long t = Math.min(nextArrival, Math.min(nextEnd, nextInvocation));
            if (t == Long.MAX_VALUE) break;
            now = t;
            while (gpu >= 0 && gpus[gpu].nextEvent() == now) {
                if (gpus[gpu].running() != null) complete(gpus[gpu]);
                else gpus[gpu].startArrived(now);
                gpu = earliestEvent();
            }
            while (source.peekMicros() == now) arrive(source.next());
            if ((dirty || now >= wakeAt) && invocation.nextAtOrAfter(now) == now) invoke();
        }
        // A policy that waits for a batch to fill may wait forever once arrivals stop.
        for (Request r : scheduler.pendingRequests()) fate(r, ResultStatus.DROPPED, now, 0);
        return new SimulationReport(sim.policyName(), gpus.length, sim.durationMicros() - warmup, results,
                batches, busyMicros, coldStarts, preemptions, simulated, System.nanoTime() - started);
    }

    private int earliestEvent() {
        int best = -1;
        long bestEnd = SimulatedGpu.IDLE;
        for (int i = 0; i < gpus.length; i++) {
            long end = gpus[i].nextEvent();
            if (end < bestEnd) {
                bestEnd = end;
                best = i;
            }
        }
        return best;
    }

    private void arrive(Arrival a) {
        simulated++;
        long deadline = a.offsetMicros() + Math.round(a.sloMs() * 1000);
        scheduler.admit(new Request(Long.toString(sequence++), a.model(), a.offsetMicros(), deadline, a));
        dirty = true;
    }

    private void invoke() {
        GroupScheduler.Outcome outcome = scheduler.schedule(now);
        dirty = false;
        // Preempted batches leave their device before the batches that replace them arrive there.
        for (Dispatch d : outcome.preempted()) {
            long spent = gpus[d.device()].preempt(d, now);
            busyMicros += inWindow(now - spent, now);
            if (now >= warmup) preemptions++;
        }
        for (GroupScheduler.Drop d : outcome.drops()) fate(d.request(), ResultStatus.DROPPED, now, 0);
        for (Dispatch d : outcome.dispatches()) gpus[d.device()].submit(d, now);
        wakeAt = Math.max(outcome.nextWakeMicros(), now + 1);
    }

    private void complete(SimulatedGpu gpu) {
        long start = gpu.runningStart();
        boolean cold = gpu.runningCold();
        boolean failed = gpu.runningFailed();
        Dispatch d = gpu.complete();
        // The device's report reaches the scheduler as the batch ends, as the job's does a hop later.
        scheduler.observe(new BatchReport(d, start, now, cold, failed));
        dirty = true;
        busyMicros += inWindow(start, now);
        if (start >= warmup) {
            batches++;
            if (cold) coldStarts++;
        }
        int size = d.size();
        for (Request r : d.requests()) {
            if (failed) fate(r, ResultStatus.FAILED, now, 0);
            else fate(r, now <= r.deadlineMicros() ? ResultStatus.OK : ResultStatus.LATE, now, size);
        }
    }

    /** The part of [from, to) inside the measured window, so that utilisation cannot pass 100 %. */
    private long inWindow(long from, long to) {
        return Math.max(0, Math.min(to, sim.durationMicros()) - Math.max(from, warmup));
    }

    private void fate(Request r, ResultStatus status, long end, int batchSize) {
        if (r.arrivalMicros() >= warmup) results.add(status, r.arrivalMicros(), end, batchSize);
        listener.onFate(r, status, end, batchSize);
        source.ended(r, end);
    }
}
