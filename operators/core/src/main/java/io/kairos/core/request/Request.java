package io.kairos.core.request;

/**
 * A request as the scheduler sees it: which model, when it arrived, when it must be done.
 *
 * <p>{@code payload} is whatever the engine carries along with the request (in Flink, the decoded
 * request with its tensor; in the simulator, nothing). Policies never look at it.
 */
public final class Request {
    private final String id;
    private final String model;
    private final long arrivalMicros;
    private final long deadlineMicros;
    private final Object payload;

    public Request(String id, String model, long arrivalMicros, long deadlineMicros, Object payload) {
        this.id = id;
        this.model = model;
        this.arrivalMicros = arrivalMicros;
        this.deadlineMicros = deadlineMicros;
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

    @SuppressWarnings("unchecked")
    public <T> T payload() {
        return (T) payload;
    }

    @Override
    public String toString() {
        return id + "(" + model + ", deadline " + deadlineMicros + ")";
    }
}
