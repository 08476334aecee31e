package io.kairos.core.scheduling;

import io.kairos.core.api.PublicEvolving;
import io.kairos.core.model.LatencyProfile;
import io.kairos.core.request.Request;

import java.util.Arrays;

/**
 * One model's pending requests, earliest deadline first; ties keep arrival order.
 *
 * <p>An array with a moving head rather than a heap: requests of one model mostly arrive in
 * deadline order, so insertion is an append, and taking a batch from the head is a copy of a
 * contiguous run. Policies read it by index without allocating; only the scheduler's own parts
 * (this package) queue, take and order it: the keys it keeps for them are package-private.
 */
@PublicEvolving
public final class RequestQueue {
    private final String model;
    private LatencyProfile profile;
    private Request[] items = new Request[16];
    private int head;
    private int tail;
    // The earliest arrival queued, or UNKNOWN after it may have left: recomputed on the next ask, so
    // that Triton's batcher, which asks on every schedule, scans once per batch rather than per call.
    private static final long UNKNOWN = Long.MIN_VALUE;
    private long oldestArrival = Long.MAX_VALUE;
    // The scheduler's mark of when the queue last came to hold two requests: an order among such queues.
    private long batchableStamp;
    // The scheduler's number for the queue, where it keeps what else it knows of the model.
    private int number = -1;
    // The keys the scheduler's orders hold the queue under, taken as it joined them (see keepOrderKeys).
    private long latestStartKey;
    private long headArrivalKey;
    private long oldestArrivalKey;

    RequestQueue(String model, LatencyProfile profile) {
        this.model = model;
        this.profile = profile;
    }

    public String model() {
        return model;
    }

    /**
     * The model's latency per batch size on the scheduler's devices (where they are of several
     * hardware types, the slowest type's at each size), kept here so that a policy scanning queues
     * looks nothing up.
     */
    public LatencyProfile profile() {
        return profile;
    }

    /**
     * A corrected profile (the scheduler learned it from measurements). The queue's latest start
     * changes with it: a scheduler that orders queues by it takes the queue out first.
     */
    void setProfile(LatencyProfile profile) {
        this.profile = profile;
    }

    /** When, in the scheduler's count, the queue last came to hold two requests or more. */
    public long batchableStamp() {
        return batchableStamp;
    }

    void setBatchableStamp(long stamp) {
        this.batchableStamp = stamp;
    }

    /** The scheduler's number for this queue (its models in the order they came), or -1. */
    public int number() {
        return number;
    }

    void setNumber(int number) {
        this.number = number;
    }

    /**
     * Takes the keys the scheduler orders the queue by as they are now: its latest start alone,
     * its head's arrival and, if {@code oldest}, its oldest arrival. The scheduler's comparators
     * read these rather than the head request, the profile and the requests behind it, a chain of
     * cache misses per comparison with thousands of queues; it calls this as the queue joins its
     * orders, and leaves them before the keys change.
     */
    void keepOrderKeys(boolean oldest) {
        latestStartKey = latestStartAlone();
        headArrivalKey = items[head].arrivalMicros();
        if (oldest) oldestArrivalKey = oldestArrival();
    }

    /** {@link #latestStartAlone} as {@link #keepOrderKeys} last took it. */
    public long latestStartKey() {
        return latestStartKey;
    }

    /** The head's arrival as {@link #keepOrderKeys} last took it. */
    public long headArrivalKey() {
        return headArrivalKey;
    }

    /** {@link #oldestArrival} as {@link #keepOrderKeys} last took it with {@code oldest}. */
    public long oldestArrivalKey() {
        return oldestArrivalKey;
    }

    public int size() {
        return tail - head;
    }

    public boolean isEmpty() {
        return tail == head;
    }

    /** The i-th earliest-deadline request, 0 being the head. */
    public Request get(int i) {
        if (i < 0 || i >= size()) throw new IndexOutOfBoundsException(i + " of " + size());
        return items[head + i];
    }

    public Request peek() {
        return isEmpty() ? null : items[head];
    }

    public long headDeadline() {
        return items[head].deadlineMicros();
    }

    /** The latest time the head request can start alone (at the smallest batch) and still finish by its deadline. */
    public long latestStartAlone() {
        return headDeadline() - profile.latencyAt(0);
    }

    /** The earliest arrival in the queue (not necessarily the head when SLOs differ). */
    public long oldestArrival() {
        if (oldestArrival == UNKNOWN) {
            long oldest = Long.MAX_VALUE;
            for (int i = head; i < tail; i++) oldest = Math.min(oldest, items[i].arrivalMicros());
            oldestArrival = oldest;
        }
        return oldestArrival;
    }

    void add(Request r) {
        if (tail == items.length) makeRoom();
        long d = r.deadlineMicros();
        int at = tail;
        // Walk back from the tail: the usual case (deadline not earlier than the last one) stops at once.
        while (at > head && items[at - 1].deadlineMicros() > d) at--;
        if (at < tail) System.arraycopy(items, at, items, at + 1, tail - at);
        items[at] = r;
        tail++;
        if (oldestArrival != UNKNOWN) oldestArrival = Math.min(oldestArrival, r.arrivalMicros());
    }

    /** Removes and returns the {@code n} earliest-deadline requests. */
    Request[] take(int n) {
        if (n < 0 || n > size()) throw new IllegalArgumentException("cannot take " + n + " of " + size());
        Request[] batch = Arrays.copyOfRange(items, head, head + n);
        Arrays.fill(items, head, head + n, null);
        head += n;
        if (head == tail) {
            head = tail = 0;
            oldestArrival = Long.MAX_VALUE;
        } else if (oldestArrival != UNKNOWN) {
            for (Request r : batch) {
                if (r.arrivalMicros() == oldestArrival) {
                    oldestArrival = UNKNOWN;
                    break;
                }
            }
        }
        return batch;
    }

    Request poll() {
        return isEmpty() ? null : take(1)[0];
    }

    private void makeRoom() {
        int size = size();
        if (head > 0 && size < items.length / 2) {
            System.arraycopy(items, head, items, 0, size);
            Arrays.fill(items, size, tail, null);
        } else {
            Request[] bigger = new Request[items.length * 2];
            System.arraycopy(items, head, bigger, 0, size);
            items = bigger;
        }
        head = 0;
        tail = size;
    }
}
