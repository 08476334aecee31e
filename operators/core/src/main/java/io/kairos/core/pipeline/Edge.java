package io.kairos.core.pipeline;

import io.kairos.core.api.Internal;
import java.io.Serializable;

/**
 * A path from one stage to the next that a request may take once {@code from} has its output.
 *
 * @param probability the share of the requests leaving {@code from} that take this edge: the
 *                    chance of the draw for an edge without a condition, the expected share for
 *                    one with a condition (what a planner plans with: the scale factors)
 * @param condition   what the output of {@code from} must satisfy for this edge to be taken;
 *                    null: taken by its probability
 */
@Internal
public record Edge(String from, String to, double probability, StageCondition condition) implements Serializable {

    /** An edge taken by its probability. */
    public Edge(String from, String to, double probability) {
        this(from, to, probability, null);
    }

    public boolean conditional() {
        return condition != null;
    }
}
