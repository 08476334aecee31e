package io.kairos.core.scheduling.policy;

import io.kairos.core.api.Internal;
import io.kairos.core.request.Request;
import io.kairos.core.scheduling.RequestQueue;
import io.kairos.core.scheduling.ArrivalOrder;
import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.scheduling.GroupView;
import io.kairos.core.scheduling.OrderedQueues;
import io.kairos.core.scheduling.ParamReader;
import io.kairos.core.scheduling.PerModel;
import io.kairos.core.scheduling.SchedulingPolicy;
import io.kairos.core.time.Micros;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;

/**
 * Triton's dynamic batcher, the baseline users know, with its queue policy. It does not look at
 * deadlines to decide; it only gives up on a request that has waited its timeout.
 *
 * <p>Batching, as Triton's scheduler forms a batch for an idle instance: with {@code n} requests
 * of a model queued, if {@code n} reaches the largest preferred size (the maximum batch without
 * preferred sizes) a batch of that size goes; otherwise the largest preferred size not above
 * {@code n} goes at once; otherwise the queue waits until its oldest request has waited
 * {@code max_queue_delay_ms}, and then all {@code n} go. Batches go only to a device that is idle
 * now, the model whose oldest request has waited longest first.
 *
 * <p>Queue policy (Triton's {@code default_queue_policy} with {@code timeout_action: REJECT}): a
 * request still queued when its timeout has passed is dropped. The timeout is the request's own
 * SLO (its deadline) unless {@code queue_timeout_ms} says otherwise; 0 means none, as in Triton.
 * Triton checks its queue in arrival order; here the check is at the head of the model's queue,
 * which is the same order when a model's requests share one SLO.
 *
 * <p>Parameters, per group or per model: {@code max_batch} (a whole number, at least 1; default and
 * cap: the profile's largest size), {@code max_queue_delay_ms} (at least 0, default 1),
 * {@code preferred_batch_sizes} (e.g. {@code 4,8}; default none), {@code queue_timeout_ms}
 * ({@code slo}, the default, or milliseconds, 0 for no timeout).
 *
 * <p>Parameter, group-wide: {@code lookahead_ms} (at least 0, default 0). A Triton instance pulls
 * its next batch the moment it frees; a Kairos device is fed across the job's network, so a batch
 * sent when the device is predicted idle reaches it a hand-over later, and when the prediction
 * (the learned p99) is late, a device report's round trip later still. With a lookahead, a device
 * predicted to free within it counts as idle: its next batch is formed and sent that much ahead and
 * waits on the device, which then runs back to back. 0 is Triton's own behaviour (and the
 * simulator's, where the hand-over takes no time); one batch's execution time keeps one batch
 * queued on every device.
 */
@Internal
public final class TritonPolicy implements SchedulingPolicy {
    public static final String NAME = "triton";
    public static final String MAX_BATCH = "max_batch";
    public static final String MAX_QUEUE_DELAY_MS = "max_queue_delay_ms";
    public static final String PREFERRED_BATCH_SIZES = "preferred_batch_sizes";
    public static final String QUEUE_TIMEOUT_MS = "queue_timeout_ms";
    public static final String LOOKAHEAD_MS = "lookahead_ms";
    /** The value of {@link #QUEUE_TIMEOUT_MS} that makes each request's timeout its SLO (the default). */
    public static final String TIMEOUT_SLO = "slo";

    /** {@link Batching#queueTimeoutMicros} when a request times out at its deadline. */
    public static final long AT_DEADLINE = -1;
    /** {@link Batching#queueTimeoutMicros} when requests never time out. */
    public static final long NEVER = 0;

    /**
     * A model's batching: at most {@code maxBatch} requests, released after
     * {@code maxQueueDelayMicros}, preferring the sizes in {@code preferred} (increasing, maybe
     * empty); a queued request is dropped after {@code queueTimeoutMicros} ({@link #AT_DEADLINE},
     * {@link #NEVER}, or a duration).
     */
    public record Batching(int maxBatch, long maxQueueDelayMicros, int[] preferred, long queueTimeoutMicros) {
        public Batching {
            preferred = preferred.clone();
        }

