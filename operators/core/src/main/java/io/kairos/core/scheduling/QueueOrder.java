package io.kairos.core.scheduling;


import java.util.AbstractCollection;
import java.util.Arrays;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * The pending queues of a serving group in the order of their head's latest start alone, then
 * model name ({@link RequestQueue#latestStartKey}, as each queue had it when it joined), or first
 * by their head's or oldest arrival ({@link By}): a sorted list cut into blocks of at most {@value #BLOCK}, each block's keys in an array beside it.
 *
 * <p>Why not a {@link java.util.TreeSet}: with thousands of queues (the Azure workload: 4,026) a
 * red-black tree cost a cache miss per level on every join and leave, a walk down its left spine
 * for every first and every scan's start, and a node per step of a scan. Here a join or leave is
 * two binary searches over arrays and a shift within one block, the first queue is at hand, and a
 * scan walks arrays.
 *
 * <p>What a policy sees ({@link GroupView#pendingQueues}): read-only (adding or removing through
 * it throws), and, as the tree's views were, fail-fast: an iterator's {@code next} after the order
 * changed throws {@link ConcurrentModificationException}. The scheduler changes it with
 * {@link #join}, {@link #leave} and {@link #reset}.
 */
final class QueueOrder extends AbstractCollection<RequestQueue> implements OrderedQueues {
    private static final int BLOCK = 64;

    /** What a queue is ordered by first; ties by its latest start alone, then by model. */
    enum By { LATEST_START, HEAD_ARRIVAL, OLDEST_ARRIVAL }

    private final By by;

    private RequestQueue[][] queues = new RequestQueue[8][];
    private long[][] keys = new long[8][];
    private int[] counts = new int[8];
    private int blocks;
    private int size;
    private int changes;

    /** By latest start alone, then model. */
    QueueOrder() {
        this(By.LATEST_START);
    }

    QueueOrder(By by) {
        this.by = by;
    }

    private long keyOf(RequestQueue q) {
        return switch (by) {
            case LATEST_START -> q.latestStartKey();
            case HEAD_ARRIVAL -> q.headArrivalKey();
            case OLDEST_ARRIVAL -> q.oldestArrivalKey();
        };
    }

    private int compare(long keyA, RequestQueue a, long keyB, RequestQueue b) {
        int c = Long.compare(keyA, keyB);
        if (c != 0) return c;
        if (by != By.LATEST_START) {
            c = Long.compare(a.latestStartKey(), b.latestStartKey());
            if (c != 0) return c;
        }
        return a.model().compareTo(b.model());
    }

    /** Adds {@code q} at its place by its order key; false if it is there already. */
    boolean join(RequestQueue q) {
        long key = keyOf(q);
        if (blocks == 0) insertBlock(0);
        int b = blockOf(key, q);
        int i = indexIn(b, key, q);
        if (i >= 0) return false;
        i = -i - 1;
        if (counts[b] == BLOCK) {
            split(b);
            if (i > BLOCK / 2) {
                b++;
                i -= BLOCK / 2;
            }
        }
        int n = counts[b];
        System.arraycopy(queues[b], i, queues[b], i + 1, n - i);
        System.arraycopy(keys[b], i, keys[b], i + 1, n - i);
        queues[b][i] = q;
        keys[b][i] = key;
        counts[b] = n + 1;
        size++;
        changes++;
        return true;
    }

    /** Takes {@code q} out, found by the order key it joined with; false if it is not here. */
    boolean leave(RequestQueue q) {
        if (blocks == 0) return false;
        long key = keyOf(q);
        int b = blockOf(key, q);
        int i = indexIn(b, key, q);
        if (i < 0 || queues[b][i] != q) return false;
        int n = counts[b] - 1;
        System.arraycopy(queues[b], i + 1, queues[b], i, n - i);
        System.arraycopy(keys[b], i + 1, keys[b], i, n - i);
        queues[b][n] = null;
        counts[b] = n;
        if (n == 0) removeBlock(b);
        size--;
        changes++;
        return true;
    }

    /** Empties it. */
    void reset() {
        for (int b = 0; b < blocks; b++) {
            queues[b] = null;
            keys[b] = null;
            counts[b] = 0;
        }
        blocks = 0;
        size = 0;
        changes++;
    }

    @Override
    public RequestQueue first() {
        if (size == 0) throw new NoSuchElementException("no pending queue");
        return queues[0][0];
    }

    @Override
    public Iterator<RequestQueue> descendingIterator() {
        return new Iterator<>() {
            private final int expected = changes;
            private int block = blocks - 1;
            private int index = blocks == 0 ? -1 : counts[blocks - 1] - 1;
            private boolean more = size > 0;

            @Override
            public boolean hasNext() {
                return more;
            }

            @Override
            public RequestQueue next() {
                if (expected != changes) throw new ConcurrentModificationException();
                if (block < 0) throw new NoSuchElementException();
                RequestQueue q = queues[block][index];
                if (--index < 0) {
                    block--;
                    index = block < 0 ? -1 : counts[block] - 1;
                }
                more = block >= 0;
                return q;
            }
        };
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public boolean contains(Object o) {
        if (!(o instanceof RequestQueue q) || blocks == 0) return false;
        long key = keyOf(q);
        int b = blockOf(key, q);
        int i = indexIn(b, key, q);
        return i >= 0 && queues[b][i] == q;
    }

    /** The queues of ranks {@code from}, {@code from + 1}, ... into {@code into}, as many as fit; returns how many. */
    int copy(int from, RequestQueue[] into) {
        int n = 0;
        int skip = from;
        for (int b = 0; b < blocks && n < into.length; b++) {
            int count = counts[b];
            if (skip >= count) {
                skip -= count;
                continue;
            }
            int take = Math.min(count - skip, into.length - n);
            System.arraycopy(queues[b], skip, into, n, take);
            n += take;
            skip = 0;
        }
        return n;
    }

    @Override
    public Iterator<RequestQueue> iterator() {
        return new Iterator<>() {
            private final int expected = changes;
            private int block;
            private int index;
            // Whether an element was next when the iterator last moved: what hasNext answers, as a
            // tree's iterator does, even after the order changed (next() then throws).
            private boolean more = size > 0;

            @Override
            public boolean hasNext() {
                return more;
            }

            @Override
            public RequestQueue next() {
                if (expected != changes) throw new ConcurrentModificationException();
                if (block >= blocks) throw new NoSuchElementException();
                RequestQueue q = queues[block][index];
                if (++index == counts[block]) {
                    block++;
                    index = 0;
                }
                more = block < blocks;
                return q;
            }
        };
    }

    // The block where an entry of this key belongs: the first whose last entry is not before it,
    // or the last block.
    private int blockOf(long key, RequestQueue q) {
        int lo = 0;
        int hi = blocks - 1;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            int last = counts[mid] - 1;
            if (compare(keys[mid][last], queues[mid][last], key, q) < 0) lo = mid + 1;
            else hi = mid;
        }
        return lo;
    }

    // The index of the entry in block b that compares equal, or -(where it would go) - 1.
    private int indexIn(int b, long key, RequestQueue q) {
        long[] k = keys[b];
        RequestQueue[] e = queues[b];
        int lo = 0;
        int hi = counts[b] - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int c = compare(k[mid], e[mid], key, q);
            if (c < 0) lo = mid + 1;
            else if (c > 0) hi = mid - 1;
            else return mid;
        }
        return -(lo + 1);
    }

    // Moves the second half of a full block b into a new block after it.
    private void split(int b) {
        insertBlock(b + 1);
        int half = BLOCK / 2;
        System.arraycopy(queues[b], half, queues[b + 1], 0, BLOCK - half);
        System.arraycopy(keys[b], half, keys[b + 1], 0, BLOCK - half);
        Arrays.fill(queues[b], half, BLOCK, null);
        counts[b + 1] = BLOCK - half;
        counts[b] = half;
    }

    private void insertBlock(int at) {
        if (blocks == queues.length) {
            queues = Arrays.copyOf(queues, blocks * 2);
            keys = Arrays.copyOf(keys, blocks * 2);
            counts = Arrays.copyOf(counts, blocks * 2);
        }
        System.arraycopy(queues, at, queues, at + 1, blocks - at);
        System.arraycopy(keys, at, keys, at + 1, blocks - at);
        System.arraycopy(counts, at, counts, at + 1, blocks - at);
        queues[at] = new RequestQueue[BLOCK];
        keys[at] = new long[BLOCK];
        counts[at] = 0;
        blocks++;
    }

    private void removeBlock(int b) {
        System.arraycopy(queues, b + 1, queues, b, blocks - b - 1);
        System.arraycopy(keys, b + 1, keys, b, blocks - b - 1);
        System.arraycopy(counts, b + 1, counts, b, blocks - b - 1);
        blocks--;
        queues[blocks] = null;
        keys[blocks] = null;
        counts[blocks] = 0;
    }
}
