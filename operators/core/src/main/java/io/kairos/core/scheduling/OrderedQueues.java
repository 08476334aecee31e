package io.kairos.core.scheduling;

import io.kairos.core.request.RequestQueue;

import java.util.Collection;
import java.util.Iterator;
import java.util.NavigableSet;
import java.util.AbstractCollection;

/**
 * Pending queues in an order the scheduler keeps ({@link GroupView#queuesByHeadArrival},
 * {@link GroupView#queuesByOldestArrival}): read-only, a live view, iterated from either end.
 */
public interface OrderedQueues extends Collection<RequestQueue> {

    /** The first queue of the order; throws {@link java.util.NoSuchElementException} when there is none. */
    RequestQueue first();

    /** From the last queue of the order to the first. */
    Iterator<RequestQueue> descendingIterator();

    /** A read-only view of {@code set} as ordered queues. */
    static OrderedQueues of(NavigableSet<RequestQueue> set) {
        class View extends AbstractCollection<RequestQueue> implements OrderedQueues {
            @Override
            public RequestQueue first() {
                return set.first();
            }

            @Override
            public Iterator<RequestQueue> descendingIterator() {
                Iterator<RequestQueue> it = set.descendingIterator();
                return new Iterator<>() {
                    @Override
                    public boolean hasNext() {
                        return it.hasNext();
                    }

                    @Override
                    public RequestQueue next() {
                        return it.next();
                    }
                };
            }

            @Override
            public Iterator<RequestQueue> iterator() {
                Iterator<RequestQueue> it = set.iterator();
                return new Iterator<>() {
                    @Override
                    public boolean hasNext() {
                        return it.hasNext();
                    }

                    @Override
                    public RequestQueue next() {
                        return it.next();
                    }
                };
            }

            @Override
            public int size() {
                return set.size();
            }
        }
        return new View();
    }
}
