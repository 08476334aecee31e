package io.kairos.core.pipeline;

import java.io.Serializable;

/**
 * One stage of a pipeline: a name unique in its pipeline and the model that serves it.
 *
 * @param budgetMicros how long the stage may take, queueing included, counted from when its
 *                     request is admitted; capped by what is left of the request's end-to-end
 *                     deadline. 0: no budget of its own, the stage may use all that is left
 */
public record Stage(String name, String model, long budgetMicros) implements Serializable {
    public Stage {
        if (budgetMicros < 0) throw new PipelineException("stage '" + name + "': budget must not be negative, got " + budgetMicros + " us");
    }

    /** A stage with no budget of its own. */
    public Stage(String name, String model) {
        this(name, model, 0);
    }

    public boolean hasBudget() {
        return budgetMicros > 0;
    }
}
