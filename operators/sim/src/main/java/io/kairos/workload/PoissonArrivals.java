package io.kairos.workload;

import java.util.SplittableRandom;

/**
 * A Poisson process: arrivals independent of each other, exponentially distributed gaps. The usual
 * model of many independent clients (Clockwork, Shepherd and InferLine all evaluate with it).
 */
public record PoissonArrivals(double ratePerSecond) implements ArrivalProcess {

    public PoissonArrivals {
        ArrivalProcess.checkRate(ratePerSecond);
    }

    @Override
    public double meanRatePerSecond() {
        return ratePerSecond;
    }

    @Override
    public Gaps start(SplittableRandom random) {
        double meanGapMicros = 1_000_000.0 / ratePerSecond;
        ContinuousClock clock = new ContinuousClock();
        // Inverse transform: -ln(U) with U in (0, 1]; 1 - nextDouble() avoids ln(0).
        return () -> clock.advanceBy(-Math.log(1.0 - random.nextDouble()) * meanGapMicros);
    }

    @Override
    public String toString() {
        return "poisson(" + ratePerSecond + "/s)";
    }
}
