package io.kairos.core.scheduling;


import io.kairos.core.api.Internal;
import java.util.Collection;
import java.util.function.ToLongFunction;

/**
 * The pending queues holding two requests or more in a {@link QueueHeap} by a key that a policy
 * computes from a queue's head deadline, size and profile (the latest-start policies: the latest
 * start of its largest batch; Flex: its length): an index for a policy that would otherwise
 * compute something of every batchable queue on every call. A queue is keyed again where it joins
 * its orders and when a request joins behind its head, and leaves the heap when it shrinks below two.
 */
@Internal
public final class BatchableHeap implements QueueIndex {
    private final QueueHeap heap;

    public BatchableHeap(ToLongFunction<RequestQueue> key) {
        this.heap = new QueueHeap(key);
    }

    /** The heap: a live view, to be read, never changed, by the policy. */
    public QueueHeap heap() {
        return heap;
    }

    @Override
    public void fill(Collection<RequestQueue> pending, Collection<RequestQueue> batchable) {
        for (RequestQueue q : batchable) heap.add(q);
    }

    @Override
    public void joined(RequestQueue q) {
        if (q.size() >= 2) heap.put(q);
    }

    @Override
    public void left(RequestQueue q) {}

    @Override
    public void added(RequestQueue q, boolean newHead) {
        // One more behind the head: the key may change with the size, seldom (the largest batch it can make).
        if (newHead || q.size() < 2) return;
        if (q.size() == 2) heap.add(q);
        else heap.rekey(q);
    }

    @Override
    public void shrunk(RequestQueue q) {
        if (q.size() < 2) heap.remove(q);
    }

    @Override
    public void clear() {
        heap.clear();
    }
}
