package io.kairos.sim;

import io.kairos.core.metrics.ResultSummary;
import io.kairos.core.model.ModelSpec;
import io.kairos.core.plan.ServingGroups;
import io.kairos.core.plan.ServingPlan;
import io.kairos.core.request.Request;
import io.kairos.core.result.Completion;
import io.kairos.core.result.ResultStatus;
import io.kairos.core.scheduling.BatchReport;
import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.scheduling.Dispatch;
import io.kairos.core.scheduling.Drop;
import io.kairos.core.scheduling.GroupScheduler;
import io.kairos.core.scheduling.ModelAction;
import io.kairos.core.scheduling.SchedulingPolicy;
import io.kairos.schema.DecisionOutcome;
import io.kairos.schema.DecisionStatus;
import io.kairos.wire.plan.DecisionLedger;
import io.kairos.workload.Arrival;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * One run of a {@link Simulation}: the event loop. The next event is the earliest of the next
 * arrival, the end of a running batch, the next control decision and the next policy invocation
 * of a group; there are few enough devices and groups that finding it is a scan, and no event
 * objects are allocated.
 *
 * <p>A request goes to the serving group the plan routes its model to; a group is created on its
 * first request, as in the job ({@link ServingGroups}). Events at the same instant are taken
 * together: batches that end, then decisions, then arrivals, then one policy invocation per group
 * that has something new, which sees them all, as a scheduler woken once would. A decision that
 * changes the plan brings every group up to date at once and has each asked again; the job does
 * the same on the group's next arrival or timer.
 */
final class SimulationRun {
    private final Simulation sim;
    private final FateListener listener;
    private final ServingPlan plan;
    private final ServingGroups groups;
    private final DecisionLedger ledger;
    private final List<Group> active = new ArrayList<>();
    private final Map<String, Group> byName = new HashMap<>();
    // The group whose scheduler has each device now; null for a device in no group yet.
    private final Group[] owner;
    private final DiscreteEventDevice[] gpus;
    private final ArrivalSource source;
    private final Invocation invocation;
    private final long warmup;
    private final List<TimedDecision> decisions;
    private int nextDecision;
    private final Controller controller;
    private final Controller.Load load = new Controller.Load() {
        @Override
        public int queued(String group) {
            Group g = byName.get(group);
            return g == null ? 0 : g.scheduler.pendingCount();
        }

        @Override
        public int running(String group) {
            int n = 0;
            for (int slot = 0; slot < gpus.length; slot++) {
                if (owner[slot] != null && owner[slot].scheduler.group().equals(group) && gpus[slot].running() != null) n += gpus[slot].running().size();
            }
            return n;
        }

        @Override
        public int devices(String group) {
            return plan.devicesOf(group).size();
        }
    };

    private long now;
    private long sequence;

    /** A serving group of the run, and when its policy is to be asked next. */
    private static final class Group {
        final GroupScheduler scheduler;
        long wakeAt = SchedulingPolicy.NO_WAKE;
        boolean dirty;

        Group(GroupScheduler scheduler) {
            this.scheduler = scheduler;
        }
    }

    // What the report counts: requests arriving at or after the warm-up, batches starting then.
    private final ResultSummary results = new ResultSummary();
    // Per model, found by one lookup per batch or drop: thousands of models (the Azure workload)
    // make every lookup by name a few cache misses.
    private final Map<String, ModelTally> tallies = new HashMap<>();
    private long simulated;
    private long batches;
    private long busyMicros;
    private long coldStarts;
    private long preemptions;

    /** Where a model's results are counted, and its catalog entry, for the energy of its batches. */
    private static final class ModelTally {
        final ResultSummary.Batch counted;
        final ModelSpec spec;

        ModelTally(ResultSummary.Batch counted, ModelSpec spec) {
            this.counted = counted;
            this.spec = spec;
        }
    }

    SimulationRun(Simulation sim, FateListener listener) {
        this.sim = sim;
        this.listener = listener;
        this.invocation = sim.invocation();
        this.warmup = sim.warmupMicros();
        SplittableRandom root = new SplittableRandom(sim.seed());
        this.source = sim.load().start(root.split().nextLong(), sim.durationMicros());
        this.plan = sim.newPlan();
        this.ledger = new DecisionLedger(plan);
        this.groups = new ServingGroups(sim.catalog(), sim.preemption(), sim.learnLatency(), sim.policies());
        this.decisions = sim.decisions();
        this.controller = sim.newController();
        gpus = new DiscreteEventDevice[sim.deviceCount()];
        owner = new Group[gpus.length];
        for (int slot = 0; slot < gpus.length; slot++) {
            // Until a group takes the device, its reports go to a picture no scheduler reads. A
            // group's view replays the device's model cache on the same budget: it books the cold
            // starts the device spends.
            SplittableRandom random = root.split();
            gpus[slot] = new DiscreteEventDevice(new DeviceView(slot, null, sim.deviceMemoryBytes(), sim.hardwareTypeOf(slot), sim.deviceEviction()), sim.deviceTime(slot, random),
                    sim.dispatchDelay(), random);
        }
    }

