package io.kairos.sim;

import io.kairos.core.request.Request;
import io.kairos.core.result.ResultStatus;
import io.kairos.schema.DecisionOutcome;

/** Hears the fate of every simulated request, warm-up included, as it is decided. */
@FunctionalInterface
public interface FateListener {

    /**
     * @param status    OK, LATE or EARLY when its batch ended, DROPPED when it was shed
     * @param endMicros when its batch ended, or when it was dropped
     * @param batchSize the size of the batch it ran in; 0 when dropped
     */
    void onFate(Request request, ResultStatus status, long endMicros, int batchSize);

    /**
     * A timed control decision was decided at its time, as the job decides it: applied to the
     * plan, rejected with the reason (the plan then unchanged), or a duplicate.
     */
    default void onDecision(TimedDecision decision, DecisionOutcome outcome) {}

    /** Device {@code device} spent {@code [startMicros, endMicros)} loading {@code model}, as the scheduler decided. */
    default void onLoad(int device, String model, long startMicros, long endMicros) {}

    FateListener NONE = (request, status, endMicros, batchSize) -> {};
}
