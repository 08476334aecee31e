package io.kairos.core.scheduling;

import io.kairos.core.api.PublicEvolving;
import io.kairos.core.request.Request;

/**
 * A batch the policy decided to start: model, requests (earliest deadline first), device, and the
 * prediction it was made on, so that what really happens can be compared with it.
 * {@code networkMicros} is how long it travels to a device on another machine before it can start
 * there, and {@code afterMicros} how long its requests take after the device is done (pre- and
 * post-processing left where they came from): both 0 but for a batch a placement sends to a
 * remote device (the registry's), and both modelled by the simulator.
 */
@PublicEvolving
public record Dispatch(String model, Request[] requests, int device, long predictedStartMicros, long predictedLatencyMicros,
                       long networkMicros, long afterMicros) {

    /** A batch that runs where it is placed. */
    public Dispatch(String model, Request[] requests, int device, long predictedStartMicros, long predictedLatencyMicros) {
        this(model, requests, device, predictedStartMicros, predictedLatencyMicros, 0, 0);
    }

    public int size() {
        return requests.length;
    }

    public long predictedEndMicros() {
        return predictedStartMicros + predictedLatencyMicros;
    }
}
