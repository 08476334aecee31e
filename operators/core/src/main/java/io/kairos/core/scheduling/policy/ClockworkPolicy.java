package io.kairos.core.scheduling.policy;

import io.kairos.core.api.Internal;

/**
 * Clockwork's controller (OSDI'20) as the paper runs it: the strategy queue by latest start time
 * ({@link LatestStartPolicy}), a device topped up whenever it has less than 5 ms of work booked, so
 * that the next batch is already there when the current one ends, and whole batches only.
 *
 * <p>Parameters {@code lookahead_ms} (default 5) and {@code efficiency_gain} (default 0: off).
 */
@Internal
public final class ClockworkPolicy extends LatestStartPolicy {
    public static final String NAME = "clockwork";

    public ClockworkPolicy() {
        super(5.0, false, 0);
    }

    private ClockworkPolicy(long lookaheadMicros, double efficiencyGain) {
        super(5.0, false, 0, lookaheadMicros, efficiencyGain);
    }

    @Override
    ClockworkPolicy with(long lookaheadMicros, double efficiencyGain) {
        return new ClockworkPolicy(lookaheadMicros, efficiencyGain);
    }

    @Override
    public String name() {
        return NAME;
    }
}
