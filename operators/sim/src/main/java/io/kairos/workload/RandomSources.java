package io.kairos.workload;

import org.apache.commons.rng.UniformRandomProvider;

import java.util.SplittableRandom;

/** Bridges the JDK's seeded random source to the samplers of Commons RNG. */
final class RandomSources {
    private RandomSources() {}

    /**
     * A Commons RNG view of {@code random}: every method of {@link UniformRandomProvider} is
     * derived from {@code nextLong}, so drawing through the view advances {@code random} itself and
     * the gaps stay a function of the seed alone.
     */
    static UniformRandomProvider uniform(SplittableRandom random) {
        return random::nextLong;
    }
}
