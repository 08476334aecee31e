package io.kairos.workload;

import java.util.SplittableRandom;

/**
 * When the requests of one stream arrive: a source of gaps between consecutive arrivals, in
 * microseconds.
 *
 * <p>The process itself is an immutable description (a rate, a shape, a trace); {@link #start}
 * makes the stateful generator of one run from a seeded random source. Processes with memory keep
 * it there: an MMPP remembers its current phase, a replay its position in the trace, and both live
 * in their {@link Gaps}, not here, so one description can drive many independent runs (the load
 * generator, the simulator, a test) at once.
 *
 * <p>Most processes are endless. A replay ends with its trace: its gaps then are {@link #END}.
 */
public interface ArrivalProcess {

    /**
     * The gap that says "no more arrivals": a stream that returns it has ended and returns it on
     * every later call. It is also the largest gap there is, so a merge that orders streams by
     * their next arrival puts an ended stream last without a special case.
     */
    long END = Long.MAX_VALUE;

    /** Long-run mean number of arrivals per second. */
    double meanRatePerSecond();

    /**
     * A fresh generator of gaps for one run. It draws only from {@code random}, so the same seed
     * gives the same gaps.
     */
    Gaps start(SplittableRandom random);

    /** The gaps of one run, stateful and not thread-safe. */
    interface Gaps {
        /**
         * Microseconds from the previous arrival (or from the start of the run) to the next one;
         * never negative. {@link #END} once the stream has ended.
         */
        long nextGapMicros();
    }

    /** Independent arrivals: exponential gaps with mean {@code 1 / ratePerSecond}. */
    static ArrivalProcess poisson(double ratePerSecond) {
        return new PoissonArrivals(ratePerSecond);
    }

    /** Evenly spaced arrivals, {@code 1 / ratePerSecond} apart. */
    static ArrivalProcess fixedRate(double ratePerSecond) {
        return new FixedRateArrivals(ratePerSecond);
    }

    /** Independent gaps, Gamma-distributed with this mean rate and squared coefficient of variation. */
    static ArrivalProcess gamma(double ratePerSecond, double cv2) {
        return new GammaArrivals(ratePerSecond, cv2);
    }

    /** A two-state Markov-modulated Poisson process with this mean rate and CV² of the gaps; see {@link MmppArrivals#withCv2}. */
    static ArrivalProcess mmpp(double ratePerSecond, double cv2) {
        return MmppArrivals.withCv2(ratePerSecond, cv2);
    }

    /** Rejects rates that cannot drive a generator: zero, negative, NaN or infinite. */
    static double checkRate(double ratePerSecond) {
        if (!(ratePerSecond > 0) || Double.isInfinite(ratePerSecond)) {
            throw new IllegalArgumentException("arrival rate must be a positive number of requests per second, got " + ratePerSecond);
        }
        return ratePerSecond;
    }
}
