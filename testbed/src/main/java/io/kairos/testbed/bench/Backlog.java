package io.kairos.testbed.bench;

import java.util.Arrays;

/**
 * How many requests were in one stage at once, at most: from when each entered it and when it
 * left, as the results' timings tell afterwards (sent to ingested: waiting in Kafka; enqueued to
 * dispatched or shed: waiting in the scheduler). An exit at the instant of an entry counts first.
 */
final class Backlog {
    private long[] entries = new long[1024];
    private long[] exits = new long[1024];
    private int size;

    /** A request in the stage from {@code in} to {@code out}; ignored when either is unknown (null). */
    void add(Long in, Long out) {
        if (in == null || out == null) return;
        if (size == entries.length) {
            entries = Arrays.copyOf(entries, size * 2);
            exits = Arrays.copyOf(exits, size * 2);
        }
        entries[size] = in;
        exits[size] = Math.max(in, out);
        size++;
    }

    /** The most requests in the stage at one instant. */
    int max() {
        long[] in = Arrays.copyOf(entries, size);
        long[] out = Arrays.copyOf(exits, size);
        Arrays.sort(in);
        Arrays.sort(out);
        int inside = 0, most = 0, j = 0;
        for (long t : in) {
            while (j < size && out[j] <= t) {
                j++;
                inside--;
            }
            most = Math.max(most, ++inside);
        }
        return most;
    }
}
