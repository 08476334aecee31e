package io.kairos.core.model;

import io.kairos.core.device.ExecutionNoise;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class LatencyEstimatorTest {
    // Sizes 1, 2, 4: 1.0, 1.5, 2.5 ms.
    private static final LatencyProfile PRIOR = new LatencyProfile(new int[]{1, 2, 4}, new long[]{1_000, 1_500, 2_500});

    private static long[] latencies(LatencyProfile p) {
        long[] l = new long[p.batchSizeCount()];
        for (int i = 0; i < l.length; i++) l[i] = p.latencyAt(i);
        return l;
    }

    @Test
    void oneMeasurementSetsItsSizeAndScalesTheUnmeasuredOnes() {
        LatencyEstimator e = new LatencyEstimator(new LatencyEstimator.Settings(4, 50));
        // Size 1 measured 1.2 ms: 1.2 times the prior, so sizes 2 and 4 are taken 1.2 times slower too.
        assertThat(latencies(e.observe("m", PRIOR, 1, 1_200))).containsExactly(1_200, 1_800, 3_000);
        // A batch of 3 runs padded to 4: it measures size 4; size 2 is scaled from its nearest
        // measured neighbour, size 1 (the smaller on a tie).
        assertThat(latencies(e.observe("m", PRIOR, 3, 2_000))).containsExactly(1_200, 1_800, 2_000);
        assertThat(latencies(e.profile("m", PRIOR))).containsExactly(1_200, 1_800, 2_000);
        assertThat(e.profile("other", PRIOR)).isSameAs(PRIOR);
    }

    @Test
    void theEstimateIsThePercentileOfTheLastWindowOfMeasurements() {
        LatencyEstimator median = new LatencyEstimator(new LatencyEstimator.Settings(4, 50));
        for (long us : new long[]{1_200, 1_000, 1_400}) median.observe("m", PRIOR, 1, us);
        // Window [1200, 1000, 1400, 1100], sorted [1000, 1100, 1200, 1400]: the nearest-rank median is the 2nd, 1100.
        assertThat(median.observe("m", PRIOR, 1, 1_100).latencyAt(0)).isEqualTo(1_100);
        // 5000 pushes the oldest (1200) out: [1000, 1100, 1400, 5000], median still 1100: no change.
        assertThat(median.observe("m", PRIOR, 1, 5_000)).isNull();
        assertThat(median.profile("m", PRIOR).latencyAt(0)).isEqualTo(1_100);

        LatencyEstimator p99 = new LatencyEstimator(new LatencyEstimator.Settings(4, 99));
        for (long us : new long[]{1_200, 1_000, 1_400, 1_100}) p99.observe("m", PRIOR, 1, us);
        assertThat(p99.profile("m", PRIOR).latencyAt(0)).as("p99 of 4 is the largest").isEqualTo(1_400);
        // Four more of 1000 push every larger one out of the window.
        for (int i = 0; i < 4; i++) p99.observe("m", PRIOR, 1, 1_000);
        assertThat(p99.profile("m", PRIOR).latencyAt(0)).isEqualTo(1_000);
    }

    @Test
    void measurementsThatMatchThePriorChangeNothing() {
        LatencyEstimator e = new LatencyEstimator(LatencyEstimator.Settings.DEFAULT);
        assertThat(e.observe("m", PRIOR, 2, 1_500)).isNull();
        assertThat(e.observe("m", PRIOR, 1, 1_000)).isNull();
        assertThat(e.profile("m", PRIOR)).isSameAs(PRIOR);
    }

    @Test
    void withNoiseTheEstimateSettlesWithinTheNoisyTruth() {
        // A device 1.3 times slower than profiled, with 10 % noise: after enough batches the estimate
        // of each size lies between the median and the 99.9th percentile of what that size really takes.
        ExecutionNoise noise = ExecutionNoise.lognormal(0.1);
        SplittableRandom random = new SplittableRandom(7);
        LatencyEstimator e = new LatencyEstimator(LatencyEstimator.Settings.DEFAULT);
        for (int i = 0; i < 3_000; i++) {
            int size = 1 << (i % 3);
            e.observe("m", PRIOR, size, noise.actualMicros(Math.round(PRIOR.latencyMicros(size) * 1.3), random));
        }
        LatencyProfile learned = e.profile("m", PRIOR);
        for (int i = 0; i < 3; i++) {
            long[] truth = new long[100_000];
            for (int k = 0; k < truth.length; k++) truth[k] = noise.actualMicros(Math.round(PRIOR.latencyAt(i) * 1.3), random);
            Arrays.sort(truth);
            assertThat(learned.latencyAt(i)).as("size %d", PRIOR.batchSizeAt(i)).isBetween(truth[truth.length / 2], truth[truth.length * 999 / 1000]);
        }
    }
}
