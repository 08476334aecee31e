package io.kairos.flink;

import io.kairos.core.model.LatencyEstimator;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.plan.ServingGroups;
import io.kairos.core.plan.ServingPlan;
import io.kairos.core.request.Request;
import io.kairos.core.scheduling.BatchReport;
import io.kairos.core.scheduling.Dispatch;
import io.kairos.core.scheduling.Drop;
import io.kairos.core.scheduling.GroupScheduler;
import io.kairos.core.scheduling.ModelAction;
import io.kairos.core.scheduling.SchedulingPolicy;
import io.kairos.core.time.Clock;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.internal.AdmittedRequest;
import io.kairos.schema.internal.DeviceAction;
import io.kairos.schema.internal.DeviceReport;
import io.kairos.schema.internal.DispatchedBatch;
import io.kairos.schema.internal.GroupInput;
import io.kairos.schema.internal.PreemptionEvent;
import io.kairos.wire.AvroCodec;
import io.kairos.wire.request.RequestValidator;
import io.kairos.wire.result.Results;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.metrics.DescriptiveStatisticsHistogram;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.co.KeyedBroadcastProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The scheduler of each serving group, keyed by group: it queues requests, asks the group's policy
 * what to start on every arrival and timer, emits each batch to its device slot, and sheds
 * requests that can no longer meet their deadline (DROPPED, on a side output).
 *
 * <p>The queues live in a plain {@link GroupScheduler} per group rather than in keyed state: the
 * policy reads them many times per arrival, and heap objects cost nothing to read. They are
 * checkpointed as a union list of the pending requests; on restore each instance keeps the
 * requests of the groups it owns. Timers are keyed state and come back by themselves, and a
 * non-empty queue always has one pending (the next shedding check), so restored requests are
 * looked at again without a new arrival.
 *
 * <p>Preemption is on ({@link GroupScheduler#allowPreemption}), for the policies that use it
 * (Flex). A preempted batch is withdrawn with a {@code CANCEL} action to its device slot, and its
 * requests, queued again or dropped, carry its id in {@code preempted_from}. Whether the cancel
 * came in time is the device's to say, so their results, and their drops, go out on the
 * {@link #PREEMPTED} side output, to wait there for its verdict ({@link ResolvePreemptions}).
 *
 * <p>A placement decision is applied at once to the groups of this instance: models a device no
 * longer serves are unloaded from it, and those it newly serves are loaded before their first
 * batch, as {@code LOAD} and {@code UNLOAD} actions to the device slot (Clockwork's explicit
 * load and unload). A group created later loads its placement on its first request.
 *
 * <p>The loop is closed: each device reports what it did with every batch it ran (its real start
 * and end, a cold start, a failure), and the report comes back here keyed by the batch's group
 * ({@link GroupInput} carries a request or a report). The group's scheduler then re-bases the work
 * booked behind the batch on its real end and, unless learning is off, corrects the model's latency
 * profile ({@link GroupScheduler#observe}), as the simulator's scheduler does when a batch ends.
 *
 * <p>Metrics (group {@code kairos}): {@code batchesDispatched}, {@code requestsDispatched},
 * {@code requestsShed} (DROPPED by the scheduler), {@code requestsMoved} (queued requests a plan change
 * took to their model's new group), {@code batchesPreempted}, {@code modelsLoaded} and
 * {@code modelsUnloaded} (actions sent; which model on which device, and why, is in each action's
 * telemetry record), {@code schedulingErrors} (a request that could not be queued,
 * or a group whose policy threw: its pending requests FAILED with the reason), and the {@code batchSize} histogram of the batches it
 * dispatched (the last {@value #BATCH_SIZE_WINDOW} of them); {@code deviceReports},
 * {@code deviceReportsUnmatched} (of a batch this instance does not know: sent before a restart),
 * and the {@code deviceReportDelayMicros} histogram: from a batch's end on its device to its report
 * reaching the scheduler, the age of what the scheduler learns; the gauges {@code devicesHeld} and
 * {@code devicesReleased}: the job's devices that some group holds a model on, and those that hold
 * nothing (released by a placement, they cost nothing), as of the plan this instance last read.
 */
public final class GroupSchedulerFunction
        extends KeyedBroadcastProcessFunction<String, GroupInput, ControlDecision, DispatchedBatch>
        implements CheckpointedFunction, PreciseWakes.Taker {

    public static final OutputTag<InferenceResult> DROPPED = new OutputTag<>("dropped") {};
    /** Drops of requests that were preempted before: they are final only if the preempted batches gave no results. */
    public static final OutputTag<PreemptionEvent> PREEMPTED = new OutputTag<>("preempted-dropped") {};

    private final ModelCatalog catalog;
    private final ControlPlane control;
    private final Clock clock;
    private final LatencyEstimator.Settings learnLatency;

    private transient ServingGroups groups;
    private transient Map<String, Long> pendingTimerMs;
    // Groups asked outside their own key's callbacks (a moved queue, a request this instance's plan
    // routed elsewhere), and when each wants to be asked next, ms: see wakeOthers.
    private transient Map<String, Long> wakeElsewhereMs;
    /** In a timer's callback, the timer's ms: no timer this callback sets may be at or before it. */
    private transient long firingTimerMs = Long.MIN_VALUE;
    /** Wakes at the policy's µs, where the operator running this function gives them; null: Flink's timers only. */
    private transient PreciseWakes preciseWakes;
    private transient ListState<AdmittedRequest> checkpointedQueues;
    private transient List<AdmittedRequest> restored;
    private transient String batchIdPrefix;
    private transient long batchSeq;
    // The id of the last batch sent to each device slot, per group: the only batch a policy can
    // preempt there (DeviceView#preemptibleAt), identified by its Dispatch object.
    private transient Map<String, Map<Integer, Sent>> lastSent;
    private transient Counter batchesDispatched;
    private transient Counter requestsDispatched;
    private transient Counter requestsShed;
    private transient Counter requestsMoved;
    private transient Counter batchesPreempted;
    private transient Counter modelsLoaded;
    private transient Counter modelsUnloaded;
    private transient Counter schedulingErrors;
    private transient Histogram batchSize;
    // The batches sent and not yet reported, per group, by batch id, oldest first: what a device
    // report is matched with.
    private transient Map<String, LinkedHashMap<String, Dispatch>> unreported;
    private transient Counter deviceReports;
    private transient Counter deviceReportsUnmatched;
    private transient Histogram deviceReportDelay;
    // Released devices as of the plan version last seen; written by the task thread, read by the metrics reporter.
    private transient long devicesSeenAtVersion;
    private transient volatile int devicesHeld;
    private transient volatile int devicesReleased;

    static final int BATCH_SIZE_WINDOW = 10_000;
    /** A batch predicted to have ended this long ago with no report is forgotten (a report lost, or feedback off). */
    static final long UNREPORTED_HORIZON_MICROS = 60_000_000;

    public GroupSchedulerFunction(ModelCatalog catalog, ControlPlane control) {
        this(catalog, control, LatencyEstimator.Settings.DEFAULT, Clock.wall());
    }

    /** On the wall clock; {@code learnLatency}: how the groups correct their latency profiles from device reports, null: never. */
    public GroupSchedulerFunction(ModelCatalog catalog, ControlPlane control, LatencyEstimator.Settings learnLatency) {
        this(catalog, control, learnLatency, Clock.wall());
    }

    /**
     * @param learnLatency how the groups correct their latency profiles from device reports; null: never
     * @param clock        "now" for the scheduler; its timers are Flink processing time, so a test
     *                     that sets one sets the other to match
     */
    public GroupSchedulerFunction(ModelCatalog catalog, ControlPlane control, LatencyEstimator.Settings learnLatency, Clock clock) {
        this.catalog = catalog;
        this.control = control;
        this.learnLatency = learnLatency;
        this.clock = clock;
    }

    @Override
    public void open(OpenContext openContext) {
        AvroCodec.enableCustomCoders();
        var task = getRuntimeContext().getTaskInfo();
        groups = new ServingGroups(catalog, true, learnLatency);
        if (task.getNumberOfParallelSubtasks() > 1) {
            // Each subtask runs the groups whose keys it owns: a model rerouted to a group of
            // another subtask leaves its queue where it is (ServingGroups#runningOnly).
            int max = task.getMaxNumberOfParallelSubtasks(), parallelism = task.getNumberOfParallelSubtasks(), index = task.getIndexOfThisSubtask();
            groups.runningOnly(group -> KeyGroupRangeAssignment.assignKeyToParallelOperator(group, max, parallelism) == index);
        }
        pendingTimerMs = new HashMap<>();
        wakeElsewhereMs = new HashMap<>();
        lastSent = new HashMap<>();
        // Unique across restarts too, so that telemetry never confuses two batches.
        batchIdPrefix = task.getIndexOfThisSubtask() + "-" + Long.toString(System.currentTimeMillis(), 36) + "-";
        MetricGroup metrics = getRuntimeContext().getMetricGroup().addGroup("kairos");
        batchesDispatched = metrics.counter("batchesDispatched");
        requestsDispatched = metrics.counter("requestsDispatched");
        requestsShed = metrics.counter("requestsShed");
        requestsMoved = metrics.counter("requestsMoved");
        batchesPreempted = metrics.counter("batchesPreempted");
        modelsLoaded = metrics.counter("modelsLoaded");
        modelsUnloaded = metrics.counter("modelsUnloaded");
        schedulingErrors = metrics.counter("schedulingErrors");
        batchSize = metrics.histogram("batchSize", new DescriptiveStatisticsHistogram(BATCH_SIZE_WINDOW));
        unreported = new HashMap<>();
        deviceReports = metrics.counter("deviceReports");
        deviceReportsUnmatched = metrics.counter("deviceReportsUnmatched");
        deviceReportDelay = metrics.histogram("deviceReportDelayMicros", new DescriptiveStatisticsHistogram(BATCH_SIZE_WINDOW));
        devicesSeenAtVersion = -1;
        metrics.gauge("devicesHeld", (Gauge<Integer>) () -> devicesHeld);
        metrics.gauge("devicesReleased", (Gauge<Integer>) () -> devicesReleased);
    }

    @Override
    public void usePreciseWakes(PreciseWakes wakes) {
        preciseWakes = wakes;
    }

    @Override
    public void processElement(GroupInput input, ReadOnlyContext ctx, Collector<DispatchedBatch> out) throws Exception {
        if (input.getReport() != null) {
            onReport(input.getReport(), ctx, out);
            return;
        }
        AdmittedRequest request = input.getRequest();
        ServingPlan plan = control.plan(ctx.getBroadcastState(ControlPlane.DECISIONS));
        long now = clock.nowMicros();
        request.setEnqueuedAtMicros(now);
        // The plan this instance holds routes the request: admission may have taken a routing
        // decision that has not reached it yet, or not yet one it has taken (the request keyed by
        // the group its model left); the change of plan then moves the queue (ServingGroups#update).
        // A group that another subtask runs is not made here: the request stays in the group it
        // was keyed by, as a queue a plan change reroutes there does (ServingGroups#runningOnly).
        String routed = plan.groupOf(request.getRequest().getModel());
        if (!groups.runsHere(routed)) routed = request.getGroup();
        if (!routed.equals(request.getGroup())) request.setGroup(routed);
        Callback here = new Callback(ctx, null);
        GroupScheduler group = scheduler(routed, plan, now, out, here);
        try {
            group.admit(new Request(request.getRequest().getRequestId(), request.getRequest().getModel(), now, request.getDeadlineAtMicros(),
                    RequestValidator.windowStartMicros(request.getRequest()), request));
        } catch (RuntimeException e) { // this request fails, the group and the job go on
            schedulingErrors.inc();
            result(Results.failed(request, "serving group '" + routed + "' could not queue the request: " + e, now), request, here);
            return;
        }
        schedule(group, now, out, here);
        wakeOthers(now, out, here);
    }

    /** A result of the scheduler's own: final, or to be resolved if the request was preempted before. */
    private void result(InferenceResult result, AdmittedRequest request, Callback ctx) {
        List<String> preemptedFrom = request.getPreemptedFrom();
        if (preemptedFrom.isEmpty()) ctx.output(DROPPED, result);
        else ctx.output(PREEMPTED, ResolvePreemptions.result(result, preemptedFrom, null)); // a drop ends its pipeline: no input goes on
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<DispatchedBatch> out) throws Exception {
        String key = ctx.getCurrentKey();
        // There may be other timers of this group that have not fired yet; they find less to do.
        if (Long.valueOf(timestamp).equals(pendingTimerMs.get(key))) pendingTimerMs.remove(key);
        ServingPlan plan = control.plan(ctx.getBroadcastState(ControlPlane.DECISIONS));
        long now = clock.nowMicros();
        Callback here = new Callback(ctx, null);
        firingTimerMs = timestamp;
        try {
            schedule(scheduler(key, plan, now, out, here), now, out, here);
            wakeOthers(now, out, here);
        } finally {
            firingTimerMs = Long.MIN_VALUE;
        }
    }

    @Override
    public void processBroadcastElement(ControlDecision decision, Context ctx, Collector<DispatchedBatch> out) throws Exception {
        // The groups of this instance take the new plan now, so that the models a placement puts
        // on a device are loaded before their first request, and the queue of a model routed to
        // another group moves there at once; the other queues are looked at again on their next
        // arrival or timer.
        if (control.apply(ctx.getBroadcastState(ControlPlane.DECISIONS), decision)) {
            ServingPlan plan = control.plan(ctx.getBroadcastState(ControlPlane.DECISIONS));
            long now = clock.nowMicros();
            countDevices(plan);
            send(groups.update(plan), now, out);
            moved(now, out, new Callback(null, ctx));
        }
    }

    /** The group's scheduler, brought up to date with the plan if a decision came in since. */
    private GroupScheduler scheduler(String name, ServingPlan plan, long now, Collector<DispatchedBatch> out, Callback ctx) {
        countDevices(plan);
        ServingGroups.Lookup found = groups.scheduler(name, plan);
        send(found.actions(), now, out); // a placement decided before the group's first request is loaded now
        if (found.created() && restored != null) readmitRestored();
        moved(now, out, ctx);
        return found.scheduler();
    }

    /**
     * After a plan change moved the queued requests of a rerouted model to its new group: they
     * name that group from now on (a restore puts them back there), and the group is asked at once
     * what to start, since no arrival of its own may come soon.
     */
    private void moved(long now, Collector<DispatchedBatch> out, Callback ctx) {
        List<ServingGroups.Move> moves = groups.moved();
        if (moves.isEmpty()) return;
        java.util.Set<String> receivers = new java.util.LinkedHashSet<>();
        for (ServingGroups.Move m : moves) {
            for (Request r : m.requests()) r.<AdmittedRequest>payload().setGroup(m.to());
            requestsMoved.inc(m.requests().size());
            receivers.add(m.to());
        }
        for (String name : receivers) schedule(groups.get(name), now, out, ctx);
    }

    /**
     * Asks the groups scheduled outside their own key's callbacks whose wake-up is due, and keeps
     * a timer of this key for the earliest of the rest: a group's own timers are keyed state that
     * only a callback of its key (or none, for a control decision) can set.
     */
    private void wakeOthers(long now, Collector<DispatchedBatch> out, Callback ctx) {
        if (wakeElsewhereMs.isEmpty()) return;
        long nowMs = now / 1000; // due: its timer's ms has come, as Flink would fire it (ProcessingTimers)
        for (String name : List.copyOf(wakeElsewhereMs.keySet())) {
            Long at = wakeElsewhereMs.get(name);
            if (at == null || at > nowMs) continue;
            wakeElsewhereMs.remove(name);
            GroupScheduler g = groups.get(name);
            if (g != null) schedule(g, now, out, ctx);
        }
        long earliest = Long.MAX_VALUE;
        for (long at : wakeElsewhereMs.values()) earliest = Math.min(earliest, at);
        if (earliest != Long.MAX_VALUE) ctx.keyed().timerService().registerProcessingTimeTimer(ProcessingTimers.after(earliest, firingTimerMs));
    }

    private void countDevices(ServingPlan plan) {
        if (plan.version() == devicesSeenAtVersion) return;
        devicesSeenAtVersion = plan.version();
        int released = plan.releasedDevices().size();
        devicesReleased = released;
        devicesHeld = plan.deviceCount() - released;
    }

    /** Sends the devices the loads and unloads that the plan's placement, or the group's load planner, asks for. */
    private void send(List<ServingGroups.DeviceAction> actions, long now, Collector<DispatchedBatch> out) {
        for (ServingGroups.DeviceAction action : actions) {
            ModelAction a = action.action();
            (a.load() ? modelsLoaded : modelsUnloaded).inc();
            out.collect(DispatchedBatch.newBuilder()
                    .setBatchId(batchIdPrefix + (batchSeq++))
                    .setGroup(action.group())
                    .setModel(a.model())
                    .setDevice(a.device())
                    .setDispatchedAtMicros(now)
                    .setPredictedStartMicros(now)
                    .setPredictedLatencyMicros(0)
                    .setRequests(List.of())
                    .setAction(a.load() ? DeviceAction.LOAD : DeviceAction.UNLOAD)
                    .setCancelledRequestIds(List.of())
                    .setArrivalRatePerS(null)
                    .setWhy(a.why())
                    .build());
        }
    }

    /**
     * Asks the group's policy what to start now. Its next wake-up is a timer of its key when this
     * is a callback of its key; otherwise (a control decision, another group's callback) it waits
     * in {@code wakeElsewhereMs} for {@link #wakeOthers}.
     */
    private void schedule(GroupScheduler group, long now, Collector<DispatchedBatch> out, Callback ctx) {
        GroupScheduler.Outcome outcome;
        try {
            outcome = group.schedule(now);
        } catch (RuntimeException e) {
            // The policy failed on this group's queues: their requests fail, with the reason, rather
            // than the job (which would fail again on the same requests after its restart).
            schedulingErrors.inc();
            String reason = "serving group '" + group.group() + "' failed to schedule (policy " + group.policy().name() + "): " + e;
            for (Request r : group.drainPending()) result(Results.failed(r.payload(), reason, now), r.payload(), ctx);
            return;
        }
        Map<Integer, Sent> sent = lastSent.computeIfAbsent(group.group(), k -> new HashMap<>());
        // Cancels first: on its device slot, a cancel must come before the batch that replaces the preempted one.
        for (Dispatch d : outcome.preempted()) {
            Sent s = sent.get(d.device());
            if (s == null || s.dispatch() != d) {
                // A policy's mistake: nothing of it reached the device, so there is nothing to cancel;
                // its requests are queued again or dropped, and the job goes on.
                schedulingErrors.inc();
                continue;
            }
            sent.remove(d.device());
            unreported(group.group()).remove(s.batchId());
            batchesPreempted.inc();
            out.collect(cancel(group.group(), d, s.batchId(), now));
        }
        // The load planner's loads and unloads before the batches: a batch booked behind a load on
        // its device must reach the device after it, as a placement's do.
        if (!outcome.actions().isEmpty()) {
            List<ServingGroups.DeviceAction> planned = new ArrayList<>(outcome.actions().size());
            for (ModelAction a : outcome.actions()) planned.add(new ServingGroups.DeviceAction(group.group(), a));
            send(planned, now, out);
        }
        for (Drop drop : outcome.drops()) {
            requestsShed.inc();
            AdmittedRequest request = drop.request().payload();
            result(Results.dropped(request, drop.reason(), now), request, ctx);
        }
        for (Dispatch d : outcome.dispatches()) {
            batchesDispatched.inc();
            requestsDispatched.inc(d.size());
            batchSize.update(d.size());
            DispatchedBatch batch = toBatch(group.group(), d, now, group.arrivalRatePerSecond(d.model(), now));
            sent.put(d.device(), new Sent(d, batch.getBatchId()));
            remember(group.group(), batch.getBatchId(), d, now);
            out.collect(batch);
        }
        boolean ownKey = ctx.keyed() != null && group.group().equals(ctx.keyed().getCurrentKey());
        if (ownKey) wakeElsewhereMs.remove(group.group());
        if (outcome.nextWakeMicros() != SchedulingPolicy.NO_WAKE) {
            // Inside a timer's callback, after that timer's ms (ProcessingTimers).
            long wakeMs = ProcessingTimers.millisFor(outcome.nextWakeMicros(), firingTimerMs);
            if (!ownKey) {
                wakeElsewhereMs.merge(group.group(), wakeMs, Math::min);
                return;
            }
            if (preciseWakes != null) preciseWakes.wakeAt(group.group(), outcome.nextWakeMicros(), now);
            Long pending = pendingTimerMs.get(group.group());
            if (pending == null || wakeMs < pending) {
                ctx.keyed().timerService().registerProcessingTimeTimer(wakeMs);
                pendingTimerMs.put(group.group(), wakeMs);
            }
        }
    }

    private record Sent(Dispatch dispatch, String batchId) {}

    /** The callback a group is scheduled in: a key's (request, report, timer), or a control decision's, which has no key. */
    private record Callback(ReadOnlyContext keyed, Context decision) {
        <X> void output(OutputTag<X> tag, X value) {
            if (keyed != null) keyed.output(tag, value);
            else decision.output(tag, value);
        }
    }

    // ---- device reports: the loop back from the devices ----

    /**
     * A device's report of a batch this group sent: the scheduler re-bases its view of the device
     * and learns the batch's latency, then looks at its queues again, since the device may be
     * free earlier (or later) than it thought.
     */
    private void onReport(DeviceReport report, ReadOnlyContext ctx, Collector<DispatchedBatch> out) throws Exception {
        long now = clock.nowMicros();
        deviceReports.inc();
        deviceReportDelay.update(Math.max(0, now - report.getExecEndMicros()));
        if (report.getLoadFailed() != null) {
            // A load the device could not carry out: the group drops that copy and schedules again
            // without it (the copies that exist serve; the planner may load one elsewhere).
            GroupScheduler group = groups.get(report.getGroup());
            if (group == null) return;
            group.loadFailed(report.getDevice(), report.getModel(), now);
            Callback here = new Callback(ctx, null);
            schedule(scheduler(report.getGroup(), control.plan(ctx.getBroadcastState(ControlPlane.DECISIONS)), now, out, here), now, out, here);
            wakeOthers(now, out, here);
            return;
        }
        Dispatch batch = unreported(report.getGroup()).remove(report.getBatchId());
        GroupScheduler group = groups.get(report.getGroup());
        if (batch == null || group == null) {
            deviceReportsUnmatched.inc();
            return;
        }
        try {
            group.observe(new BatchReport(batch, report.getExecStartMicros(), report.getExecEndMicros(), report.getColdStart(), report.getFailed()));
        } catch (RuntimeException e) { // a report that makes no sense teaches nothing; the group goes on predicting
            deviceReportsUnmatched.inc();
            return;
        }
        ServingPlan plan = control.plan(ctx.getBroadcastState(ControlPlane.DECISIONS));
        Callback here = new Callback(ctx, null);
        schedule(scheduler(report.getGroup(), plan, now, out, here), now, out, here);
        wakeOthers(now, out, here);
    }

    private LinkedHashMap<String, Dispatch> unreported(String group) {
        return unreported.computeIfAbsent(group, g -> new LinkedHashMap<>());
    }

    /** Keeps a sent batch until its report comes; forgets those whose report is long overdue. */
    private void remember(String group, String batchId, Dispatch d, long now) {
        LinkedHashMap<String, Dispatch> waiting = unreported(group);
        for (Iterator<Dispatch> it = waiting.values().iterator(); it.hasNext(); ) {
            if (it.next().predictedEndMicros() >= now - UNREPORTED_HORIZON_MICROS) break;
            it.remove();
        }
        waiting.put(batchId, d);
    }

    /**
     * The cancel of a preempted batch; its requests, back in their queue or dropped, remember it
     * from now on. (The batch itself went out over the network, serialized, when it was sent, so
     * changing the requests now does not change what the device received.)
     */
    private DispatchedBatch cancel(String group, Dispatch d, String batchId, long now) {
        List<String> ids = new ArrayList<>(d.size());
        for (Request r : d.requests()) {
            AdmittedRequest payload = r.payload();
            List<String> from = new ArrayList<>(payload.getPreemptedFrom());
            from.add(batchId);
            payload.setPreemptedFrom(from);
            ids.add(r.id());
        }
        return batch(batchId, group, d, now).setRequests(List.of()).setAction(DeviceAction.CANCEL).setCancelledRequestIds(ids).build();
    }

    private DispatchedBatch toBatch(String group, Dispatch d, long now, double arrivalRatePerSecond) {
        List<AdmittedRequest> requests = new ArrayList<>(d.size());
        for (Request r : d.requests()) requests.add(r.payload());
        return batch(batchIdPrefix + (batchSeq++), group, d, now).setRequests(requests).setArrivalRatePerS(arrivalRatePerSecond).build();
    }

    private static DispatchedBatch.Builder batch(String batchId, String group, Dispatch d, long now) {
        return DispatchedBatch.newBuilder()
                .setBatchId(batchId)
                .setGroup(group)
                .setModel(d.model())
                .setDevice(d.device())
                .setDispatchedAtMicros(now)
                .setPredictedStartMicros(d.predictedStartMicros())
                .setPredictedLatencyMicros(d.predictedLatencyMicros())
                // Every field set: a builder deep-copies the schema's default of each field left unset, on every batch.
                .setAction(DeviceAction.RUN)
                .setCancelledRequestIds(List.of())
                .setArrivalRatePerS(null);
    }

    // ---- checkpointing of the queues ----

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
        List<AdmittedRequest> pending = new ArrayList<>();
        for (GroupScheduler g : groups.all()) {
            for (Request r : g.pendingRequests()) pending.add(r.payload());
        }
        if (restored != null) pending.addAll(restored); // groups that have not been seen since the restore
        checkpointedQueues.update(pending);
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
        checkpointedQueues = context.getOperatorStateStore().getUnionListState(
                new ListStateDescriptor<>("kairos-queued-requests", new AvroTypeInfo<>(AdmittedRequest.class)));
        if (!context.isRestored()) return;
        var task = getRuntimeContext().getTaskInfo();
        restored = new ArrayList<>();
        for (AdmittedRequest r : checkpointedQueues.get()) {
            int owner = KeyGroupRangeAssignment.assignKeyToParallelOperator(
                    r.getGroup(), task.getMaxNumberOfParallelSubtasks(), task.getNumberOfParallelSubtasks());
            if (owner == task.getIndexOfThisSubtask()) restored.add(r);
        }
    }

    /** Puts restored requests back into the queues of the groups that now exist. */
    private void readmitRestored() {
        List<AdmittedRequest> still = new ArrayList<>();
        for (AdmittedRequest r : restored) {
            GroupScheduler g = groups.get(r.getGroup());
            if (g == null) {
                still.add(r);
            } else {
                g.admit(new Request(r.getRequest().getRequestId(), r.getRequest().getModel(), r.getEnqueuedAtMicros(), r.getDeadlineAtMicros(),
                        RequestValidator.windowStartMicros(r.getRequest()), r));
            }
        }
        restored = still.isEmpty() ? null : still;
    }

    /** For tests: pending requests per group. */
    int pendingCount(String group) {
        GroupScheduler g = groups.get(group);
        return g == null ? 0 : g.pendingCount();
    }
}
