package io.kairos.core.scheduling;

import io.kairos.core.model.LatencyProfile;
import io.kairos.core.model.ModelSpec;
import io.kairos.core.request.Request;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The requests a serving group has queued, and the orders that find them fast: one record per
 * model at its queue's number (its queue, catalog entry and arrival rates), the pending queues by
 * the latest time their head could start alone, the indexes the policies asked for, the queues
 * that can make a batch of two or more and those holding two full batches. Every change of a queue
 * goes through here, so that every order stays true: a queue whose head, oldest arrival or profile
 * changes leaves the orders before and joins them again after.
 */
final class PendingBook implements LoadPlanner.Demand {
    /** The time constant of the arrival-rate estimates: 10 s. */
    static final long RATE_WINDOW_MICROS = GroupScheduler.ARRIVAL_RATE_WINDOW_MICROS;
    /** The time constant of the short estimates the load planner adds copies by: 1 s. */
    static final long FAST_RATE_WINDOW_MICROS = GroupScheduler.FAST_RATE_WINDOW_MICROS;

    /** One model's record: its queue, its catalog entry, its arrival rate over 10 s and over 1 s. */
    private record Model(RequestQueue queue, ModelSpec spec, ArrivalRate rate, ArrivalRate fastRate) {}

    private final Map<String, Model> byName = new HashMap<>();
    private final List<Model> byNumber = new ArrayList<>();
    // The catalog entries at the queues' numbers, the list the device choice reads.
    private final List<ModelSpec> specs = new ArrayList<>();
    // The queues that are not empty, by the latest time their head request could start alone. A
    // group may serve thousands of models of which a few hundred have work at any instant (the
    // Azure workload: 4,026 instances), so shedding looks only at the front of this order and
    // policies can stop scanning early. Read-only to the policies: it is its own view.
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
    private int pending;

    /** The catalog entries at the queues' numbers, a live list. */
    List<ModelSpec> specs() {
        return specs;
    }

    /** The queue of {@code model}; null before its first request. */
    @Override
    public RequestQueue queue(String model) {
        Model m = byName.get(model);
        return m == null ? null : m.queue();
    }

    /** A new model's queue, numbered next, with {@code profile} to predict its batches by. */
    RequestQueue add(ModelSpec spec, LatencyProfile profile) {
        RequestQueue q = new RequestQueue(spec.name(), profile);
        q.setNumber(byNumber.size());
        Model m = new Model(q, spec, new ArrivalRate(RATE_WINDOW_MICROS), new ArrivalRate(FAST_RATE_WINDOW_MICROS));
        byName.put(spec.name(), m);
        byNumber.add(m);
        specs.add(spec);
        return q;
    }

    /** How many models have a queue. */
    int models() {
        return byNumber.size();
    }

    RequestQueue queue(int number) {
        return byNumber.get(number).queue();
    }

    ModelSpec spec(RequestQueue q) {
        return specs.get(q.number());
    }

    /** Whether {@code q} is one of this book's queues, found without a lookup by name. */
    boolean owns(RequestQueue q) {
        return q.number() >= 0 && q.number() < byNumber.size() && byNumber.get(q.number()).queue() == q;
    }

    /** A request of {@code q}'s model arrived (whatever becomes of it): its rates count it. */
    void arrived(RequestQueue q, long atMicros) {
        Model m = byNumber.get(q.number());
        m.rate().arrived(atMicros);
        m.fastRate().arrived(atMicros);
    }

    ArrivalRate rate(RequestQueue q) {
        return byNumber.get(q.number()).rate();
    }

    ArrivalRate fastRate(RequestQueue q) {
        return byNumber.get(q.number()).fastRate();
    }

    /** The larger of its rate estimates: the short one follows a step within a second. */
    @Override
    public double ratePerSecond(RequestQueue q, long nowMicros) {
        return Math.max(rate(q).perSecond(nowMicros), fastRate(q).perSecond(nowMicros));
    }

    @Override
    public long lastArrivalMicros(RequestQueue q) {
        return rate(q).lastMicros();
    }

    @Override
    public long firstArrivalMicros(RequestQueue q) {
        return rate(q).firstMicros();
    }

    /** The requests queued. */
    int pending() {
        return pending;
    }

    /** The pending queues, by the latest time their head could start alone. */
    QueueOrder active() {
        return active;
    }

    /** The pending queues holding two requests or more, read-only. */
    Collection<RequestQueue> batchable() {
        return batchableView;
    }

    /** The pending queues holding two full batches or more, in the order they became batchable. */
    List<RequestQueue> overfull() {
        List<RequestQueue> candidates = new ArrayList<>(overfull);
        if (candidates.size() > 1) candidates.sort(java.util.Comparator.comparingLong(RequestQueue::batchableStamp));
        return candidates;
    }

    boolean anyOverfull() {
        return !overfull.isEmpty();
    }

    /** Queues a request, the orders kept. */
    void enqueue(RequestQueue q, Request request) {
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

    /** Takes the {@code n} requests at the head of {@code q}, the orders kept. */
    Request[] take(RequestQueue q, int n) {
        leave(q);
        Request[] taken = q.take(n);
        pending -= n;
        shrunk(q);
        if (!q.isEmpty()) join(q);
        return taken;
    }

    /**
     * Takes the head of {@code q}, which has left the orders ({@link #leave}); the caller calls
     * {@link #shrunk} and {@link #join} once it is done taking.
     */
    Request poll(RequestQueue q) {
        pending--;
        return q.poll();
    }

    /** {@code q} leaves the orders, before its head, oldest arrival or profile changes; whether it was among them. */
    boolean leave(RequestQueue q) {
        boolean was = active.leave(q);
        for (int i = 0; i < indexes.size(); i++) indexes.get(i).left(q);
        return was;
    }

    /** {@code q} joins the orders again, after the change. */
    void join(RequestQueue q) {
        q.keepOrderKeys(keepOldest);
        active.join(q);
        for (int i = 0; i < indexes.size(); i++) indexes.get(i).joined(q);
    }

    /** After requests left {@code q}. */
    void shrunk(RequestQueue q) {
        if (q.size() < 2) batchable.remove(q);
        if (q.size() < 2 * q.profile().maxBatch() && !overfull.isEmpty()) overfull.remove(q);
        for (int i = 0; i < indexes.size(); i++) indexes.get(i).shrunk(q);
    }

    /** {@code q}'s profile changed: it leaves the orders before and joins them after. */
    void reprofile(RequestQueue q, LatencyProfile updated) {
        boolean wasActive = !q.isEmpty() && leave(q);
        q.setProfile(updated);
        if (wasActive) join(q);
    }

    /** The index of {@code kind} with {@code key}, made and filled at the first ask; one of each kind is kept. */
    <I extends QueueIndex> I index(Class<I> kind, Object key, Supplier<I> make) {
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

    /** Every queued request, the queues left as they are. */
    void addPendingTo(List<Request> all) {
        for (RequestQueue q : active) {
            for (int i = 0; i < q.size(); i++) all.add(q.get(i));
        }
    }

    /** Takes every queued request. */
    void drainTo(List<Request> all) {
        for (Model m : byNumber) all.addAll(java.util.Arrays.asList(m.queue().take(m.queue().size())));
        active.reset();
        for (QueueIndex index : indexes) index.clear();
        batchable.clear();
        overfull.clear();
        pending = 0;
    }

    /** Every model's queue, in the order of their numbers. */
    List<RequestQueue> queues() {
        List<RequestQueue> all = new ArrayList<>(byNumber.size());
        for (Model m : byNumber) all.add(m.queue());
        return all;
    }
}
