package io.kairos.core.scheduling;

import io.kairos.core.request.Request;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Function;

/**
 * How a serving group takes a request in: into its model's queue, or held for its window, and,
 * when the group is full, which request is turned away. Memory stays bounded whatever the SLOs
 * and the rate.
 */
final class Admission {
    private final String group;
    private final PendingBook book;
    private final LearnedProfiles profiles;
    // The requests with a window SLO waiting for their release.
    private final WindowHold held = new WindowHold();
    private int maxPending = ConfiguredPolicy.DEFAULT_MAX_PENDING;
    private long windowMarginMicros;
    private boolean windowHold = true;
    // Requests turned away because the group was full; handed out by the next step.
    private List<Drop> overflow = new ArrayList<>();

    Admission(String group, PendingBook book, LearnedProfiles profiles) {
        this.group = group;
        this.book = book;
        this.profiles = profiles;
    }

    /** The group's {@code max_pending}, {@code window_margin_ms} and {@code window_hold}, as the policy's parameters give them. */
    void configure(int maxPending, long windowMarginMicros, boolean windowHold) {
        this.maxPending = maxPending;
        this.windowMarginMicros = windowMarginMicros;
        this.windowHold = windowHold;
    }

    int maxPending() {
        return maxPending;
    }

    WindowHold held() {
        return held;
    }

    /**
     * Queues a request of {@code q}'s model. When the group already holds {@code max_pending}
     * requests, the one with the least laxity (the latest start alone: deadline less its model's
     * latency at the smallest batch), this one or the most urgent head, is dropped with a reason
     * starting "queue full": it is the one closest to being shed anyway, and the one that leaves
     * the most time to the others. A request with a window SLO is held until its release instead
     * (see {@link #releaseMicros}), and dropped "queue full" if the group holds {@code max_pending}
     * requests, held ones included: held requests are the last to be dropped for it. With
     * {@code window_hold} false it is queued at once, as any other, and the policy decides when.
     */
    void admit(RequestQueue q, Request request) {
        if (request.hasWindow() && windowHold) {
            long release = releaseMicros(q, request);
            if (release > request.arrivalMicros()) {
                if (book.pending() + held.size() >= maxPending) {
                    overflow.add(new Drop(request, queueFull()));
                    return;
                }
                held.hold(request, release);
                return;
            }
        }
        queue(q, request);
    }

    /**
     * When a request with a window SLO joins its model's queue: its window start less its model's
     * latency at the smallest batch on the group's fastest device for it. A batch of any size that
     * starts then or later ends no earlier than the window start (latency grows with the batch),
     * and waiting longer only ends it later; so every policy alike is kept from answering early
     * by choice, and none needs to know of windows. Until then the request is held, out of every
     * queue, index and state a policy sees. The group parameter {@code window_margin_ms} releases it
     * that much later: a batch that runs faster than its profile (execution noise) then still ends
     * inside the window, at the cost of the margin's time toward the deadline.
     */
    private long releaseMicros(RequestQueue q, Request request) {
        return request.windowStartMicros() - profiles.fastestAlone(q.number()) + windowMarginMicros;
    }

    /** Queues the held requests whose time has come, as arrivals; {@code queueOf} finds each one's queue. */
    void release(long nowMicros, Function<String, RequestQueue> queueOf) {
        for (Request r = held.due(nowMicros); r != null; r = held.due(nowMicros)) queue(queueOf.apply(r.model()), r);
    }

    private void queue(RequestQueue q, Request request) {
        if (book.pending() >= maxPending) {
            RequestQueue urgent = book.active().first();
            if (request.deadlineMicros() - q.profile().latencyAt(0) <= urgent.latestStartAlone()) {
                overflow.add(new Drop(request, queueFull()));
                return;
            }
            overflow.add(new Drop(book.take(urgent, 1)[0], queueFull()));
        }
        book.enqueue(q, request);
    }

    private String queueFull() {
        return "queue full: serving group '" + group + "' holds " + maxPending + " requests (max_pending), and this one had the least laxity";
    }

    /** The requests turned away since the last call. */
    List<Drop> takeOverflow() {
        if (overflow.isEmpty()) return Collections.emptyList();
        List<Drop> out = overflow;
        overflow = new ArrayList<>();
        return out;
    }
}
