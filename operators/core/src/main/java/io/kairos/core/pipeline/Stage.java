package io.kairos.core.pipeline;

import io.kairos.core.api.Internal;
import java.io.Serializable;

/**
 * One stage of a pipeline: a name unique in its pipeline and the model that serves it.
 *
 * @param budgetMicros      how long the stage may take, queueing included, counted from when its
 *                          request is admitted; capped by what is left of the request's end-to-end
 *                          deadline. 0: no budget of its own, the stage may use all that is left
 * @param readsRequestInput whether the stage's input is the pipeline request's own input (what the
 *                          client sent) rather than the previous stage's output: the slow model of a
 *                          cascade looks at the same image as the fast one, not at its probabilities
 */
@Internal
public record Stage(String name, String model, long budgetMicros, boolean readsRequestInput) implements Serializable {
    /** The spec's word for {@link #readsRequestInput}: {@code "input": "request"}. */
    public static final String REQUEST_INPUT = "request";
    /** The spec's word for the default: {@code "input": "previous"}, the previous stage's output. */
    public static final String PREVIOUS_OUTPUT = "previous";

    public Stage {
        if (budgetMicros < 0) throw new PipelineException("stage '" + name + "': budget must not be negative, got " + budgetMicros + " us");
    }

    /** A stage that reads the previous stage's output. */
    public Stage(String name, String model, long budgetMicros) {
        this(name, model, budgetMicros, false);
    }

    /** A stage with no budget of its own, reading the previous stage's output. */
    public Stage(String name, String model) {
        this(name, model, 0);
    }

    public boolean hasBudget() {
        return budgetMicros > 0;
    }
}
