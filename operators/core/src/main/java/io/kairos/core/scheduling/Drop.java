package io.kairos.core.scheduling;

import io.kairos.core.api.Internal;
import io.kairos.core.request.Request;

import java.util.function.Supplier;

/**
 * A request shed by the scheduler and why. The reason of the drops that come by the million
 * under overload is written only when asked for: the simulator never reads it.
 */
@Internal
public final class Drop {
    private final Request request;
    private String reason;
    private Supplier<String> why;

    public Drop(Request request, String reason) {
        this.request = request;
        this.reason = reason;
    }

    Drop(Request request, Supplier<String> why) {
        this.request = request;
        this.why = why;
    }

    public Request request() {
        return request;
    }

    public String reason() {
        if (reason == null) {
            reason = why.get();
            why = null;
        }
        return reason;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Drop d && d.request.equals(request) && d.reason().equals(reason());
    }

    @Override
    public int hashCode() {
        return request.hashCode() * 31 + reason().hashCode();
    }

    @Override
    public String toString() {
        return "Drop[request=" + request + ", reason=" + reason() + "]";
    }
}
