package io.kairos.core.scheduling;

import io.kairos.core.model.LatencyEstimator;
import io.kairos.core.model.LatencyProfile;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.model.ModelSpec;
import io.kairos.core.request.Request;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * The state of one serving group and the loop around its policy: per-model deadline queues, the
 * predicted free time of every device of the group, shedding of requests whose deadline can no
 * longer be met, and the policy that picks batches. Engine-free: the Flink scheduler operator
 * calls it on every arrival and timer, the simulator on every event.
 *
 * <p>Preemption (a policy aborting a batch it started, see {@link #preempt}) is off unless the
 * engine turns it on with {@link #allowPreemption}: only an engine that can abort a batch on its
 * device, and map a preempted {@link Dispatch} back to that execution, may. Both do: the simulator
 * aborts the execution, the Flink job sends its device a cancel and resolves the race between the
 * cancel and the batch's end downstream.
 */
public final class GroupScheduler implements GroupView {

    /** Parameter: shed requests that can no longer meet their deadline (default true). */
    public static final String SHED = ConfiguredPolicy.SHED;
    /** Parameter: shed early under overload, to keep batches full (default true), see {@link #shedForFullBatches}. */
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

    private final String group;
    private final ModelCatalog catalog;
    private final Map<String, RequestQueue> queues = new HashMap<>();
    // Each model's arrival rate, at its queue's number: an arrival looks its model up once.
    private final List<ArrivalRate> arrivalRates = new ArrayList<>();
    // The same over a short window, at the same numbers: what the load planner reacts to.
    private final List<ArrivalRate> fastRates = new ArrayList<>();
    // Each model's catalog entry, at its queue's number: a dispatch looks nothing up by name.
    private final List<ModelSpec> specs = new ArrayList<>();
    private final List<RequestQueue> byNumber = new ArrayList<>();
    // The queues that are not empty, by the latest time their head request could start alone. A
    // group may serve thousands of models of which a few hundred have work at any instant (the
    // Azure workload: 4,026 instances), so shedding looks only at the front of this order and
    // policies can stop scanning early. A queue's key depends on its head: it is taken out before
    // its head changes and put back after.
    // Read-only to the policies: it is its own view.
    private final QueueOrder active = new QueueOrder();
    // The indexes of the pending queues that the policies asked for (other orders, subsets: see
    // QueueIndex), one of each kind, kept up to date from then on; and whether one of them orders
    // the queues by their oldest arrival, which each queue then keeps as it joins.
    private final List<QueueIndex> indexes = new ArrayList<>(1);
    private final List<Object> indexKeys = new ArrayList<>(1);
    private boolean keepOldest;
    // The active queues holding two requests or more: the only ones that can make a batch larger
    // than one. Under overload thousands of queues hold a single request and a few hold the rest,
    // so a policy looking for the largest batch scans these few (Flex on the Azure workload).
    private final Set<RequestQueue> batchable = new LinkedHashSet<>();
    private final Collection<RequestQueue> batchableView = Collections.unmodifiableSet(batchable);
    // The batchable queues holding two full batches or more: the only ones early shedding drops
    // from, so that it need not walk every batchable queue on every call. Visited in the order of
    // `batchable`, which each queue's batchable stamp records.
    private final List<RequestQueue> overfull = new ArrayList<>();
    private long batchableStamps;
    private final List<String> pendingModels = new ArrayList<>();
    private List<DeviceView> devices;
    // Which device a batch may go to and when it could start there, load included: what the
    // policies, shedding and dispatch all judge by.
    private final DeviceChoice choice = new DeviceChoice(specs);
    // When a model gets another copy, and which idle copy makes room for it.
    private final LoadPlanner loads;
    // Whether every device holds every model (none placed with a model list): then one earliest
    // start and one idle device serve every model.
    private boolean uniform;
    private SchedulingPolicy policy;
    private boolean shedding;
    private boolean shedEarly;
    private int maxPending = ConfiguredPolicy.DEFAULT_MAX_PENDING;
    private long windowMarginMicros;
    private boolean preemption;
    private int pending;
    private long batchExtra;
    // Each queue's model's profile on the group's hardware types, learned from the devices' reports.
    private final LearnedProfiles profiles;

    // Filled during one schedule() call, handed out in its outcome.
    private List<Dispatch> dispatched = new ArrayList<>();
    private List<Dispatch> preempted = new ArrayList<>();
    private List<Drop> preemptionDrops = new ArrayList<>();
    private List<Drop> rejected = new ArrayList<>();
    // Requests dropped on arrival because the group was full; handed out by the next schedule().
    private List<Drop> overflowDrops = new ArrayList<>();
    // Requests with a window SLO, held out of the queues until their release (see admit), the
    // earliest release first, then in arrival order.
    private final PriorityQueue<Held> held = new PriorityQueue<>(
            Comparator.comparingLong(Held::releaseMicros).thenComparingLong(Held::sequence));
    private long heldSequence;

    private record Held(long releaseMicros, long sequence, Request request) {}

    /** @throws IllegalArgumentException for a bad parameter, see {@link ConfiguredPolicy#of} */
    public GroupScheduler(String group, ModelCatalog catalog, List<DeviceView> devices, SchedulingPolicy policy, PolicyParams params) {
        this(group, catalog, devices, ConfiguredPolicy.of(group, policy, params));
    }

    public GroupScheduler(String group, ModelCatalog catalog, List<DeviceView> devices, ConfiguredPolicy policy) {
        this.group = group;
        this.catalog = catalog;
        this.profiles = new LearnedProfiles(catalog);
        this.loads = new LoadPlanner(catalog, choice, new LoadPlanner.Demand() {
            @Override
            public RequestQueue queue(String model) {
                return queues.get(model);
            }

            @Override
            public double ratePerSecond(RequestQueue q, long nowMicros) {
                return Math.max(arrivalRates.get(q.number()).perSecond(nowMicros), fastRates.get(q.number()).perSecond(nowMicros));
            }

            @Override
            public long lastArrivalMicros(RequestQueue q) {
                return arrivalRates.get(q.number()).lastMicros();
            }

            @Override
            public long firstArrivalMicros(RequestQueue q) {
                return arrivalRates.get(q.number()).firstMicros();
            }
        });
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
        return maxPending;
    }

    /**
     * The policy and how to shed, as {@link ConfiguredPolicy#of} read them; the queues stay (a
     * lower {@code max_pending} than what is pending takes effect as requests arrive and leave).
     */
    public void setPolicy(ConfiguredPolicy configured) {
        this.policy = configured.policy();
        this.shedding = configured.shed();
        this.shedEarly = configured.shedEarly();
        this.maxPending = configured.maxPending();
        this.windowMarginMicros = configured.windowMarginMicros();
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
            if (d.models() == null) continue; // every model: loaded on demand
            // Clockwork's controller loads and unloads explicitly: what the device no longer
            // serves leaves its memory now, and what it newly serves is loaded before its first
            // batch, as far as it fits without pushing out another placed model.
            for (String model : d.loadedModels()) {
                if (!d.holds(model)) {
                    d.unload(model);
                    actions.add(ModelAction.unload(d.slot(), model, ModelAction.UNPLACED));
                }
            }
            for (String model : new TreeSet<>(d.models())) {
                if (!catalog.contains(model)) continue;
                ModelSpec spec = catalog.get(model);
                if (d.holds(model) && d.fitsWithoutEviction(spec)) {
                    // From when the device is free: the placement came with no clock of its own.
                    d.bookLoad(spec, d.freeAtMicros());
                    actions.add(ModelAction.load(d.slot(), model, ModelAction.PLACED));
                }
            }
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
        for (RequestQueue q : byNumber) {
            LatencyProfile updated = profiles.retype(q.number(), specs.get(q.number()));
            if (updated == q.profile()) continue;
            reprofile(q, updated);
        }
    }

    /** The queue's profile changed: its place in the order depends on it, so it leaves before the change and comes back after. */
    private void reprofile(RequestQueue q, LatencyProfile updated) {
        boolean wasActive = !q.isEmpty() && leave(q);
        q.setProfile(updated);
        if (wasActive) join(q);
        batchExtra = Math.max(batchExtra, updated.latencyAt(updated.batchSizeCount() - 1) - updated.latencyAt(0));
    }

    /**
     * A model to load on a device, or to unload from it, because the group's placement changed or
     * the load planner decided it. The view books a load on the device's timeline, the model held
     * from its end ({@link DeviceView#bookLoad}); a device takes its actions and batches in the
     * order they are sent. {@code why} says, for the operator reading the telemetry, what made it:
     * the placement, or the demand the load planner saw.
     */
    public record ModelAction(int device, String model, boolean load, String why) {
        /** A placement lists the model on the device (again). */
        public static final String PLACED = "the placement lists it";
        /** A placement no longer lists the model on the device. */
        public static final String UNPLACED = "the placement no longer lists it";
        /** The device left the group (a replica taken away) and no group keeps the model there. */
        public static final String LEFT = "the device left the group";

        public ModelAction {
            Objects.requireNonNull(model, "model");
            Objects.requireNonNull(why, "why");
        }

        public static ModelAction load(int device, String model, String why) {
            return new ModelAction(device, model, true, why);
        }

        public static ModelAction unload(int device, String model, String why) {
            return new ModelAction(device, model, false, why);
        }
    }

    /**
     * Whether the latency profiles correct themselves from the batches the devices report (default:
     * yes, with {@link LatencyEstimator.Settings#DEFAULT}); {@code null}: the catalog's profiles
     * stay. Set it before the first request.
     */
    public void learnLatency(LatencyEstimator.Settings settings) {
        if (!queues.isEmpty()) throw new IllegalStateException("serving group '" + group + "': set latency learning before the first request");
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
        RequestQueue q = queues.get(batch.model());
        if (q != null) choice.observe(specs.get(q.number()), report);
        if (report.coldStart() || report.failed() || q == null) return;
        LatencyProfile updated = profiles.learned(q.number(), on, batch, report);
        if (updated != null) reprofile(q, updated);
    }

    /** Lets the policy preempt batches (default false); for engines that can abort a running batch. */
    public void allowPreemption(boolean allowed) {
        this.preemption = allowed;
    }

    /**
     * Queues a request. When the group already holds {@code max_pending} requests, the one with
     * the least laxity (the latest start alone: deadline less its model's latency at the smallest
     * batch), this one or the most urgent head, is dropped with a reason starting "queue full":
     * it is the one closest to being shed anyway, and the one that leaves the most time to the
     * others. The drop is handed out by the next {@link #schedule}. Memory stays bounded whatever
     * the SLOs and the rate. A request with a window SLO is held until its release instead (see
     * {@link #releaseMicros}), and dropped "queue full" if the group holds {@code max_pending}
     * requests, held ones included.
     */
    public void admit(Request request) {
        RequestQueue q = queueOf(request.model());
        arrivalRates.get(q.number()).arrived(request.arrivalMicros());
        fastRates.get(q.number()).arrived(request.arrivalMicros());
        if (request.hasWindow()) {
            long release = releaseMicros(q, request);
            if (release > request.arrivalMicros()) {
                // Held requests count toward max_pending, and are the last to be dropped for it:
                // the group is full only when even they do not fit.
                if (pending + held.size() >= maxPending) {
                    overflowDrops.add(new Drop(request, queueFull()));
                    return;
                }
                held.add(new Held(release, heldSequence++, request));
                return;
            }
        }
        queue(q, request);
    }

    /**
     * When a request with a window SLO joins its model's queue: its window start less its model's
     * latency at the smallest batch on the group's fastest device for it. A batch of any size that
     * starts then or later ends no earlier than the window start (latency grows with the batch),
     * and waiting longer only ends it later; so every policy alike is kept from answering early
     * by choice, and none needs to know of windows. Until then the request is held, out of every
     * queue, index and state a policy sees. The group parameter {@code window_margin_ms} releases it
     * that much later: a batch that runs faster than its profile (execution noise) then still ends
     * inside the window, at the cost of the margin's time toward the deadline.
     */
    private long releaseMicros(RequestQueue q, Request request) {
        return request.windowStartMicros() - profiles.fastestAlone(q.number()) + windowMarginMicros;
    }

    /** Releases the held requests whose time has come into their queues, as arrivals. */
    private void release(long nowMicros) {
        while (!held.isEmpty() && held.peek().releaseMicros() <= nowMicros) {
            Request r = held.poll().request();
            queue(queueOf(r.model()), r);
        }
    }

    /** The requests held for their window, in no particular order. */
    public int heldCount() {
        return held.size();
    }

    private void queue(RequestQueue q, Request request) {
        if (pending >= maxPending) {
            RequestQueue urgent = active.first();
            if (request.deadlineMicros() - q.profile().latencyAt(0) <= urgent.latestStartAlone()) {
                overflowDrops.add(new Drop(request, queueFull()));
                return;
            }
            leave(urgent);
            overflowDrops.add(new Drop(urgent.poll(), queueFull()));
            pending--;
            shrunk(urgent);
            if (!urgent.isEmpty()) join(urgent);
        }
        enqueue(q, request);
    }

    private String queueFull() {
        return "queue full: serving group '" + group + "' holds " + maxPending + " requests (max_pending), and this one had the least laxity";
    }

    private RequestQueue queueOf(String model) {
        RequestQueue q = queues.get(model);
        if (q == null) {
            ModelSpec spec = catalog.get(model);
            q = new RequestQueue(model, profiles.add(spec));
            queues.put(model, q);
            q.setNumber(arrivalRates.size());
            arrivalRates.add(new ArrivalRate(ARRIVAL_RATE_WINDOW_MICROS));
            fastRates.add(new ArrivalRate(FAST_RATE_WINDOW_MICROS));
            specs.add(spec);
            choice.queued(spec);
            byNumber.add(q);
            LatencyProfile p = q.profile();
            batchExtra = Math.max(batchExtra, p.latencyAt(p.batchSizeCount() - 1) - p.latencyAt(0));
        }
        return q;
    }

    // Keeps the order of the active queues: a queue whose head changes is taken out and put back.
    private void enqueue(RequestQueue q, Request request) {
        boolean newHead = q.isEmpty() || request.deadlineMicros() < q.headDeadline();
        for (int i = 0; i < indexes.size(); i++) indexes.get(i).adding(q, request, newHead);
        if (newHead && !q.isEmpty()) leave(q);
        q.add(request);
        if (newHead) join(q);
        if (q.size() == 2) {
            batchable.add(q);
            q.setBatchableStamp(++batchableStamps);
        }
        for (int i = 0; i < indexes.size(); i++) indexes.get(i).added(q, newHead);
        if (q.size() == 2 * q.profile().maxBatch()) overfull.add(q);
        pending++;
    }

    // A queue leaves the orders before its head, oldest arrival or profile changes, and joins them again after.
    private boolean leave(RequestQueue q) {
        boolean was = active.leave(q);
        for (int i = 0; i < indexes.size(); i++) indexes.get(i).left(q);
        return was;
    }

    private void join(RequestQueue q) {
        q.keepOrderKeys(keepOldest);
        active.join(q);
        for (int i = 0; i < indexes.size(); i++) indexes.get(i).joined(q);
    }

    // After requests leave a queue.
    private void shrunk(RequestQueue q) {
        if (q.size() < 2) batchable.remove(q);
        if (q.size() < 2 * q.profile().maxBatch() && !overfull.isEmpty()) overfull.remove(q);
        for (int i = 0; i < indexes.size(); i++) indexes.get(i).shrunk(q);
    }

    /**
     * The estimated arrival rate of {@code model} into this group at {@code nowMicros}, requests
     * per second (every request admitted counts, whatever becomes of it); 0 for a model not seen.
     * What a planner re-solves a batching table for ({@code kairos plan smdp}).
     */
    public double arrivalRatePerSecond(String model, long nowMicros) {
        RequestQueue q = queues.get(model);
        return q == null ? 0 : arrivalRates.get(q.number()).perSecond(nowMicros);
    }

    /** The requests the group holds: queued, and held for their window. */
    public int pendingCount() {
        return pending + held.size();
    }

    /** Every pending request, held ones included, e.g. to checkpoint them; the queues are left as they are. */
    public List<Request> pendingRequests() {
        List<Request> all = new ArrayList<>(pending + held.size());
        for (RequestQueue q : active) {
            for (int i = 0; i < q.size(); i++) all.add(q.get(i));
        }
        for (Held h : held) all.add(h.request());
        return all;
    }

    /**
     * Removes and returns every pending request: what a scheduler whose policy failed gives back,
     * for each request to get a result rather than to wait forever.
     */
    public List<Request> drainPending() {
        List<Request> all = new ArrayList<>(pending + held.size());
        for (RequestQueue q : queues.values()) all.addAll(Arrays.asList(q.take(q.size())));
        for (Held h : held) all.add(h.request());
        held.clear();
        active.reset();
        for (QueueIndex index : indexes) index.clear();
        batchable.clear();
        overfull.clear();
        pending = 0;
        return all;
    }

    /**
     * Removes and returns the requests queued for {@code model}, earliest deadline first: what a
     * group gives up when the plan routes the model to another group, which queues them instead
     * ({@link io.kairos.core.plan.ServingGroups#update}). None for a model it has not seen.
     */
    public List<Request> handOver(String model) {
        RequestQueue q = queues.get(model);
        if (q == null) return Collections.emptyList();
        List<Request> out = new ArrayList<>();
        if (!q.isEmpty()) {
            leave(q);
            int n = q.size();
            out.addAll(Arrays.asList(q.take(n)));
            pending -= n;
            shrunk(q);
        }
        // Its held requests go too, to be held by the new group until their release there.
        if (!held.isEmpty()) {
            List<Held> mine = new ArrayList<>();
            // One pass (removeIf rebuilds the heap once), not a removal per request, which is linear each.
            held.removeIf(h -> h.request().model().equals(model) && mine.add(h));
            mine.sort(Comparator.comparingLong(h -> h.request().deadlineMicros()));
            for (Held h : mine) out.add(h.request());
        }
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
        if (!held.isEmpty()) release(nowMicros);
        List<ModelAction> actions = pending > 0 ? loads.plan(nowMicros, active, devices) : List.of();
        List<Drop> dropped = shed(nowMicros);
        if (sheddingEarly()) dropped = shedForFullBatches(nowMicros, dropped);
        long wake = SchedulingPolicy.NO_WAKE;
        if (pending > 0) {
            wake = policy.schedule(nowMicros, this);
            // The batches just sent may have filled a model-aware placement's copies (the
            // registry's holders): the copy it wants is loaded now, and the policy decides again,
            // the batches that waited for it going there behind its load.
            for (int i = 0; pending > 0 && i < devices.size(); i++) {
                List<ModelAction> more = loads.copiesWanted(nowMicros, active, devices);
                if (more.isEmpty()) break;
                if (actions.isEmpty()) actions = new ArrayList<>();
                actions.addAll(more);
                wake = Math.min(wake, policy.schedule(nowMicros, this));
            }
        }
        List<Dispatch> out = dispatched.isEmpty() ? Collections.emptyList() : dispatched;
        if (!out.isEmpty()) dispatched = new ArrayList<>();
        List<Dispatch> aborted = preempted.isEmpty() ? Collections.emptyList() : preempted;
        if (!aborted.isEmpty()) preempted = new ArrayList<>();
        if (!preemptionDrops.isEmpty()) {
            if (dropped.isEmpty()) dropped = new ArrayList<>();
            dropped.addAll(preemptionDrops);
            preemptionDrops = new ArrayList<>();
        }
        if (!overflowDrops.isEmpty()) {
            if (dropped.isEmpty()) dropped = new ArrayList<>();
            dropped.addAll(overflowDrops);
            overflowDrops = new ArrayList<>();
        }
        if (!rejected.isEmpty()) {
            if (dropped.isEmpty()) dropped = new ArrayList<>();
            dropped.addAll(rejected);
            rejected = new ArrayList<>();
        }
        if (pending > 0 && shedding) wake = Math.min(wake, nextUnreachableMicros());
        if (!held.isEmpty()) wake = Math.min(wake, held.peek().releaseMicros());
        return new Outcome(out, dropped, aborted, wake, actions);
    }

    // ---- GroupView, for the policy ----

    @Override
    public List<String> modelsWithPending() {
        pendingModels.clear();
        for (RequestQueue q : active) pendingModels.add(q.model());
        return pendingModels;
    }

    @Override
    public long largestBatchExtraMicros() {
        return batchExtra;
    }

    @Override
    public Collection<RequestQueue> pendingQueues() {
        return active;
    }

    @Override
    public int pendingQueues(int from, RequestQueue[] into) {
        return active.copy(from, into);
    }

    @Override
    public Collection<RequestQueue> batchableQueues() {
        return batchableView;
    }

    @Override
    public <I extends QueueIndex> I index(Class<I> kind, Object key, Supplier<I> make) {
        int at = -1;
        for (int i = 0; i < indexes.size(); i++) {
            if (kind.isInstance(indexes.get(i))) {
                if (indexKeys.get(i).equals(key)) return kind.cast(indexes.get(i));
                at = i;
            }
        }
        I index = make.get();
        if (at < 0) {
            indexes.add(index);
            indexKeys.add(key);
        } else {
            indexes.set(at, index);
            indexKeys.set(at, key);
        }
        keepOldest = false;
        for (QueueIndex i : indexes) keepOldest |= i.readsOldestArrival();
        index.fill(active, batchable);
        return index;
    }

    @Override
    public RequestQueue queue(String model) {
        return queues.get(model);
    }

    /**
     * The model's latency profile as the scheduler now believes it: the catalog's, corrected by what
     * was measured; on the group's devices, the slowest of their types at each size.
     */
    @Override
    public LatencyProfile profile(String model) {
        RequestQueue q = queues.get(model);
        if (q != null) return q.profile();
        return profiles.of(catalog.get(model));
    }

    @Override
    public LatencyProfile profileOn(RequestQueue q, DeviceView device) {
        if (profiles.types().size() == 1) return q.profile();
        checkOwn(q);
        LatencyProfile p = profiles.on(q.number(), device.typeIndex());
        if (p == null) throw new IllegalArgumentException(device + " cannot run model '" + q.model() + "': it has no profile on hardware type '" + device.resolvedHardwareType() + "'");
        return p;
    }

    /** The hardware types of the group's devices, each once, in the order of the devices. */
    public List<String> hardwareTypes() {
        return profiles.types();
    }

    @Override
    public List<DeviceView> devices() {
        return devices;
    }

    @Override
    public Dispatch dispatch(String model, int size, DeviceView device, long nowMicros) {
        if (!device.holds(model)) throw new IllegalArgumentException(device + " does not hold " + model);
        return dispatch(queues.get(model), size, device, nowMicros);
    }

    @Override
    public Dispatch dispatch(RequestQueue q, int size, DeviceView device, long nowMicros) {
        String model = q.model();
        if (!device.holds(model)) throw new IllegalArgumentException(device + " does not hold " + model);
        checkOwn(q);
        leave(q);
        Request[] batch = q.take(size);
        pending -= size;
        shrunk(q);
        if (!q.isEmpty()) join(q);
        // A model the device does not hold is loaded first: the batch takes its load time longer.
        // On a device of one of several types, the batch takes that type's time.
        ModelSpec spec = specs.get(q.number());
        LatencyProfile p = profiles.types().size() == 1 ? q.profile() : profiles.on(q.number(), device.typeIndex());
        // A batch the placement sends to a device on another machine (the registry's, to a remote
        // holder) travels the network first, and leaves its pre- and post-processing where it came
        // from: the device runs the inference alone, its requests end that much after it.
        long network = 0;
        long after = 0;
        if (choice.remote(q, device, nowMicros)) {
            network = spec.networkMicros();
            after = spec.prePostMicros();
        }
        long latency = Math.max(0, p.latencyMicros(size) - after) + device.loadMicros(spec);
        long start = Math.max(device.startAtMicros(nowMicros), nowMicros + network);
        Dispatch d = new Dispatch(model, batch, device.slot(), start, latency, network, after);
        device.book(d, nowMicros);
        device.hold(spec);
        dispatched.add(d);
        return d;
    }

    @Override
    public void reject(String model, int count, String reason) {
        RequestQueue q = queues.get(model);
        if (q == null) throw new IllegalArgumentException("cannot reject " + count + " of 0 requests of model '" + model + "'");
        reject(q, count, reason);
    }

    @Override
    public void reject(RequestQueue q, int count, String reason) {
        String model = q.model();
        checkOwn(q);
        if (count < 1 || count > q.size()) {
            throw new IllegalArgumentException("cannot reject " + count + " of " + (q == null ? 0 : q.size()) + " requests of model '" + model + "'");
        }
        leave(q);
        for (Request r : q.take(count)) rejected.add(new Drop(r, reason));
        pending -= count;
        shrunk(q);
        if (!q.isEmpty()) join(q);
    }

    // A queue a policy hands back must be one of this group's, found without a lookup by name.
    private void checkOwn(RequestQueue q) {
        if (q.number() < 0 || q.number() >= byNumber.size() || byNumber.get(q.number()) != q) {
            throw new IllegalArgumentException("the queue of model '" + q.model() + "' is not one of serving group '" + group + "'");
        }
    }

    @Override
    public boolean preemptionAllowed() {
        return preemption;
    }

    /**
     * Aborts the last batch booked on {@code device}, which must be predicted to be running at
     * {@code now} or not to have started ({@link DeviceView#preemptibleAt}); the device is then free
     * from {@code now} (from the batch's start if it had not started). Its requests go back to their
     * queue, except, when shedding, those that could no longer meet their deadline even alone on the
     * earliest-free device: they are dropped with a reason starting "preempted". The batch appears in
     * the outcome's {@code preempted}, unless it was dispatched in this same call: then it is simply
     * taken out of the outcome's dispatches, as the engine has not seen it.
     */
    @Override
    public Dispatch preempt(DeviceView device, long nowMicros) {
        if (!preemption) throw new IllegalStateException("preemption is not allowed in serving group '" + group + "'");
        if (!devices.contains(device)) throw new IllegalArgumentException(device + " is not a device of serving group '" + group + "'");
        Dispatch d = device.unbookLast(nowMicros);
        if (!removeByIdentity(dispatched, d)) preempted.add(d);
        RequestQueue q = queues.get(d.model());
        long finish = choice.earliestReadyMicros(q, nowMicros) + q.profile().latencyAt(0);
        for (Request r : d.requests()) {
            if (shedding && finish > r.deadlineMicros()) {
                preemptionDrops.add(new Drop(r, "preempted on device " + device.slot() + ", and alone on the earliest-free device it would finish "
                        + (finish - r.deadlineMicros()) + " us late"));
            } else {
                enqueue(q, r);
            }
        }
        return d;
    }

    private static boolean removeByIdentity(List<Dispatch> list, Dispatch d) {
        for (int i = 0; i < list.size(); i++) {
            if (list.get(i) == d) {
                list.remove(i);
                return true;
            }
        }
        return false;
    }

    // ---- shedding ----

    /**
     * Drops, per model, the requests at the head of the queue that would miss their deadline even
     * if they ran alone on the device where a batch of the model could start first, its load
     * included ({@link DeviceChoice#earliestReadyMicros}). Deadlines behind the head are not
     * earlier, so the scan stops at the first request that can still make it.
     */
    private List<Drop> shed(long nowMicros) {
        if (pending == 0) return Collections.emptyList();
        List<Drop> dropped = new ArrayList<>(0);
        if (!devices.isEmpty() && uniform && choice.devicesAlike()) {
            if (!shedding) return dropped;
            // One earliest start for every model: the unreachable heads are at the front of the order.
            long start = earliestStart(nowMicros);
            while (!active.isEmpty() && active.first().latestStartAlone() < start) {
                RequestQueue q = active.first();
                leave(q);
                dropUnreachable(q, start, dropped);
                if (!q.isEmpty()) join(q);
            }
            return dropped;
        }
        for (RequestQueue q : new ArrayList<>(active)) {
            long start = choice.earliestReadyMicros(q, nowMicros);
            if (start == Long.MAX_VALUE) {
                leave(q);
                while (!q.isEmpty()) {
                    dropped.add(new Drop(q.poll(), "no device of serving group '" + group + "' holds model '" + q.model() + "'"));
                    pending--;
                }
                shrunk(q);
            } else if (shedding && q.latestStartAlone() < start) {
                leave(q);
                dropUnreachable(q, start, dropped);
                if (!q.isEmpty()) join(q);
            }
        }
        return dropped;
    }

    /**
     * Shedding early, under overload. A queue holding two full batches or more is behind: its
     * devices cannot serve it by the deadlines at the rate it comes. Its head requests are then
     * the ones closest to their deadlines, too close, typically, for a full batch: served anyway,
     * they go in batches of one or two, at a fraction of the device's throughput, and while they
     * run the requests behind them age into the same state, until the group serves nothing but
     * batches of one (a group of two devices at twice its capacity keeps under 40 % of its peak goodput
     * that way). So while the queue holds two full batches, a head that could not finish by its
     * deadline in a full batch started on the earliest-free device that holds the model is
     * dropped, with a reason starting "shed under overload"; the batches that run stay full.
     * Below capacity a queue seldom holds two full batches, and when it does its head has time.
     */
    private List<Drop> shedForFullBatches(long nowMicros, List<Drop> dropped) {
        if (overfull.isEmpty()) return dropped;
        boolean everyDevice = uniform && choice.devicesAlike();
        long anyStart = everyDevice ? earliestStart(nowMicros) : 0;
        List<RequestQueue> candidates = new ArrayList<>(overfull);
        if (candidates.size() > 1) candidates.sort(Comparator.comparingLong(RequestQueue::batchableStamp));
        for (RequestQueue q : candidates) {
            LatencyProfile p = q.profile();
            int full = p.maxBatch();
            long start = everyDevice ? anyStart : choice.earliestReadyMicros(q, nowMicros);
            if (start == Long.MAX_VALUE) continue;
            long finish = start + p.latencyAt(p.batchSizeCount() - 1);
            if (finish <= q.headDeadline()) continue;
            if (dropped.isEmpty()) dropped = new ArrayList<>();
            leave(q);
            while (q.size() >= 2 * full && finish > q.headDeadline()) {
                Request r = q.poll();
                pending--;
                int behind = q.size();
                long late = finish - r.deadlineMicros();
                String model = q.model();
                dropped.add(new Drop(r, () -> "shed under overload: " + behind + " requests of model '" + model + "' wait behind it, and in a full batch of "
                        + full + " on the earliest-free device it would finish " + late + " us late"));
            }
            shrunk(q);
            if (!q.isEmpty()) join(q);
        }
        return dropped;
    }

    /** Drops the head requests of {@code q} that would finish late even alone from {@code start}. */
    private void dropUnreachable(RequestQueue q, long start, List<Drop> dropped) {
        long finish = start + q.profile().latencyAt(0);
        while (!q.isEmpty() && finish > q.headDeadline()) {
            Request r = q.poll();
            pending--;
            long late = finish - r.deadlineMicros();
            dropped.add(new Drop(r, () -> "deadline unreachable: alone on the earliest-free device it would finish " + late + " us late"));
        }
        shrunk(q);
    }

    /** The earliest start on any device: of every model, when the devices are {@linkplain DeviceChoice#devicesAlike alike}. */
    private long earliestStart(long nowMicros) {
        long best = Long.MAX_VALUE;
        for (DeviceView d : devices) best = Math.min(best, d.startAtMicros(nowMicros));
        return best;
    }

    @Override
    public boolean everyDeviceHoldsEveryModel() {
        // With load costs a device that does not hold a model is no longer one a batch may go to.
        return uniform && choice.devicesAlike();
    }

    @Override
    public DeviceChoice deviceChoice() {
        return choice;
    }

    private static boolean holdEveryModel(List<DeviceView> devices) {
        for (DeviceView d : devices) {
            if (!d.holdsEveryModel()) return false;
        }
        return true;
    }

    /** The first instant at which some head request becomes unreachable, if nothing is dispatched. */
    private long nextUnreachableMicros() {
        return active.isEmpty() ? SchedulingPolicy.NO_WAKE : active.first().latestStartAlone() + 1;
    }

    /**
     * A request shed by the scheduler and why. The reason of the drops that come by the million
     * under overload is written only when asked for: the simulator never reads it.
     */
    public static final class Drop {
        private final Request request;
        private String reason;
        private Supplier<String> why;

        public Drop(Request request, String reason) {
            this.request = request;
            this.reason = reason;
        }

        Drop(Request request, Supplier<String> why) {
            this.request = request;
            this.why = why;
        }

        public Request request() {
            return request;
        }

        public String reason() {
            if (reason == null) {
                reason = why.get();
                why = null;
            }
            return reason;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Drop d && d.request.equals(request) && d.reason().equals(reason());
        }

        @Override
        public int hashCode() {
            return request.hashCode() * 31 + reason().hashCode();
        }

        @Override
        public String toString() {
            return "Drop[request=" + request + ", reason=" + reason() + "]";
        }
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