        /** No preferred sizes, the timeout at each request's deadline. */
        public Batching(int maxBatch, long maxQueueDelayMicros) {
            this(maxBatch, maxQueueDelayMicros, new int[0], AT_DEADLINE);
        }

        @Override
        public int[] preferred() {
            return preferred.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Batching b && b.maxBatch == maxBatch && b.maxQueueDelayMicros == maxQueueDelayMicros
                    && Arrays.equals(b.preferred, preferred) && b.queueTimeoutMicros == queueTimeoutMicros;
        }

        @Override
        public int hashCode() {
            return Long.hashCode(maxQueueDelayMicros) * 31 + Arrays.hashCode(preferred) * 17 + maxBatch + Long.hashCode(queueTimeoutMicros);
        }

        @Override
        public String toString() {
            return "Batching[maxBatch=" + maxBatch + ", maxQueueDelayMicros=" + maxQueueDelayMicros + ", preferred="
                    + Arrays.toString(preferred) + ", queueTimeoutMicros=" + queueTimeoutMicros + "]";
        }
    }

    private static final Batching DEFAULT = new Batching(Integer.MAX_VALUE, 1_000, new int[0], AT_DEADLINE);

    private final PerModel<Batching> batching;
    // Every model times out at its deadline: the queues' deadline order finds the expired ones
    // without a scan of every model (the Azure experiment holds thousands).
    private final boolean allAtDeadline;
    // Every model has the same timeout in milliseconds (no model overrides it), or NEVER: the
    // queues' order by head arrival finds the expired ones, as the deadline order does above;
    // VARIES when models differ, and each pending model is looked at.
    private final long uniformTimeout;
    // A device predicted to free within this counts as idle (lookahead_ms).
    private final long lookahead;

    public TritonPolicy() {
        this(PerModel.of(DEFAULT), 0);
    }

    private TritonPolicy(PerModel<Batching> batching, long lookaheadMicros) {
        this.batching = batching;
        this.lookahead = lookaheadMicros;
        this.allAtDeadline = batching.group().queueTimeoutMicros() == AT_DEADLINE
                && batching.models().values().stream().allMatch(b -> b.queueTimeoutMicros() == AT_DEADLINE);
        this.uniformTimeout = batching.models().isEmpty() && batching.group().queueTimeoutMicros() != AT_DEADLINE
                ? batching.group().queueTimeoutMicros() : VARIES;
    }

    /** {@link #uniformTimeout} when the models' timeouts differ, or are their deadlines. */
    private static final long VARIES = Long.MIN_VALUE;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public SchedulingPolicy configure(ParamReader params) {
        return new TritonPolicy(params.perModel(TritonPolicy::read), params.millisAsMicros(LOOKAHEAD_MS, 0));
    }

    private static Batching read(ParamReader p) {
        int maxBatch = p.positiveInt(MAX_BATCH, DEFAULT.maxBatch());
        long delay = p.millisAsMicros(MAX_QUEUE_DELAY_MS, DEFAULT.maxQueueDelayMicros() / 1000.0);
        int[] preferred = p.increasingPositiveInts(PREFERRED_BATCH_SIZES);
        if (preferred.length > 0 && preferred[preferred.length - 1] > maxBatch) {
            throw new IllegalArgumentException(NAME + " parameter '" + PREFERRED_BATCH_SIZES + "' must not exceed " + MAX_BATCH + " ("
                    + maxBatch + "), got " + Arrays.toString(preferred));
        }
        long timeout = !p.isSet(QUEUE_TIMEOUT_MS) || p.is(QUEUE_TIMEOUT_MS, TIMEOUT_SLO)
                ? AT_DEADLINE : p.millisAsMicros(QUEUE_TIMEOUT_MS, 0);
        return new Batching(maxBatch, delay, preferred, timeout);
    }

    /** The batching of the group and of the models that override it. */
    public PerModel<Batching> batching() {
        return batching;
    }

    /** Parameter {@code lookahead_ms}: how long before its predicted end a busy device counts as idle. */
    public long lookaheadMicros() {
        return lookahead;
    }

