package io.kairos.core.scheduling;


import io.kairos.core.api.Internal;
import java.util.Collection;
import java.util.Iterator;

/**
 * Pending queues in an order the scheduler keeps ({@link ArrivalOrder},
 * kept for a policy through {@link GroupView#index}): read-only, a live view, iterated from either end.
 */
@Internal
public interface OrderedQueues extends Collection<RequestQueue> {

    /** The first queue of the order; throws {@link java.util.NoSuchElementException} when there is none. */
    RequestQueue first();

    /** From the last queue of the order to the first. */
    Iterator<RequestQueue> descendingIterator();
}
