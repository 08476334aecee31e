package io.kairos.core.pipeline;

import io.kairos.core.api.Internal;
import java.io.Serializable;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a stage's output must satisfy for a request to take an edge, evaluated in plain Java on
 * the output tensor's floats (the whole output of one request, the batch dimension removed).
 * Written in a pipeline spec as one field: {@code {"output_max_below": 0.8}} or
 * {@code {"output_argmax_in": [3, 7]}}.
 */
@Internal
public sealed interface StageCondition extends Serializable {

    /** Whether {@code output} satisfies it. An empty output satisfies no condition. */
    boolean holds(float[] output);

    /** The condition as the one JSON field of a spec's {@code when}: its name. */
    String field();

    /**
     * The output's largest value is below {@code threshold}: a cascade's "the fast model is
     * unsure" (its top probability under the threshold), after which the slow model is asked.
     * A NaN in the output makes the maximum NaN, which is below nothing: the edge is not taken.
     */
    record OutputMaxBelow(double threshold) implements StageCondition {
        public OutputMaxBelow {
            if (!Double.isFinite(threshold)) throw new IllegalArgumentException("output_max_below must be a finite number, got " + threshold);
        }

        @Override
        public boolean holds(float[] output) {
            if (output.length == 0) return false;
            float max = Float.NEGATIVE_INFINITY;
            for (float v : output) {
                if (Float.isNaN(v)) return false;
                if (v > max) max = v;
            }
            return max < threshold;
        }

        @Override
        public String field() {
            return "output_max_below";
        }
    }

    /**
     * The index of the output's largest value (the first of equal ones) is one of
     * {@code classes}: route by the class the stage found (a detector's "a vehicle" to the plate
     * reader). An output with a NaN has no argmax: the edge is not taken.
     */
    record OutputArgmaxIn(Set<Integer> classes) implements StageCondition {
        public OutputArgmaxIn {
            if (classes.isEmpty()) throw new IllegalArgumentException("output_argmax_in must name at least one class");
            for (int c : classes) {
                if (c < 0) throw new IllegalArgumentException("output_argmax_in: a class index must not be negative, got " + c);
            }
            classes = Set.copyOf(new TreeSet<>(classes));
        }

        /** The classes in ascending order, as written out. */
        public List<Integer> sortedClasses() {
            return List.copyOf(new TreeSet<>(classes));
        }

        @Override
        public boolean holds(float[] output) {
            int argmax = argmax(output);
            return argmax >= 0 && classes.contains(argmax);
        }

        @Override
        public String field() {
            return "output_argmax_in";
        }
    }

    /** The index of the largest value, the first of equal ones; -1 for an empty output or one with a NaN. */
    static int argmax(float[] output) {
        int best = -1;
        for (int i = 0; i < output.length; i++) {
            if (Float.isNaN(output[i])) return -1;
            if (best < 0 || output[i] > output[best]) best = i;
        }
        return best;
    }
}
