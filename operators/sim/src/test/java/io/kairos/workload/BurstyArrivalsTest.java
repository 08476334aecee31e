package io.kairos.workload;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.data.Offset.offset;
import static org.assertj.core.data.Percentage.withPercentage;

/** Gamma and MMPP arrivals: the mean rate and CV² they promise, measured over long runs. */
class BurstyArrivalsTest {

    /** Mean, CV² and lag-1 autocorrelation of {@code n} gaps. */
    private record GapStats(double mean, double cv2, double lag1) {
        static GapStats of(ArrivalProcess p, long seed, int n) {
            ArrivalProcess.Gaps gaps = p.start(new SplittableRandom(seed));
            double sum = 0;
            double sumSq = 0;
            double sumLag = 0;
            double prev = 0;
            for (int i = 0; i < n; i++) {
                long g = gaps.nextGapMicros();
                assertThat(g).isNotNegative().isNotEqualTo(ArrivalProcess.END);
                sum += g;
                sumSq += (double) g * g;
                sumLag += g * prev;
                prev = g;
            }
            double mean = sum / n;
            double var = sumSq / n - mean * mean;
            return new GapStats(mean, var / (mean * mean), (sumLag / n - mean * mean) / var);
        }
    }

    @ParameterizedTest
    @ValueSource(doubles = {0.25, 1, 4, 16})
    void gammaGapsHaveTheAskedMeanAndCv2(double cv2) {
        GapStats s = GapStats.of(new GammaArrivals(1000, cv2), 11, 1_000_000);

        // Relative standard error of the mean is sqrt(cv2 / n) <= 0.4 %, of the variance
        // sqrt((6 cv2 + 2) / n) <= 1 %; the tolerances are several of them.
        assertThat(s.mean()).isCloseTo(1000, withPercentage(2));
        assertThat(s.cv2()).isCloseTo(cv2, withPercentage(5));
        assertThat(s.lag1()).isCloseTo(0, offset(0.01)); // a renewal process: independent gaps
    }

    @Test
    void gammaWithCv2OneIsExponential() {
        ArrivalProcess.Gaps gaps = ArrivalProcess.gamma(1000, 1).start(new SplittableRandom(3));
        int n = 200_000;
        int aboveMean = 0;
        int aboveTwiceMean = 0;
        for (int i = 0; i < n; i++) {
            long g = gaps.nextGapMicros();
            if (g > 1000) aboveMean++;
            if (g > 2000) aboveTwiceMean++;
        }
        // P(X > m) = e^-1 = 0.368, P(X > 2m) = e^-2 = 0.135; sd of the fractions about 0.001.
        assertThat(aboveMean / (double) n).isCloseTo(Math.exp(-1), offset(0.006));
        assertThat(aboveTwiceMean / (double) n).isCloseTo(Math.exp(-2), offset(0.006));
    }

    @Test
    void sameSeedGivesTheSameGaps() {
        for (ArrivalProcess p : new ArrivalProcess[] {ArrivalProcess.gamma(500, 4), ArrivalProcess.mmpp(500, 8)}) {
            ArrivalProcess.Gaps a = p.start(new SplittableRandom(9));
            ArrivalProcess.Gaps b = p.start(new SplittableRandom(9));
            ArrivalProcess.Gaps other = p.start(new SplittableRandom(10));
            long differ = 0;
            for (int i = 0; i < 10_000; i++) {
                long g = a.nextGapMicros();
                assertThat(b.nextGapMicros()).isEqualTo(g);
                if (other.nextGapMicros() != g) differ++;
            }
            assertThat(differ).as(p.toString()).isGreaterThan(9_000);
        }
    }

