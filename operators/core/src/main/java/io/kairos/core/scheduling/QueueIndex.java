package io.kairos.core.scheduling;

import io.kairos.core.api.PublicEvolving;
import io.kairos.core.request.Request;

import java.util.Collection;

/**
 * An index of a serving group's pending queues that a policy asks for ({@link GroupView#index})
 * and the scheduler keeps up to date as requests come and go: a policy that needs its queues in
 * another order, or a subset of them, brings the index as a class of its own, and the scheduler
 * keeps it without knowing what it is. The scheduler tells it every change, in this order around
 * a request's arrival: {@link #adding}, then (if the request is the queue's new head) {@link #left}
 * and {@link #joined}, then {@link #added}; around a dispatch or a drop: {@link #left},
 * {@link #shrunk}, then {@link #joined} if the queue still holds requests. A queue whose head or
 * profile changes leaves before and joins after.
 *
 * <p>Changed by the scheduler only; to the policy, read-only.
 */
@PublicEvolving
public interface QueueIndex {

    /** As the index is made: the pending queues in their order, and those of them holding two requests or more. */
    void fill(Collection<RequestQueue> pending, Collection<RequestQueue> batchable);

    /** {@code q} is pending again, or its head or profile changed: it takes its place again. */
    void joined(RequestQueue q);

    /** {@code q} leaves the orders before its head or profile changes, or because it is empty. */
    void left(RequestQueue q);

    /** {@code r} is about to join {@code q}, as its new head or behind it. */
    default void adding(RequestQueue q, Request r, boolean newHead) {}

    /** A request joined {@code q} (and, as its new head, {@code q} joined its orders again). */
    default void added(RequestQueue q, boolean newHead) {}

    /** Requests left {@code q}. */
    default void shrunk(RequestQueue q) {}

    /** Every pending request left the group. */
    void clear();

    /** Whether it orders queues by their oldest arrival, which the scheduler then keeps as each queue joins. */
    default boolean readsOldestArrival() {
        return false;
    }
}
