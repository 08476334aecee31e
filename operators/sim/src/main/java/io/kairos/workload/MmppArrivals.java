package io.kairos.workload;

import java.util.SplittableRandom;

/**
 * A two-state Markov-modulated Poisson process: the stream is in a normal or a burst state, each
 * with its own Poisson rate, and stays in a state for an exponentially distributed time with the
 * state's mean sojourn before it switches to the other. Unlike {@link GammaArrivals} the gaps are
 * correlated: short gaps come in runs, the way a burst of load looks to a server.
 *
 * <p>{@link #withCv2} builds one from the two numbers a workload is usually described by, a mean
 * rate and the squared coefficient of variation of the gaps; {@link #gapCv2} is the exact CV² of
 * the gaps of any instance.
 *
 * @param normalRatePerSecond arrivals per second in the normal state (may be 0: an on/off process)
 * @param burstRatePerSecond  arrivals per second in the burst state
 * @param normalMeanSeconds   mean time in the normal state before a burst
 * @param burstMeanSeconds    mean length of a burst
 */
public record MmppArrivals(double normalRatePerSecond, double burstRatePerSecond,
                           double normalMeanSeconds, double burstMeanSeconds) implements ArrivalProcess {

    /** Share of the time {@link #withCv2} spends in bursts. */
    public static final double BURST_TIME_FRACTION = 0.1;
    /** Mean length of one normal period plus one burst in {@link #withCv2}, in mean gaps of the whole stream. */
    public static final double CYCLE_MEAN_GAPS = 1000;
    /**
     * The CV² that {@link #withCv2} approaches as the normal rate goes to 0, and cannot reach:
     * {@code 1 + 2 * CYCLE_MEAN_GAPS * (1 - BURST_TIME_FRACTION)^2}, the CV² of the on/off process
     * with these sojourns.
     */
    public static final double MAX_CV2 = 1 + 2 * CYCLE_MEAN_GAPS * (1 - BURST_TIME_FRACTION) * (1 - BURST_TIME_FRACTION);

    public MmppArrivals {
        if (!(normalRatePerSecond >= 0) || !(burstRatePerSecond >= 0) || Double.isInfinite(normalRatePerSecond)
                || Double.isInfinite(burstRatePerSecond) || normalRatePerSecond + burstRatePerSecond == 0) {
            throw new IllegalArgumentException("MMPP rates must be finite, not negative and not both 0, got "
                    + normalRatePerSecond + " and " + burstRatePerSecond + " per second");
        }
        if (!(normalMeanSeconds > 0) || !(burstMeanSeconds > 0) || Double.isInfinite(normalMeanSeconds) || Double.isInfinite(burstMeanSeconds)) {
            throw new IllegalArgumentException("MMPP mean sojourn times must be positive seconds, got "
                    + normalMeanSeconds + " and " + burstMeanSeconds);
        }
    }

    /**
     * An MMPP with this mean rate whose gaps have this squared coefficient of variation, for
     * {@code 1 <= cv2 < }{@link #MAX_CV2}.
     *
     * <p>Parametrisation: bursts take {@link #BURST_TIME_FRACTION} (10 %) of the time, and a
     * normal period plus a burst last {@link #CYCLE_MEAN_GAPS} (1000) mean gaps on average, so at
     * 100 requests per second a burst lasts 1 s and comes every 10 s. What is left free is the
     * ratio of burst to normal rate, found by bisection on the exact {@link #gapCv2}: ratio 1 is the
     * Poisson process (CV² 1), ratio 19 gives CV² 4, ratio 41 gives 8. All times scale with
     * the mean gap, so the shape of the gaps does not depend on the rate.
     */
    public static MmppArrivals withCv2(double ratePerSecond, double cv2) {
        ArrivalProcess.checkRate(ratePerSecond);
        if (!(cv2 >= 1) || !(cv2 < MAX_CV2)) {
            throw new IllegalArgumentException("mmpp arrivals need 1 <= cv2 < " + MAX_CV2 + ", got cv2 = " + cv2);
        }
        // gapCv2 grows with the ratio; bisect on its logarithm, from 1 (Poisson) to 1e15 (on/off).
        double lo = 0;
        double hi = Math.log(1e15);
        for (int i = 0; i < 100; i++) {
            double mid = (lo + hi) / 2;
            if (withRatio(ratePerSecond, Math.exp(mid)).gapCv2() < cv2) lo = mid;
            else hi = mid;
        }
        return withRatio(ratePerSecond, Math.exp((lo + hi) / 2));
    }

    private static MmppArrivals withRatio(double ratePerSecond, double burstToNormal) {
        double p = BURST_TIME_FRACTION;
        double normal = ratePerSecond / ((1 - p) + p * burstToNormal);
        double cycleSeconds = CYCLE_MEAN_GAPS / ratePerSecond;
        return new MmppArrivals(normal, normal * burstToNormal, (1 - p) * cycleSeconds, p * cycleSeconds);
    }

    /** Time-weighted mean of the two rates. */
    @Override
    public double meanRatePerSecond() {
        return (normalRatePerSecond * normalMeanSeconds + burstRatePerSecond * burstMeanSeconds) / (normalMeanSeconds + burstMeanSeconds);
    }

    /**
     * The exact squared coefficient of variation of the gaps in the stationary process. The gap
     * after an arrival is phase-type: it starts in a state with probability proportional to the
     * state's share of arrivals, {@code pi_a = pi Lambda / lambda}, and its moments are
     * {@code E[X^k] = k! pi_a (Lambda - Q)^-k 1}, with Q the generator of the state switches and
     * Lambda the diagonal of the rates. The 2x2 inverse is written out.
     */
    public double gapCv2() {
        double l1 = normalRatePerSecond;
        double l2 = burstRatePerSecond;
        double r1 = 1 / normalMeanSeconds; // normal -> burst
        double r2 = 1 / burstMeanSeconds;  // burst -> normal
        double det = l1 * l2 + l1 * r2 + l2 * r1;
        // (Lambda - Q)^-1 = [[l2 + r2, r1], [r2, l1 + r1]] / det
        double a0 = (l2 + r2 + r1) / det;
        double a1 = (r2 + l1 + r1) / det;
        double b0 = ((l2 + r2) * a0 + r1 * a1) / det;
        double b1 = (r2 * a0 + (l1 + r1) * a1) / det;
        double w0 = l1 * normalMeanSeconds; // arrivals per cycle in each state
        double w1 = l2 * burstMeanSeconds;
        double m1 = (w0 * a0 + w1 * a1) / (w0 + w1);
        double m2 = 2 * (w0 * b0 + w1 * b1) / (w0 + w1);
        return m2 / (m1 * m1) - 1;
    }

    @Override
    public Gaps start(SplittableRandom random) {
        return new MmppGaps(this, random);
    }

    @Override
    public String toString() {
        return "mmpp(" + normalRatePerSecond + "/s for " + normalMeanSeconds + " s, " + burstRatePerSecond + "/s for " + burstMeanSeconds + " s)";
    }

    /**
     * One run. It starts in a state drawn with the state's share of time and, since sojourns are
     * exponential, with a fresh sojourn: that is the stationary process from time 0. A candidate
     * gap is drawn at the current state's rate; if it ends before the state does it is the next
     * arrival, otherwise time moves to the switch and, Poisson gaps being memoryless, a new
     * candidate is drawn in the other state.
     */
    private static final class MmppGaps implements Gaps {
        private final SplittableRandom random;
        private final double[] meanGapMicros = new double[2];
        private final double[] meanSojournMicros = new double[2];
        private final ContinuousClock clock = new ContinuousClock();
        private int state;
        private double nowMicros;
        private double stateEndMicros;

        MmppGaps(MmppArrivals p, SplittableRandom random) {
            this.random = random;
            meanGapMicros[0] = 1_000_000.0 / p.normalRatePerSecond; // infinite for a silent state
            meanGapMicros[1] = 1_000_000.0 / p.burstRatePerSecond;
            meanSojournMicros[0] = p.normalMeanSeconds * 1_000_000.0;
            meanSojournMicros[1] = p.burstMeanSeconds * 1_000_000.0;
            state = random.nextDouble() * (p.normalMeanSeconds + p.burstMeanSeconds) < p.normalMeanSeconds ? 0 : 1;
            stateEndMicros = exponential(meanSojournMicros[state]);
        }

        @Override
        public long nextGapMicros() {
            while (true) {
                double at = nowMicros + exponential(meanGapMicros[state]);
                if (at < stateEndMicros) {
                    nowMicros = at;
                    return clock.advanceTo(at);
                }
                nowMicros = stateEndMicros;
                state ^= 1;
                stateEndMicros = nowMicros + exponential(meanSojournMicros[state]);
            }
        }

        private double exponential(double mean) {
            if (mean == Double.POSITIVE_INFINITY) return mean; // a silent state: no arrival before it ends
            return -Math.log(1.0 - random.nextDouble()) * mean;
        }
    }
}
