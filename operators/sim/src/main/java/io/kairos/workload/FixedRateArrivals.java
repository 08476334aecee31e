package io.kairos.workload;

import java.util.SplittableRandom;

/**
 * Evenly spaced arrivals: the n-th arrival at {@code n / rate}, rounded to the microsecond. Takes no
 * randomness; useful to separate batching effects from burstiness.
 */
public record FixedRateArrivals(double ratePerSecond) implements ArrivalProcess {

    public FixedRateArrivals {
        ArrivalProcess.checkRate(ratePerSecond);
    }

    @Override
    public double meanRatePerSecond() {
        return ratePerSecond;
    }

    @Override
    public Gaps start(SplittableRandom random) {
        double periodMicros = 1_000_000.0 / ratePerSecond;
        ContinuousClock clock = new ContinuousClock();
        // n * period rather than a running sum, so that no rounding error accumulates.
        long[] n = {0};
        return () -> clock.advanceTo(++n[0] * periodMicros);
    }

    @Override
    public String toString() {
        return "fixed(" + ratePerSecond + "/s)";
    }
}
