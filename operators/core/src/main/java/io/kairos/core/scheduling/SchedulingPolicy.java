package io.kairos.core.scheduling;

import io.kairos.core.api.PublicEvolving;

/**
 * Decides which batches start, on which device, now. Plain Java: it is handed the time and the
 * group, and never reads a clock, starts a thread or touches an engine, so that the Flink
 * scheduler operator and the simulator run the very same object.
 *
 * <p>A policy's parameters are typed fields, read once by {@link #configure}; {@link #schedule}
 * only reads them.
 */
@PublicEvolving
public interface SchedulingPolicy {

    /** Sentinel for "no need to ask me again until something arrives". */
    long NO_WAKE = Long.MAX_VALUE;

    /**
     * Dispatches, through {@link GroupView#dispatch}, every batch that should start now, and
     * returns the time it next wants to be asked even if nothing arrives ({@link #NO_WAKE} if never).
     */
    long schedule(long nowMicros, GroupView group);

    /** The name it is selected by in configuration and control decisions. */
    String name();

    /**
     * This policy with its parameters read from {@code params} (asking for every key it has, so
     * that the reader knows them); a parameter not set takes the policy's default, not this
     * instance's value, since a decision replaces a group's parameters. Whatever else this one
     * holds may carry over. The default: a policy without parameters.
     *
     * @throws IllegalArgumentException for a bad value, from the reader
     */
    default SchedulingPolicy configure(ParamReader params) {
        return this;
    }
}
