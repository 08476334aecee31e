package io.kairos.core.scheduling;


import io.kairos.core.api.Internal;
import java.util.Arrays;
import java.util.function.ToLongFunction;

/**
 * Queues in a binary heap by a key that a policy computes from a queue (its head deadline, size
 * and profile): the smallest key at the root, and every queue's key at most its children's, so
 * that a policy finds every queue whose key is below a bound by walking down from the root and
 * leaving a subtree at the first key above it. Kept by the scheduler as queues change (see
 * {@link BatchableHeap}); arrays and a position per queue number, so that the
 * changes of every dispatch and arrival allocate nothing.
 */
@Internal
public final class QueueHeap {
    private final ToLongFunction<RequestQueue> key;
    private RequestQueue[] queues = new RequestQueue[16];
    private long[] keys = new long[16];
    // Each queue's place in the heap plus one, by its number; 0: not in the heap.
    private int[] places = new int[16];
    private int size;

    QueueHeap(ToLongFunction<RequestQueue> key) {
        this.key = key;
    }

    ToLongFunction<RequestQueue> key() {
        return key;
    }

    public int size() {
        return size;
    }

    public boolean isEmpty() {
        return size == 0;
    }

    /** The queue at place {@code i} (0 is the root; the children of i are 2i + 1 and 2i + 2). */
    public RequestQueue at(int i) {
        return queues[i];
    }

    /** The key of the queue at place {@code i}, as computed when it last changed. */
    public long keyAt(int i) {
        return keys[i];
    }

    void add(RequestQueue q) {
        int n = q.number();
        if (n >= places.length) places = Arrays.copyOf(places, Math.max(n + 1, 2 * places.length));
        if (size == queues.length) {
            queues = Arrays.copyOf(queues, 2 * size);
            keys = Arrays.copyOf(keys, 2 * size);
        }
        queues[size] = q;
        keys[size] = key.applyAsLong(q);
        places[n] = size + 1;
        up(size++);
    }

    /** Adds {@code q}, or computes its key again if it is in the heap. */
    void put(RequestQueue q) {
        if (q.number() < places.length && places[q.number()] != 0) {
            rekey(q);
        } else {
            add(q);
        }
    }

    /** Removes {@code q} if it is in the heap. */
    void remove(RequestQueue q) {
        if (q.number() >= places.length || places[q.number()] == 0) return;
        int i = places[q.number()] - 1;
        places[q.number()] = 0;
        int last = --size;
        if (i != last) {
            queues[i] = queues[last];
            keys[i] = keys[last];
            places[queues[i].number()] = i + 1;
            queues[last] = null;
            if (!up(i)) down(i);
        } else {
            queues[last] = null;
        }
    }

    /** Computes the key of {@code q}, in the heap, again, and moves it if it changed. */
    void rekey(RequestQueue q) {
        int i = places[q.number()] - 1;
        long k = key.applyAsLong(q);
        if (k == keys[i]) return;
        keys[i] = k;
        if (!up(i)) down(i);
    }

    void clear() {
        Arrays.fill(queues, 0, size, null);
        Arrays.fill(places, 0);
        size = 0;
    }

    private boolean up(int i) {
        int start = i;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            if (keys[parent] <= keys[i]) break;
            swap(i, parent);
            i = parent;
        }
        return i != start;
    }

    private void down(int i) {
        while (true) {
            int child = 2 * i + 1;
            if (child >= size) return;
            if (child + 1 < size && keys[child + 1] < keys[child]) child++;
            if (keys[i] <= keys[child]) return;
            swap(i, child);
            i = child;
        }
    }

    private void swap(int i, int j) {
        RequestQueue q = queues[i];
        queues[i] = queues[j];
        queues[j] = q;
        long k = keys[i];
        keys[i] = keys[j];
        keys[j] = k;
        places[queues[i].number()] = i + 1;
        places[queues[j].number()] = j + 1;
    }
}
