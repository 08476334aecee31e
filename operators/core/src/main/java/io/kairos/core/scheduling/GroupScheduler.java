package io.kairos.core.scheduling;

import io.kairos.core.api.Internal;
import io.kairos.core.model.LatencyEstimator;
import io.kairos.core.model.LatencyProfile;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.model.ModelSpec;
import io.kairos.core.request.Request;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One serving group's loop around its policy: admit a request (its model's queue, or held for its
 * window), and at each step release the held requests whose time has come, plan loads, shed what
 * can no longer be served, let the policy decide on the group's state ({@link GroupState}, what a
 * policy sees), and hand out the step's outcome. Each of these is a part of its own
 * ({@link Admission}, {@link LoadPlanner}, {@link Shedding}, {@link StepOutcome}, over the
 * {@link PendingBook} and the {@link DeviceChoice}). Engine-free: the Flink scheduler operator
 * calls it on every arrival and timer, the simulator on every event.
 *
 * <p>Preemption (a policy aborting a batch it started, see {@link #preempt}) is off unless the
 * engine turns it on with {@link #allowPreemption}: only an engine that can abort a batch on its
 * device, and map a preempted {@link Dispatch} back to that execution, may. Both do: the simulator
 * aborts the execution, the Flink job sends its device a cancel and resolves the race between the
 * cancel and the batch's end downstream.
 */
@Internal
public final class GroupScheduler extends GroupState {

    /** Parameter: shed requests that can no longer meet their deadline (default true). */
    public static final String SHED = ConfiguredPolicy.SHED;
    /** Parameter: shed early under overload, to keep batches full (default true), see {@link Shedding#forFullBatches}. */
    public static final String SHED_EARLY = ConfiguredPolicy.SHED_EARLY;
    /** Parameter: the most requests the group holds (default {@value ConfiguredPolicy#DEFAULT_MAX_PENDING}), see {@link #admit}. */
    public static final String MAX_PENDING = ConfiguredPolicy.MAX_PENDING;
    /** The time constant of the arrival-rate estimates ({@link #arrivalRatePerSecond}): 10 s. */
    public static final long ARRIVAL_RATE_WINDOW_MICROS = 10_000_000;
    /**
     * The time constant of the short arrival-rate estimates the load planner adds copies by: 1 s,
     * so that a model whose rate steps up gets its copies within about a second, not ten.
     */
    public static final long FAST_RATE_WINDOW_MICROS = 1_000_000;

    // How requests are taken in: queued, held for their window, or turned away when the group is full.
    private final Admission admission;
    // When a model gets another copy, and which idle copy makes room for it.
    private final LoadPlanner loads;
    private SchedulingPolicy policy;
    private boolean shedEarly;

    /** @throws IllegalArgumentException for a bad parameter, see {@link ConfiguredPolicy#of} */
    public GroupScheduler(String group, ModelCatalog catalog, List<DeviceView> devices, SchedulingPolicy policy, PolicyParams params) {
        this(group, catalog, devices, ConfiguredPolicy.of(group, policy, params));
    }

    public GroupScheduler(String group, ModelCatalog catalog, List<DeviceView> devices, ConfiguredPolicy policy) {
        super(group, catalog);
        this.admission = new Admission(group, book, profiles);
        this.loads = new LoadPlanner(catalog, choice, book);
        this.devices = List.copyOf(devices);
        profiles.setDevices(this.devices);
        this.uniform = holdEveryModel(this.devices);
        choice.setDevices(this.devices);
        setPolicy(policy);
    }

    public String group() {
        return group;
    }

    public SchedulingPolicy policy() {
        return policy;
    }

    /** Whether requests that can no longer meet their deadline are shed (parameter {@code shed}). */
    public boolean shedding() {
        return shedding;
    }

    /** Whether requests are shed early under overload to keep batches full (parameter {@code shed_early}, and only when shedding). */
    public boolean sheddingEarly() {
        return shedding && shedEarly;
    }

    /** The most requests the group holds (parameter {@code max_pending}). */
    public int maxPending() {
        return admission.maxPending();
    }

    /**
     * The policy and how to shed, as {@link ConfiguredPolicy#of} read them; the queues stay (a
     * lower {@code max_pending} than what is pending takes effect as requests arrive and leave).
     */
    public void setPolicy(ConfiguredPolicy configured) {
        this.policy = configured.policy();
        this.shedding = configured.shed();
        this.shedEarly = configured.shedEarly();
        admission.configure(configured.maxPending(), configured.windowMarginMicros(), configured.windowHold());
        choice.setPlacement(configured.placement());
    }

    /**
     * Replaces the group's devices; a device that stays keeps the work already booked on it and
     * the models it holds in memory. Returns the loads and unloads the engine sends the devices
     * for the change: devices placed with a model list unload what they no longer serve and load
     * what they newly serve, in name order, as far as it fits without evicting, each load booked
     * on the device's timeline after its work ({@link DeviceView#bookLoad}); devices that serve
     * every model load what the load planner decides, and a model's first batch loads it.
     */
    public List<ModelAction> setDevices(List<DeviceView> newDevices) {
        Map<Integer, DeviceView> old = new HashMap<>();
        for (DeviceView d : devices) old.put(d.slot(), d);
        List<ModelAction> actions = new ArrayList<>();
        for (DeviceView d : newDevices) {
            DeviceView before = old.get(d.slot());
            if (before != null) d.inherit(before);
            loads.placed(d, actions);
        }
        this.devices = List.copyOf(newDevices);
        choice.setDevices(this.devices);
        loads.placementChanged();
        boolean retyped = profiles.setDevices(this.devices);
        this.uniform = holdEveryModel(this.devices);
        if (retyped) profilesOnNewTypes();
        return actions;
    }

    /** The group's types changed: every queue's profile is its model's on the new types, learned apart per type. */
    private void profilesOnNewTypes() {
        for (RequestQueue q : book.queues()) {
            LatencyProfile updated = profiles.retype(q.number(), book.spec(q));
            if (updated == q.profile()) continue;
            reprofile(q, updated);
        }
    }

    /** The queue's profile changed: its place in the order depends on it, so it leaves before the change and comes back after. */
    private void reprofile(RequestQueue q, LatencyProfile updated) {
        book.reprofile(q, updated);
        batchExtra = Math.max(batchExtra, updated.latencyAt(updated.batchSizeCount() - 1) - updated.latencyAt(0));
    }

    /**
     * Whether the latency profiles correct themselves from the batches the devices report (default:
     * yes, with {@link LatencyEstimator.Settings#DEFAULT}); {@code null}: the catalog's profiles
     * stay. Set it before the first request.
     */
    public void learnLatency(LatencyEstimator.Settings settings) {
        if (book.models() > 0) throw new IllegalStateException("serving group '" + group + "': set latency learning before the first request");
        profiles.learn(settings);
    }

    /**
     * A device's report of a batch dispatched here: its device's view re-bases the work booked
     * behind it on its real end, and, unless it was a cold start or failed, its latency corrects
     * the model's profile. The engine calls this when the report reaches the scheduler: the
     * simulator when the batch ends, the job when the report comes back from the device.
     */
    public void observe(BatchReport report) {
        Dispatch batch = report.batch();
        DeviceView on = null;
        for (DeviceView d : devices) {
            if (d.slot() == batch.device()) {
                d.observe(batch, report.startMicros(), report.endMicros());
                on = d;
            }
        }
        RequestQueue q = book.queue(batch.model());
        if (q != null) choice.observe(book.spec(q), report);
        if (report.coldStart() || report.failed() || q == null) return;
        LatencyProfile updated = profiles.learned(q.number(), on, batch, report);
        if (updated != null) reprofile(q, updated);
    }

    /** Lets the policy preempt batches (default false); for engines that can abort a running batch. */
    public void allowPreemption(boolean allowed) {
        this.preemption = allowed;
    }

    /**
     * Queues a request, or holds it until its window's release, or turns it away when the group
     * holds {@code max_pending} requests: the request of least laxity goes, this one or the most
     * urgent head, with a reason starting "queue full" ({@link Admission#admit}), handed out by the
     * next {@link #schedule}.
     */
    public void admit(Request request) {
        RequestQueue q = queueOf(request.model());
        book.arrived(q, request.arrivalMicros());
        LatencyProfile forgotten = profiles.forgetIfStale(q.number(), request.arrivalMicros(), request.deadlineMicros() - request.arrivalMicros());
        if (forgotten != null) reprofile(q, forgotten);
        admission.admit(q, request);
    }

    /** The requests held for their window, in no particular order. */
    public int heldCount() {
        return admission.held().size();
    }

    private RequestQueue queueOf(String model) {
        RequestQueue q = book.queue(model);
        if (q == null) {
            ModelSpec spec = catalog.get(model);
            q = book.add(spec, profiles.add(spec));
            choice.queued(spec);
            LatencyProfile p = q.profile();
            batchExtra = Math.max(batchExtra, p.latencyAt(p.batchSizeCount() - 1) - p.latencyAt(0));
        }
        return q;
    }

    /**
     * The estimated arrival rate of {@code model} into this group at {@code nowMicros}, requests
     * per second (every request admitted counts, whatever becomes of it); 0 for a model not seen.
     * What a planner re-solves a batching table for ({@code kairos plan smdp}).
     */
    public double arrivalRatePerSecond(String model, long nowMicros) {
        RequestQueue q = book.queue(model);
        return q == null ? 0 : book.rate(q).perSecond(nowMicros);
    }

    /** The requests the group holds: queued, and held for their window. */
    public int pendingCount() {
        return book.pending() + admission.held().size();
    }

    /** Every pending request, held ones included, e.g. to checkpoint them; the queues are left as they are. */
    public List<Request> pendingRequests() {
        List<Request> all = new ArrayList<>(pendingCount());
        book.addPendingTo(all);
        admission.held().addTo(all);
        return all;
    }

    /**
     * Removes and returns every pending request: what a scheduler whose policy failed gives back,
     * for each request to get a result rather than to wait forever.
     */
    public List<Request> drainPending() {
        List<Request> all = new ArrayList<>(pendingCount());
        book.drainTo(all);
        admission.held().drainTo(all);
        return all;
    }

    /**
     * Removes and returns the requests queued for {@code model}, earliest deadline first: what a
     * group gives up when the plan routes the model to another group, which queues them instead
     * ({@link io.kairos.core.plan.ServingGroups#update}). None for a model it has not seen.
     */
    public List<Request> handOver(String model) {
        RequestQueue q = book.queue(model);
        if (q == null) return Collections.emptyList();
        List<Request> out = new ArrayList<>();
        if (!q.isEmpty()) out.addAll(Arrays.asList(book.take(q, q.size())));
        // Its held requests go too, to be held by the new group until their release there.
        out.addAll(admission.held().takeModel(model));
        return out;
    }

    /**
     * A device reports that it could not load {@code model} (its file does not open there, it does
     * not fit the device's memory) at {@code now}: its copy is gone from the group's view, the device free from then, so no batch of the model
     * goes there while another device holds it, and the load planner does not try that device again
     * for the model until the group's devices or placement change. Batches already sent there fail
     * on the device with its reason. An unknown device is ignored (the group has left it).
     */
    public void loadFailed(int slot, String model, long nowMicros) {
        for (DeviceView d : devices) {
            if (d.slot() != slot) continue;
            d.loadFailed(model, nowMicros);
            loads.loadFailed(slot, model);
        }
    }

    /**
     * Releases the held requests whose time has come, decides the loads the models' demand calls
     * for ({@link LoadPlanner}), sheds what cannot be saved, then lets the policy dispatch.
     */
    public Outcome schedule(long nowMicros) {
        admission.release(nowMicros, this::queueOf);
        List<ModelAction> actions = book.pending() > 0 ? loads.plan(nowMicros, book.active(), devices) : List.of();
        boolean alike = uniform && choice.devicesAlike();
        List<Drop> dropped = shed.unreachable(nowMicros, devices, alike, shedding);
        if (sheddingEarly()) dropped = shed.forFullBatches(nowMicros, devices, alike, dropped);
        long wake = SchedulingPolicy.NO_WAKE;
        if (book.pending() > 0) {
            wake = policy.schedule(nowMicros, this);
            // The batches just sent may have filled a model-aware placement's copies (the
            // registry's holders): the copy it wants is loaded now, and the policy decides again,
            // the batches that waited for it going there behind its load.
            for (int i = 0; book.pending() > 0 && i < devices.size(); i++) {
                List<ModelAction> more = loads.copiesWanted(nowMicros, book.active(), devices);
                if (more.isEmpty()) break;
                if (actions.isEmpty()) actions = new ArrayList<>();
                actions.addAll(more);
                wake = Math.min(wake, policy.schedule(nowMicros, this));
            }
        }
        if (book.pending() > 0 && shedding) wake = Math.min(wake, nextUnreachableMicros());
        wake = Math.min(wake, admission.held().nextReleaseMicros());
        return step.finish(dropped, admission.takeOverflow(), wake, actions);
    }

    private static boolean holdEveryModel(List<DeviceView> devices) {
        for (DeviceView d : devices) {
            if (!d.holdsEveryModel()) return false;
        }
        return true;
    }

    /** The first instant at which some head request becomes unreachable, if nothing is dispatched. */
    private long nextUnreachableMicros() {
        return book.active().isEmpty() ? SchedulingPolicy.NO_WAKE : book.active().first().latestStartAlone() + 1;
    }

    /**
     * What one call of {@link #schedule} decided, and when to call it again if nothing arrives.
     * {@code preempted} holds batches of earlier calls that are aborted: the very objects the
     * earlier outcomes' {@code dispatches} held, so that an engine can find its executions by
     * reference; their requests are pending again or in {@code drops}. {@code actions}: the loads
     * and unloads the load planner decided, to send the devices before the dispatches (a batch
     * booked behind a load on its device reaches the device after it).
     */
    public record Outcome(List<Dispatch> dispatches, List<Drop> drops, List<Dispatch> preempted, long nextWakeMicros, List<ModelAction> actions) {}
}
