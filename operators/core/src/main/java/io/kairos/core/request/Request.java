package io.kairos.core.request;

import io.kairos.core.api.PublicEvolving;

/**
 * A request as the scheduler sees it: which model, when it arrived, when it must be done, and,
 * for a window SLO, the earliest it may be done ({@link #windowStartMicros}).
 *
 * <p>{@code payload} is whatever the engine carries along with the request (in Flink, the decoded
 * request with its tensor; in the simulator, nothing). Policies never look at it.
 */
@PublicEvolving
public final class Request {
    private final String id;
    private final String model;
    private final long arrivalMicros;
    private final long deadlineMicros;
    private final long windowStartMicros;
    private final Object payload;

    /** A request's {@link #windowStartMicros} when it has no window: no lower bound. */
    public static final long NO_WINDOW = Long.MIN_VALUE;

    public Request(String id, String model, long arrivalMicros, long deadlineMicros, Object payload) {
        this(id, model, arrivalMicros, deadlineMicros, NO_WINDOW, payload);
    }

    /** @param windowStartMicros the answer is wanted no earlier than this; {@link #NO_WINDOW}: any time up to the deadline */
    public Request(String id, String model, long arrivalMicros, long deadlineMicros, long windowStartMicros, Object payload) {
        this.id = id;
        this.model = model;
        this.arrivalMicros = arrivalMicros;
        this.deadlineMicros = deadlineMicros;
        this.windowStartMicros = windowStartMicros;
        this.payload = payload;
    }

    public String id() {
        return id;
    }

    public String model() {
        return model;
    }

    public long arrivalMicros() {
        return arrivalMicros;
    }

    public long deadlineMicros() {
        return deadlineMicros;
    }

    /** The start of the request's window SLO: done before it is early, a miss; {@link #NO_WINDOW} when it has none. */
    public long windowStartMicros() {
        return windowStartMicros;
    }

    public boolean hasWindow() {
        return windowStartMicros != NO_WINDOW;
    }

    @SuppressWarnings("unchecked")
    public <T> T payload() {
        return (T) payload;
    }

    @Override
    public String toString() {
        return id + "(" + model + ", deadline " + deadlineMicros + ")";
    }
}
