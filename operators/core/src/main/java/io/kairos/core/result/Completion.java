package io.kairos.core.result;

import io.kairos.core.api.Internal;
import io.kairos.core.request.Request;

/**
 * How a request that ran is judged by when it was done: OK within its SLO, LATE after its
 * deadline, EARLY before its window start (a window SLO, {@link Request#windowStartMicros}). One
 * rule for the job's results and the simulator's outcomes alike.
 */
@Internal
public final class Completion {
    private Completion() {}

    /** OK when {@code windowStart <= end <= deadline}; LATE after the deadline; EARLY before the window start. */
    public static ResultStatus status(long endMicros, long windowStartMicros, long deadlineMicros) {
        if (endMicros > deadlineMicros) return ResultStatus.LATE;
        if (endMicros < windowStartMicros) return ResultStatus.EARLY;
        return ResultStatus.OK;
    }

    /** Why a request done at {@code endMicros} is EARLY. */
    public static String earlyReason(long endMicros, long windowStartMicros) {
        return "done " + (windowStartMicros - endMicros) + " us before its window start (window_start_ms): its batch ran faster than its model's profile";
    }
}
