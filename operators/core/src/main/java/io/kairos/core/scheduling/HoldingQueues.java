package io.kairos.core.scheduling;


import io.kairos.core.api.Internal;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The pending queues holding at least {@code n} requests, or a full batch of their model (its
 * largest allowed size) if that is fewer; in no particular order: the only queues a policy that
 * serves whole batches only (static batching) can serve.
 */
@Internal
public final class HoldingQueues implements QueueIndex {
    private final int n;
    private final Set<RequestQueue> holding = new LinkedHashSet<>();
    private final Collection<RequestQueue> view = Collections.unmodifiableSet(holding);

    public HoldingQueues(int n) {
        this.n = n;
    }

    /** The queues holding enough: a live view. */
    public Collection<RequestQueue> queues() {
        return view;
    }

    private int enough(RequestQueue q) {
        return Math.min(n, q.profile().maxBatch());
    }

    @Override
    public void fill(Collection<RequestQueue> pending, Collection<RequestQueue> batchable) {
        for (RequestQueue q : pending) {
            if (q.size() >= enough(q)) holding.add(q);
        }
    }

    @Override
    public void joined(RequestQueue q) {}

    @Override
    public void left(RequestQueue q) {}

    @Override
    public void added(RequestQueue q, boolean newHead) {
        if (q.size() == enough(q)) holding.add(q);
    }

    @Override
    public void shrunk(RequestQueue q) {
        if (q.size() < enough(q)) holding.remove(q);
    }

    @Override
    public void clear() {
        holding.clear();
    }
}
