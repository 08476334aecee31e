package io.kairos.examples.policy;

import io.kairos.core.scheduling.PolicyProvider;
import io.kairos.core.scheduling.SchedulingPolicy;

/** Makes {@link LargestQueueFirstPolicy} selectable by its name, listed in {@code META-INF/services}. */
public final class LargestQueueFirstProvider implements PolicyProvider {
    @Override
    public String name() {
        return LargestQueueFirstPolicy.NAME;
    }

    @Override
    public SchedulingPolicy create() {
        return new LargestQueueFirstPolicy();
    }
}
