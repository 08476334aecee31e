package io.kairos.workload;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.data.Percentage.withPercentage;

class AzureLikeTraceTest {

    /** A day of 10,000 functions at 2,000 requests/s: 0.2/s a function on average, as 9,500/s over 46,000 is. */
    private static AzureTrace day;

    @BeforeAll
    static void generate() {
        day = AzureLikeTrace.of(10_000, 2_000, AzureTrace.MINUTES_PER_DAY).generate(1);
    }

    private static long[] sortedInvocations(AzureTrace t) {
        long[] inv = new long[t.functionCount()];
        for (int f = 0; f < inv.length; f++) inv[f] = t.invocations(f);
        Arrays.sort(inv);
        return inv;
    }

    @Test
    void theTotalRateIsTheTarget() {
        assertThat(day.functionCount()).isEqualTo(10_000);
        assertThat(day.minutes()).isEqualTo(1440);
        // 173 million invocations: Poisson noise is 0.01 %; the rest is exact by construction.
        assertThat(day.meanRatePerSecond()).isCloseTo(2_000, withPercentage(0.5));

        AzureTrace hour = AzureLikeTrace.of(3_000, 9_500, 60).generate(2);
        assertThat(hour.meanRatePerSecond()).isCloseTo(9_500, withPercentage(0.5));
    }

    @Test
    void ratesAreHeavyTailedAndMostFunctionsRarelyInvoked() {
        long[] inv = sortedInvocations(day);
        int n = inv.length;
        long total = day.totalInvocations();
        long top1 = Arrays.stream(inv, n - n / 100, n).sum();
        long top186 = Arrays.stream(inv, n - (int) (0.186 * n), n).sum();
        long median = inv[n / 2];
        long max = inv[n - 1];

        // Shahrad et al.: the top 18.6 % of functions make 99.6 % of the invocations.
        assertThat((double) top1 / total).as("share of the top 1 %").isGreaterThan(0.6);
        assertThat((double) top186 / total).as("share of the top 18.6 %").isGreaterThan(0.98);
        assertThat((double) median).as("median vs max").isLessThan(max / 10_000.0);
        long lessThanOncePerMinute = Arrays.stream(inv).filter(x -> x < 1440).count();
        long lessThanOncePerHour = Arrays.stream(inv).filter(x -> x < 24).count();
        assertThat((double) lessThanOncePerMinute / n).isBetween(0.75, 0.92);
        assertThat((double) lessThanOncePerHour / n).isBetween(0.3, 0.6);
    }

    @Test
    void theDayHasACycleThatPeaksAtThePeakMinute() {
        AzureTrace t = AzureLikeTrace.of(2_000, 500, 1440).withBursts(0, 1, 1).generate(3);
        long[] perMinute = new long[1440];
        for (int f = 0; f < t.functionCount(); f++) {
            for (int m = 0; m < 1440; m++) perMinute[m] += t.count(f, m);
        }
        long peakHour = Arrays.stream(perMinute, 810, 870).sum();    // around 14:00
        long troughHour = Arrays.stream(perMinute, 90, 150).sum();   // around 02:00
        // (1 + a) / (1 - a) = 2 for a = 1/3, a little less over a whole hour.
        assertThat((double) peakHour / troughHour).isCloseTo(2.0, withPercentage(10));

        AzureTrace flat = AzureLikeTrace.of(2_000, 500, 1440).withBursts(0, 1, 1).withDailyCycle(0, 0).generate(3);
        long flatPeak = 0;
        long flatTrough = 0;
        for (int f = 0; f < flat.functionCount(); f++) {
            for (int m = 810; m < 870; m++) flatPeak += flat.count(f, m);
            for (int m = 90; m < 150; m++) flatTrough += flat.count(f, m);
        }
        assertThat((double) flatPeak / flatTrough).isCloseTo(1.0, withPercentage(10));
    }

    @Test
    void burstsAreMinutesAtSeveralTimesTheRate() {
        // One function, no daily cycle: 5 % of minutes at 5x. Normal minutes are Poisson(5000)
        // (sd 71), burst minutes Poisson(25000); 2.5x the normal rate tells them apart.
        AzureTrace bursty = AzureLikeTrace.of(1, 100, 1440).withDailyCycle(0, 0).withBursts(0.05, 3, 5).generate(6);
        AzureTrace calm = AzureLikeTrace.of(1, 100, 1440).withDailyCycle(0, 0).withBursts(0, 1, 1).generate(6);

        int[] counts = bursty.minuteCounts(0);
        int[] sorted = counts.clone();
        Arrays.sort(sorted);
        int normal = sorted[720];
        long burstMinutes = Arrays.stream(counts).filter(c -> c > 2.5 * normal).count();
        assertThat(normal).isBetween(4_700, 5_300); // 6000 a minute on average, 1.2 of it normal-rate minutes
        assertThat(burstMinutes).isBetween(30L, 140L); // about 72, in runs
        assertThat(Arrays.stream(calm.minuteCounts(0)).max().getAsInt()).isLessThan(6_000 + 500);
    }

    @Test
    void sameSeedGivesTheSameTrace() {
        AzureLikeTrace spec = AzureLikeTrace.of(500, 100, 60);
        AzureTrace a = spec.generate(9);
        AzureTrace b = spec.generate(9);
        AzureTrace c = spec.generate(10);

        for (int f = 0; f < 500; f++) {
            assertThat(b.function(f)).isEqualTo(a.function(f));
            assertThat(b.minuteCounts(f)).isEqualTo(a.minuteCounts(f));
        }
        assertThat(c.totalInvocations()).isNotEqualTo(a.totalInvocations());
        assertThat(c.function(0)).isNotEqualTo(a.function(0));
    }

    @Test
    void idsLookLikeTheTracesAndGroupFunctionsIntoAppsAndOwners() {
        long owners = java.util.stream.IntStream.range(0, day.functionCount()).mapToObj(f -> day.function(f).owner()).distinct().count();
        long apps = java.util.stream.IntStream.range(0, day.functionCount()).mapToObj(f -> day.function(f).app()).distinct().count();

        assertThat(day.function(0).function()).matches("[0-9a-f]{16}");
        assertThat(apps).isBetween(4_000L, 6_000L);   // a new app every other function
        assertThat(owners).isBetween(2_000L, 3_000L); // a new owner every other app
        assertThat(day.function(0).trigger()).isIn("http", "timer", "queue", "orchestration", "event", "storage", "others");
    }

    @Test
    void badParametersAreNamed() {
        assertThatThrownBy(() -> AzureLikeTrace.of(0, 100, 60)).hasMessage("functions must be at least 1, got 0");
        assertThatThrownBy(() -> AzureLikeTrace.of(10, 0, 60)).hasMessageContaining("arrival rate must be a positive number");
        assertThatThrownBy(() -> AzureLikeTrace.of(10, 100, 60).withDailyCycle(1, 0)).hasMessage("daily amplitude must be in [0, 1), got 1.0");
        assertThatThrownBy(() -> AzureLikeTrace.of(10, 100, 60).withBursts(0.6, 1, 5)).hasMessage("bursts of 1.0 minutes on average cannot fill 0.6 of the time");
        assertThatThrownBy(() -> AzureLikeTrace.of(10, 100, 60).withBursts(0.01, 3, 0.5)).hasMessage("burst factor must be at least 1, got 0.5");
    }
}
