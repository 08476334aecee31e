package io.kairos.core.scheduling;

import io.kairos.core.request.Request;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * The requests with a window SLO that wait for their release, out of every queue, index and state
 * a policy sees: the earliest release first, then in arrival order. See
 * {@link GroupScheduler#admit} for when a request is held and until when.
 */
final class WindowHold {
    private record Held(long releaseMicros, long sequence, Request request) {}

    private final PriorityQueue<Held> held = new PriorityQueue<>(
            Comparator.comparingLong(Held::releaseMicros).thenComparingLong(Held::sequence));
    private long sequence;

    void hold(Request request, long releaseMicros) {
        held.add(new Held(releaseMicros, sequence++, request));
    }

    /** The next held request whose release is at or before {@code now}, taken out; null when none. */
    Request due(long nowMicros) {
        return !held.isEmpty() && held.peek().releaseMicros() <= nowMicros ? held.poll().request() : null;
    }

    /** When the first held request is released; {@link SchedulingPolicy#NO_WAKE} when none is held. */
    long nextReleaseMicros() {
        return held.isEmpty() ? SchedulingPolicy.NO_WAKE : held.peek().releaseMicros();
    }

    int size() {
        return held.size();
    }

    boolean isEmpty() {
        return held.isEmpty();
    }

    /** Every held request, in no particular order, left held. */
    void addTo(List<Request> all) {
        for (Held h : held) all.add(h.request());
    }

    /** Takes every held request, in no particular order. */
    void drainTo(List<Request> all) {
        addTo(all);
        held.clear();
    }

    /** Takes the held requests of {@code model}, earliest deadline first. */
    List<Request> takeModel(String model) {
        if (held.isEmpty()) return List.of();
        List<Held> mine = new ArrayList<>();
        // One pass (removeIf rebuilds the heap once), not a removal per request, which is linear each.
        held.removeIf(h -> h.request().model().equals(model) && mine.add(h));
        mine.sort(Comparator.comparingLong(h -> h.request().deadlineMicros()));
        List<Request> out = new ArrayList<>(mine.size());
        for (Held h : mine) out.add(h.request());
        return out;
    }
}
