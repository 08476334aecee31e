package io.kairos.sim;

import io.kairos.schema.ControlDecision;

/**
 * A control decision, as the job receives it on its control topic, that a simulation applies at
 * a virtual time: a planner's or tuner's output replayed against the simulated plan.
 */
public record TimedDecision(long atMicros, ControlDecision decision) {
    public TimedDecision {
        if (atMicros < 0) throw new IllegalArgumentException("a decision's time must not be negative, got " + atMicros + " us");
        if (decision == null) throw new IllegalArgumentException("a timed decision needs a decision");
    }
}