    @Override
    public long schedule(long now, GroupView group) {
        rejectTimedOut(now, group);
        // Devices are looked at as of `ready`: idle then means fed now, ahead of the lookahead.
        long ready = Micros.saturatedAdd(now, lookahead);
        if (!IdleDevices.anyIdle(ready, group)) return Math.min(ahead(IdleDevices.nextFree(group)), nextTimeout(group));
        long wake = NO_WAKE;
        boolean uniform = group.everyDeviceHoldsEveryModel();
        List<RequestQueue> queues;
        Rest rest = null;
        if (uniform && batching.models().isEmpty()) {
            queues = new ArrayList<>();
            rest = front(now, ready, group, queues);
            wake = rest.release();
        } else {
            queues = new ArrayList<>(group.pendingQueues());
            // Oldest waiting model first, so that no model starves another of idle devices.
            queues.sort(Comparator.comparingLong(RequestQueue::oldestArrival));
        }
        for (RequestQueue q : queues) {
            String model = q.model();
            Batching b = batching.of(model);
            int maxBatch = Math.min(b.maxBatch(), q.profile().maxBatch());
            while (!q.isEmpty()) {
                int size = batchSize(q.size(), maxBatch, b.preferred);
                if (size == 0) {
                    long releaseAt = q.oldestArrival() + b.maxQueueDelayMicros();
                    if (now < releaseAt) {
                        wake = Math.min(wake, releaseAt);
                        break;
                    }
                    size = Math.min(q.size(), maxBatch);
                }
                DeviceView idle = uniform ? IdleDevices.idleAny(ready, group) : IdleDevices.idleFor(ready, group, q);
                if (idle == null) {
                    wake = Math.min(wake, ahead(uniform ? IdleDevices.nextFree(group) : IdleDevices.nextFreeFor(now, group, q)));
                    break;
                }
                group.dispatch(q, size, idle, now);
            }
        }
        // The queues behind the front that would ask for a device find none, now that the front has them.
        if (rest != null && rest.asks()) wake = Math.min(wake, ahead(IdleDevices.nextFree(group)));
        return Math.min(wake, nextTimeout(group));
    }

    /** When a device freeing at {@code freeAt} counts as idle: the lookahead before it. */
    private long ahead(long freeAt) {
        return freeAt == NO_WAKE ? NO_WAKE : freeAt - lookahead;
    }


    /** What the queues behind the front ask for: the first release of a delay, and whether one would take a device. */
    private record Rest(long release, boolean asks) {}

    /**
     * The same order, oldest waiting model first, when every device holds every model and every
     * model batches alike, without sorting thousands of queues on every call: fills {@code front}
     * with the queues that the idle devices can reach, in that order, and returns what the others
     * ask for. Each queue that does not wait for its delay takes at least one idle
     * device, so past the first {@code idle} of them every queue finds none: it asks again when
     * the first device frees, or, waiting, when its delay ends. The queues still in their delay
     * are the last in the order (their oldest request came less than a delay ago), and the
     * earliest of their releases is the first of them.
     */
    private Rest front(long now, long ready, GroupView group, List<RequestQueue> front) {
        Batching b = batching.group();
        int idle = 0;
        for (DeviceView d : group.devices()) {
            if (d.freeAtMicros() <= ready) idle++;
        }
        OrderedQueues order = group.index(ArrivalOrder.class, ArrivalOrder.BY_OLDEST, ArrivalOrder::byOldest).queues();
        int served = 0;
        RequestQueue rest = null;
        for (RequestQueue q : order) {
            if (served == idle) {
                rest = q;
                break;
            }
            front.add(q);
            if (!waits(now, q, b)) served++;
        }
        if (rest == null) return new Rest(NO_WAKE, false);
        boolean asks = !waits(now, rest, b);
        long release = NO_WAKE;
        for (Iterator<RequestQueue> back = order.descendingIterator(); back.hasNext(); ) {
            RequestQueue q = back.next();
            if (now >= q.oldestArrival() + b.maxQueueDelayMicros()) break; // released, and so are the ones before it
            if (waits(now, q, b)) release = q.oldestArrival() + b.maxQueueDelayMicros();
            else asks = true;
            if (q == rest) break;
        }
        return new Rest(release, asks);
    }