    SimulationReport run() {
        long started = System.nanoTime();
        while (true) {
            long nextArrival = source.peekMicros();
            int gpu = earliestEvent();
            long nextEnd = gpu < 0 ? Long.MAX_VALUE : gpus[gpu].nextEvent();
            long nextDecisionAt = nextDecision < decisions.size() ? decisions.get(nextDecision).atMicros() : Long.MAX_VALUE;
            long nextControl = controller == null ? Long.MAX_VALUE : controller.nextMicros();
            if (nextControl > sim.durationMicros()) nextControl = Long.MAX_VALUE;
            nextDecisionAt = Math.min(nextDecisionAt, nextControl);
            long nextInvocation = Long.MAX_VALUE;
            for (Group g : active) {
                long at = g.dirty ? invocation.nextAtOrAfter(now)
                        : g.wakeAt == SchedulingPolicy.NO_WAKE ? Long.MAX_VALUE : invocation.nextAtOrAfter(Math.max(g.wakeAt, now));
                nextInvocation = Math.min(nextInvocation, at);
            }
            long t = Math.min(Math.min(nextArrival, nextDecisionAt), Math.min(nextEnd, nextInvocation));
            if (t == Long.MAX_VALUE) break;
            now = t;
            while (gpu >= 0 && gpus[gpu].nextEvent() == now) {
                if (gpus[gpu].busy()) complete(gpus[gpu]);
                else gpus[gpu].startArrived(now);
                gpu = earliestEvent();
            }
            while (nextDecision < decisions.size() && decisions.get(nextDecision).atMicros() == now) decide(decisions.get(nextDecision++));
            if (nextControl == now) {
                for (io.kairos.schema.ControlDecision d : controller.act(now, load)) decide(new TimedDecision(now, d));
                if (controller.nextMicros() <= now) throw new IllegalStateException("the controller asks to act again at " + controller.nextMicros() + " us, not after " + now + " us");
            }
            while (source.peekMicros() == now) arrive(source.next());
            if (invocation.nextAtOrAfter(now) == now) {
                for (Group g : active) {
                    if (g.dirty || now >= g.wakeAt) invoke(g);
                }
            }
        }
        // A policy that waits for a batch to fill may wait forever once arrivals stop.
        for (Group g : active) {
            for (Request r : g.scheduler.pendingRequests()) fate(r, ResultStatus.DROPPED, now, 0, Double.NaN);
        }
        return new SimulationReport(sim.policyName(), gpus.length, sim.costPerHour(), sim.durationMicros() - warmup, results.overall(), results,
                batches, busyMicros, coldStarts, preemptions, simulated, System.nanoTime() - started);
    }

    private int earliestEvent() {
        int best = -1;
        long bestEnd = DiscreteEventDevice.IDLE;
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
        Group g = group(plan.groupOf(a.model()));
        long windowStart = a.hasWindow() ? a.offsetMicros() + Math.round(a.windowStartMs() * 1000) : Request.NO_WINDOW;
        g.scheduler.admit(new Request(Long.toString(sequence++), a.model(), a.offsetMicros(), deadline, windowStart, a));
        g.dirty = true;
    }

    /** The group of that name, created on its first request with the plan's policy and devices. */
    private Group group(String name) {
        Group g = byName.get(name);
        if (g != null) return g;
        ServingGroups.Lookup found = groups.scheduler(name, plan);
        carryOut(found.actions());
        g = new Group(found.scheduler());
        byName.put(name, g);
        active.add(g);
        bindDevices();
        return g;
    }

    /**
     * Decides a decision as the job does (the same ledger: keys, versions per writer and key, the
     * plan's own checks), and brings the groups up to date when it applied. The loads and unloads
     * a placement asks for are the devices' to carry out, in turn with their batches.
     */
    private void decide(TimedDecision d) {
        DecisionOutcome outcome = ledger.decide(d.decision(), now);
        listener.onDecision(d, outcome);
        if (outcome.getStatus() != DecisionStatus.APPLIED) return;
        carryOut(groups.update(plan));
        // A model routed elsewhere took its queued requests to its new group, made now if no
        // request had reached it yet: the run walks it from now on.
        for (ServingGroups.Move m : groups.moved()) group(m.to());
        bindDevices();
        for (Group g : active) g.dirty = true;
    }

