package io.kairos.control.status;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * Per-second buckets of the last {@code seconds} seconds, by the time a record was received: what
 * a sliding window of a live view is made of. Older buckets are dropped as newer ones come.
 */
final class RecentSeconds<T> {
    static final long SECOND = 1_000_000L;

    private final int seconds;
    private final Supplier<T> empty;
    private final TreeMap<Long, T> buckets = new TreeMap<>();

    RecentSeconds(int seconds, Supplier<T> empty) {
        if (seconds < 1) throw new IllegalArgumentException("the window must be at least 1 s, got " + seconds);
        this.seconds = seconds;
        this.empty = empty;
    }

    int seconds() {
        return seconds;
    }

    /** The bucket of the second {@code receivedAtMicros} falls in; null if that second is older than any window to come. */
    T at(long receivedAtMicros) {
        long second = Math.floorDiv(receivedAtMicros, SECOND);
        long latest = buckets.isEmpty() ? second : Math.max(second, buckets.lastKey());
        long oldestKept = latest - seconds + 1;
        buckets.headMap(oldestKept).clear();
        return second < oldestKept ? null : buckets.computeIfAbsent(second, s -> empty.get());
    }

    /** The buckets of the window that ends at {@code nowMicros}: its second and the {@code seconds - 1} before. */
    List<T> upTo(long nowMicros) {
        List<T> window = new ArrayList<>();
        for (Map.Entry<Long, T> e : buckets.subMap(firstSecond(nowMicros), true, Math.floorDiv(nowMicros, SECOND), true).entrySet()) {
            window.add(e.getValue());
        }
        return window;
    }

    /** The span the window ending at {@code nowMicros} covers, not before {@code startMicros}. */
    long spanMicros(long nowMicros, long startMicros) {
        return Math.max(0, nowMicros - Math.max(firstSecond(nowMicros) * SECOND, startMicros));
    }

    private long firstSecond(long nowMicros) {
        return Math.floorDiv(nowMicros, SECOND) - seconds + 1;
    }
}
