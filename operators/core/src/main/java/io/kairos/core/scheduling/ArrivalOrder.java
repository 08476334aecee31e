package io.kairos.core.scheduling;

import io.kairos.core.api.Internal;
import io.kairos.core.request.Request;

import java.util.Collection;

/**
 * The pending queues in order of their head request's arrival (FIFO across models), or of their
 * oldest request's arrival (Triton's batcher serves the model that waited longest first); ties in
 * the order of the pending queues. A queue's place by oldest arrival moves, besides where its head
 * changes, when a request that arrived earlier joins behind its head.
 */
@Internal
public final class ArrivalOrder implements QueueIndex {
    /** The key of the order by head arrival ({@link GroupView#index}). */
    public static final String BY_HEAD = "head arrival";
    /** The key of the order by oldest arrival. */
    public static final String BY_OLDEST = "oldest arrival";

    private final boolean oldest;
    private final QueueOrder order;
    private boolean moving;

    private ArrivalOrder(boolean oldest) {
        this.oldest = oldest;
        this.order = new QueueOrder(oldest ? QueueOrder.By.OLDEST_ARRIVAL : QueueOrder.By.HEAD_ARRIVAL);
    }

    public static ArrivalOrder byHead() {
        return new ArrivalOrder(false);
    }

    public static ArrivalOrder byOldest() {
        return new ArrivalOrder(true);
    }

    /** The queues in this order: a live view, to be read, never changed, by the policy. */
    public OrderedQueues queues() {
        return order;
    }

    @Override
    public void fill(Collection<RequestQueue> pending, Collection<RequestQueue> batchable) {
        for (RequestQueue q : pending) {
            if (oldest) q.keepOrderKeys(true);
            order.join(q);
        }
    }

    @Override
    public void joined(RequestQueue q) {
        order.join(q);
    }

    @Override
    public void left(RequestQueue q) {
        order.leave(q);
    }

    @Override
    public void adding(RequestQueue q, Request r, boolean newHead) {
        // Only the order by oldest arrival moves for an earlier arrival behind the head.
        if (oldest && !newHead && r.arrivalMicros() < q.oldestArrival()) {
            order.leave(q);
            moving = true;
        }
    }

    @Override
    public void added(RequestQueue q, boolean newHead) {
        if (moving) {
            q.keepOrderKeys(true);
            order.join(q);
            moving = false;
        }
    }

    @Override
    public void clear() {
        order.reset();
    }

    @Override
    public boolean readsOldestArrival() {
        return oldest;
    }
}