    @Test
    void mmppFromCv2HitsTheTargetExactlyOnPaper() {
        for (double cv2 : new double[] {1, 1.5, 4, 8, 100, 1000}) {
            MmppArrivals p = MmppArrivals.withCv2(250, cv2);
            assertThat(p.gapCv2()).as("cv2 %s", cv2).isCloseTo(cv2, withPercentage(1e-6));
            assertThat(p.meanRatePerSecond()).isCloseTo(250, withPercentage(1e-9));
            // The parametrisation: bursts 10 % of the time, a cycle 1000 mean gaps (4 s at 250/s).
            assertThat(p.burstMeanSeconds() / (p.normalMeanSeconds() + p.burstMeanSeconds())).isCloseTo(0.1, offset(1e-12));
            assertThat(p.normalMeanSeconds() + p.burstMeanSeconds()).isCloseTo(4.0, offset(1e-12));
            assertThat(p.burstRatePerSecond()).isGreaterThanOrEqualTo(p.normalRatePerSecond());
        }
        MmppArrivals cv4 = MmppArrivals.withCv2(1, 4);
        assertThat(cv4.burstRatePerSecond() / cv4.normalRatePerSecond()).isBetween(18.0, 20.0); // as the javadoc says
    }

    @Test
    void mmppGapCv2MatchesTheClosedFormsItReducesTo() {
        // Equal rates: a Poisson process whatever the sojourns.
        assertThat(new MmppArrivals(7, 7, 0.3, 2).gapCv2()).isCloseTo(1, offset(1e-12));
        // On/off (interrupted Poisson): c^2 = 1 + 2 lambda alpha / (alpha + beta)^2, with alpha
        // the on -> off and beta the off -> on switching rates.
        double lambda = 50;
        double alpha = 1 / 0.4;
        double beta = 1 / 3.0;
        MmppArrivals ipp = new MmppArrivals(0, lambda, 3.0, 0.4);
        assertThat(ipp.gapCv2()).isCloseTo(1 + 2 * lambda * alpha / ((alpha + beta) * (alpha + beta)), withPercentage(1e-9));
        assertThat(ipp.meanRatePerSecond()).isCloseTo(lambda * 0.4 / 3.4, withPercentage(1e-9));
    }

    @ParameterizedTest
    @ValueSource(doubles = {4, 8})
    void mmppGapsOverALongRunHaveTheTargetMeanAndCv2AndComeInRuns(double cv2) {
        // 4,000,000 gaps are about 4,000 burst cycles; across seeds the measured mean spreads by
        // about 1.5 % and the CV² by about 3 %.
        GapStats s = GapStats.of(ArrivalProcess.mmpp(1000, cv2), 5, 4_000_000);

        assertThat(s.mean()).isCloseTo(1000, withPercentage(5));
        assertThat(s.cv2()).isCloseTo(cv2, withPercentage(10));
        assertThat(s.lag1()).isGreaterThan(0.3); // short gaps follow short gaps: bursts, unlike Gamma
    }

    @Test
    void anOnOffMmppRunsAtItsMeanRate() {
        MmppArrivals ipp = new MmppArrivals(0, 5000, 0.9, 0.1);
        GapStats s = GapStats.of(ipp, 2, 2_000_000);

        assertThat(1e6 / s.mean()).isCloseTo(ipp.meanRatePerSecond(), withPercentage(5));
        assertThat(s.cv2()).isCloseTo(ipp.gapCv2(), withPercentage(10));
    }

    @Test
    void badParametersAreRejected() {
        assertThatThrownBy(() -> new GammaArrivals(100, 0)).hasMessage("gamma arrivals need a positive squared coefficient of variation, got cv2 = 0.0");
        assertThatThrownBy(() -> new GammaArrivals(0, 1)).hasMessageContaining("arrival rate must be a positive number");
        assertThatThrownBy(() -> MmppArrivals.withCv2(100, 0.5)).hasMessageStartingWith("mmpp arrivals need 1 <= cv2 < 1621");
        assertThatThrownBy(() -> MmppArrivals.withCv2(100, MmppArrivals.MAX_CV2)).hasMessageStartingWith("mmpp arrivals need");
        assertThatThrownBy(() -> new MmppArrivals(0, 0, 1, 1)).hasMessageContaining("not both 0");
        assertThatThrownBy(() -> new MmppArrivals(1, 2, 0, 1)).hasMessageContaining("sojourn times must be positive");
    }
}
