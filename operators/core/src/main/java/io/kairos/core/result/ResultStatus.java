package io.kairos.core.result;

import io.kairos.core.api.Internal;

/**
 * How a request ended: the core's word for it, so that the simulator, the metrics and the
 * completion rule need no wire record. It mirrors the {@code ResultStatus} of the results topic
 * (InferenceResult.avsc) constant for constant, in its order; the wire module converts between
 * the two by name, and its test keeps them equal.
 */
@Internal
public enum ResultStatus {
    /** Done by the deadline (and, with a window, not before its start). */
    OK,
    /** Done after the deadline. */
    LATE,
    /** Shed: the deadline could no longer be met. */
    DROPPED,
    /** Bad input. */
    REJECTED,
    /** An execution error, of the device or of the job. */
    FAILED,
    /** Done before the request's window start: a miss. */
    EARLY
}