    /** Whether {@code q} waits for more requests or for its delay to end, rather than asking for a device now. */
    private static boolean waits(long now, RequestQueue q, Batching b) {
        int maxBatch = Math.min(b.maxBatch(), q.profile().maxBatch());
        return batchSize(q.size(), maxBatch, b.preferred) == 0 && now < q.oldestArrival() + b.maxQueueDelayMicros();
    }

    /**
     * The batch Triton forms at once from {@code queued} requests, or 0 to wait for the delay: the
     * largest preferred size (or the maximum) when the queue reaches it, else the largest preferred
     * size the queue holds.
     */
    static int batchSize(int queued, int maxBatch, int[] preferred) {
        int largest = maxBatch;
        for (int i = preferred.length - 1; i >= 0; i--) {
            if (preferred[i] <= maxBatch) {
                largest = preferred[i];
                break;
            }
        }
        if (queued >= largest) return largest;
        for (int i = preferred.length - 1; i >= 0; i--) {
            if (preferred[i] <= queued) return preferred[i];
        }
        return 0;
    }

    /** Drops every model's requests that waited their timeout. */
    private void rejectTimedOut(long now, GroupView group) {
        List<RequestQueue> expiring = new ArrayList<>(0);
        if (allAtDeadline) {
            // Queues come in order of their head's latest start alone, which is before its deadline:
            // past the first queue whose latest start is after now, no head has reached its deadline.
            for (RequestQueue q : group.pendingQueues()) {
                if (q.latestStartAlone() > now) break;
                if (q.headDeadline() <= now) expiring.add(q);
            }
        } else if (uniformTimeout == NEVER) {
            return;
        } else if (uniformTimeout != VARIES) {
            // Queues in order of their head's arrival: past the first head that has not waited the
            // timeout, none has.
            for (RequestQueue q : byHeadArrival(group)) {
                if (expiry(q.peek(), uniformTimeout) > now) break;
                expiring.add(q);
            }
        } else {
            for (String model : group.modelsWithPending()) {
                long timeout = batching.of(model).queueTimeoutMicros();
                RequestQueue q = group.queue(model);
                if (timeout != NEVER && expiry(q.peek(), timeout) <= now) expiring.add(q);
            }
        }
        for (RequestQueue q : expiring) {
            long timeout = batching.of(q.model()).queueTimeoutMicros();
            int expired = 0;
            while (expired < q.size() && expiry(q.get(expired), timeout) <= now) expired++;
            group.reject(q, expired, timeout == AT_DEADLINE
                    ? "queue timeout: still queued at its deadline (Triton's queue policy, timeout = SLO)"
                    : "queue timeout: queued longer than " + timeout / 1000.0 + " ms (Triton's queue policy)");
        }
    }

    /** When the next queued request will have waited its timeout. */
    private long nextTimeout(GroupView group) {
        long next = NO_WAKE;
        if (allAtDeadline) {
            // The earliest head deadline: a queue whose latest start alone is past the best deadline so
            // far has its deadline later still, and so have the queues after it.
            for (RequestQueue q : group.pendingQueues()) {
                if (q.latestStartAlone() >= next) break;
                next = Math.min(next, q.headDeadline());
            }
            return next;
        }
        if (uniformTimeout == NEVER) return NO_WAKE;
        if (uniformTimeout != VARIES) {
            OrderedQueues order = byHeadArrival(group);
            return order.isEmpty() ? NO_WAKE : expiry(order.first().peek(), uniformTimeout);
        }
        for (String model : group.modelsWithPending()) {
            long timeout = batching.of(model).queueTimeoutMicros();
            if (timeout != NEVER) next = Math.min(next, expiry(group.queue(model).peek(), timeout));
        }
        return next;
    }

    /** The pending queues, their head's arrival first. */
    private static OrderedQueues byHeadArrival(GroupView group) {
        return group.index(ArrivalOrder.class, ArrivalOrder.BY_HEAD, ArrivalOrder::byHead).queues();
    }

    private static long expiry(Request r, long timeout) {
        if (timeout == AT_DEADLINE) return r.deadlineMicros();
        return Micros.saturatedAdd(r.arrivalMicros(), timeout); // a timeout of centuries never fires
    }
}
