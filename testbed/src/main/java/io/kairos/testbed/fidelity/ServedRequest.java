package io.kairos.testbed.fidelity;

import io.kairos.core.result.ResultStatus;

/**
 * One request's fate inside the serving group, in microseconds on one clock: when the scheduler
 * admitted it, its deadline, and when its batch ended ({@code 0} when it was dropped).
 */
record ServedRequest(String model, ResultStatus status, long enqueuedMicros, long deadlineMicros, long endMicros, int batchSize) {

    boolean served() {
        return status == ResultStatus.OK || status == ResultStatus.LATE;
    }

    long latencyMicros() {
        return endMicros - enqueuedMicros;
    }
}
