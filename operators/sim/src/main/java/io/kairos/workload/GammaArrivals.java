package io.kairos.workload;

import org.apache.commons.rng.sampling.distribution.AhrensDieterMarsagliaTsangGammaSampler;
import org.apache.commons.rng.sampling.distribution.ContinuousSampler;

import java.util.SplittableRandom;

/**
 * A renewal process with Gamma-distributed gaps: independent gaps with mean {@code 1 / rate} and
 * squared coefficient of variation {@code cv2}, the two numbers InferLine describes its arrival
 * processes by. The Gamma shape is {@code k = 1 / cv2}: {@code cv2 = 1} is the Poisson process,
 * below 1 the gaps are more regular, above 1 they are burstier (many short gaps, a few long ones).
 *
 * <p>The gaps come from Commons RNG's sampler: Marsaglia and Tsang's method for {@code k >= 1},
 * Ahrens and Dieter's for {@code k < 1}.
 */
public record GammaArrivals(double ratePerSecond, double cv2) implements ArrivalProcess {

    public GammaArrivals {
        ArrivalProcess.checkRate(ratePerSecond);
        if (!(cv2 > 0) || Double.isInfinite(cv2)) {
            throw new IllegalArgumentException("gamma arrivals need a positive squared coefficient of variation, got cv2 = " + cv2);
        }
    }

    @Override
    public double meanRatePerSecond() {
        return ratePerSecond;
    }

    @Override
    public Gaps start(SplittableRandom random) {
        double meanGapMicros = 1_000_000.0 / ratePerSecond;
        double shape = 1 / cv2;
        // Mean of Gamma(shape, scale) is shape * scale.
        ContinuousSampler gaps = AhrensDieterMarsagliaTsangGammaSampler.of(RandomSources.uniform(random), shape, meanGapMicros / shape);
        ContinuousClock clock = new ContinuousClock();
        return () -> clock.advanceBy(gaps.sample());
    }

    @Override
    public String toString() {
        return "gamma(" + ratePerSecond + "/s, cv2=" + cv2 + ")";
    }
}
