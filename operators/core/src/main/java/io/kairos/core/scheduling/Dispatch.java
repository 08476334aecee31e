package io.kairos.core.scheduling;

import io.kairos.core.request.Request;

/**
 * A batch the policy decided to start: model, requests (earliest deadline first), device, and the
 * prediction it was made on, so that what really happens can be compared with it.
 */
public record Dispatch(String model, Request[] requests, int device, long predictedStartMicros, long predictedLatencyMicros) {

    public int size() {
        return requests.length;
    }

    public long predictedEndMicros() {
        return predictedStartMicros + predictedLatencyMicros;
    }
}