    /**
     * The loads and unloads a placement asks of the devices, sent to them as the scheduler's
     * {@code LOAD} and {@code UNLOAD} are: each device carries them out in turn with its batches, a
     * load taking the device for its load time, as the scheduler's view booked it.
     */
    private void carryOut(java.util.List<ServingGroups.DeviceAction> actions) {
        for (ServingGroups.DeviceAction a : actions) gpus[a.action().device()].submit(a.action(), now);
    }

    /**
     * Points each simulated device at the picture its group's scheduler has of it, so that what
     * it reports reaches that scheduler. A device is in one group only: the simulated device runs
     * what one scheduler books on it.
     */
    private void bindDevices() {
        Group[] next = new Group[gpus.length];
        for (Group g : active) {
            for (DeviceView view : g.scheduler.devices()) {
                Group other = next[view.slot()];
                if (other != null) {
                    throw new IllegalStateException("device " + view.slot() + " is in serving groups '" + other.scheduler.group() + "' and '"
                            + g.scheduler.group() + "' at " + now + " us: in the simulator a device serves one group; place each group's devices");
                }
                next[view.slot()] = g;
                gpus[view.slot()].rebind(view);
            }
        }
        System.arraycopy(next, 0, owner, 0, owner.length);
    }

    private void invoke(Group g) {
        GroupScheduler.Outcome outcome = g.scheduler.schedule(now);
        g.dirty = false;
        // Preempted batches leave their device before the batches that replace them arrive there.
        for (Dispatch d : outcome.preempted()) {
            long spent = gpus[d.device()].preempt(d, now);
            busyMicros += inWindow(now - spent, now);
            if (now >= warmup) preemptions++;
        }
        for (Drop d : outcome.drops()) fate(d.request(), ResultStatus.DROPPED, now, 0, Double.NaN);
        // The load planner's loads before the batches: one booked behind a load reaches its device after it.
        for (ModelAction a : outcome.actions()) gpus[a.device()].submit(a, now);
        for (Dispatch d : outcome.dispatches()) gpus[d.device()].submit(d, now);
        g.wakeAt = Math.max(outcome.nextWakeMicros(), now + 1);
    }

    private void complete(DiscreteEventDevice gpu) {
        long start = gpu.runningStart();
        boolean cold = gpu.runningCold();
        boolean failed = gpu.runningFailed();
        String loaded = gpu.loading();
        int slot = gpu.view().slot();
        Dispatch d = gpu.complete();
        if (d == null) {
            // A load the scheduler decided: device time, not counted as busy with batches, and no
            // batch to report (its view booked it).
            listener.onLoad(slot, loaded, start, now);
            return;
        }
        // The device's report reaches the scheduler of its group as the batch ends, as the job's
        // does a hop later.
        Group g = owner[d.device()];
        if (g != null) {
            g.scheduler.observe(new BatchReport(d, start, now, cold, failed));
            g.dirty = true;
        }
        busyMicros += inWindow(start, now);
        if (start >= warmup) {
            batches++;
            if (cold) coldStarts++;
        }
        int size = d.size();
        // Each request carries an equal share of its batch's energy, zeta of the size it ran as.
        ModelTally tally = tally(d.model());
        double share = tally.spec.batchEnergyMillijoules(size).orElse(Double.NaN) / size;
        // Requests whose pre- and post-processing ran where they came from end that much later.
        long end = now + d.afterMicros();
        for (Request r : d.requests()) {
            if (failed) fate(r, ResultStatus.FAILED, now, 0, Double.NaN, tally.counted);
            else fate(r, Completion.status(end, r.windowStartMicros(), r.deadlineMicros()), end, size, share, tally.counted);
        }
    }

    private ModelTally tally(String model) {
        ModelTally t = tallies.get(model);
        if (t == null) {
            t = new ModelTally(results.batchOf(model), sim.catalog().get(model));
            tallies.put(model, t);
        }
        return t;
    }

    /** The part of [from, to) inside the measured window, so that utilisation cannot pass 100 %. */
    private long inWindow(long from, long to) {
        return Math.max(0, Math.min(to, sim.durationMicros()) - Math.max(from, warmup));
    }

    private void fate(Request r, ResultStatus status, long end, int batchSize, double energyMj) {
        fate(r, status, end, batchSize, energyMj, null);
    }

    /** {@code counted}: where the results of the request's model are counted, or null to look it up. */
    private void fate(Request r, ResultStatus status, long end, int batchSize, double energyMj, ResultSummary.Batch counted) {
        if (r.arrivalMicros() >= warmup) {
            (counted != null ? counted : tally(r.model()).counted).add(status, r.arrivalMicros(), end, batchSize, energyMj);
        }
        listener.onFate(r, status, end, batchSize);
        source.ended(r, end);
    }
}
