package io.kairos.workload;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.data.Offset.offset;
import static org.assertj.core.data.Percentage.withPercentage;

class CountsReplayTest {

    private static final long SECOND = 1_000_000;

    /** Every arrival time of a run, until the stream ends (checked to stay ended). */
    private static List<Long> times(ArrivalProcess p, long seed) {
        ArrivalProcess.Gaps gaps = p.start(new SplittableRandom(seed));
        List<Long> times = new ArrayList<>();
        long t = 0;
        for (long g = gaps.nextGapMicros(); g != ArrivalProcess.END; g = gaps.nextGapMicros()) {
            assertThat(g).isNotNegative();
            t += g;
            times.add(t);
        }
        assertThat(gaps.nextGapMicros()).isEqualTo(ArrivalProcess.END);
        assertThat(gaps.nextGapMicros()).isEqualTo(ArrivalProcess.END);
        return times;
    }

    @Test
    void twoNoneOneGivesTwoArrivalsInTheFirstSecondOneInTheThirdThenEnds() {
        CountsReplay replay = CountsReplay.parse("2 0 1", SECOND);
        for (long seed = 1; seed <= 50; seed++) {
            List<Long> t = times(replay, seed);

            assertThat(t).hasSize(3);
            assertThat(t.get(0)).isBetween(0L, SECOND - 1);
            assertThat(t.get(1)).isBetween(t.get(0), SECOND - 1);
            assertThat(t.get(2)).isBetween(2 * SECOND, 3 * SECOND - 1);
        }
        assertThat(replay.meanRatePerSecond()).isEqualTo(1.0);
        assertThat(replay.totalCount()).isEqualTo(3);
        assertThat(replay.durationMicros()).isEqualTo(3 * SECOND);
        assertThat(replay).isEqualTo(CountsReplay.perSecond(2, 0, 1)).hasToString("replay(3 x 1.0 s, 3 arrivals)");
    }

    @Test
    void everyIntervalGetsExactlyItsCount() {
        SplittableRandom r = new SplittableRandom(1);
        int[] counts = new int[500];
        for (int i = 0; i < counts.length; i++) counts[i] = r.nextInt(4) == 0 ? 0 : r.nextInt(2000);
        long minute = 60 * SECOND;
        CountsReplay replay = CountsReplay.of(minute, counts);

        int[] seen = new int[counts.length];
        for (long t : times(replay, 7)) seen[(int) (t / minute)]++;

        assertThat(seen).containsExactly(counts);
    }

    @Test
    void withinAnIntervalArrivalsAreUniform() {
        List<Long> t = times(CountsReplay.perSecond(100_000), 3);

        int[] tenths = new int[10];
        double sum = 0;
        for (long x : t) {
            tenths[(int) (x / (SECOND / 10))]++;
            sum += x;
        }
        // Each tenth holds Binomial(100000, 0.1): sd 95; the mean offset has sd 0.29 s / sqrt(n) = 0.9 ms.
        for (int n : tenths) assertThat(n).isBetween(9_500, 10_500);
        assertThat(sum / t.size()).isCloseTo(SECOND / 2.0, offset(5_000.0));
    }

    @Test
    void aLargeCountInAShortIntervalStaysInItsInterval() {
        List<Long> t = times(CountsReplay.of(10, 5_000, 0, 3), 4); // 5,000 arrivals within 10 us

        assertThat(t).hasSize(5_003);
        assertThat(t.subList(0, 5_000)).allSatisfy(x -> assertThat(x).isBetween(0L, 9L));
        assertThat(t.subList(5_000, 5_003)).allSatisfy(x -> assertThat(x).isBetween(20L, 29L));
    }

    @Test
    void sameSeedGivesTheSameTimes() {
        CountsReplay replay = CountsReplay.perSecond(50, 0, 70, 3);
        assertThat(times(replay, 5)).isEqualTo(times(replay, 5)).isNotEqualTo(times(replay, 6));
    }

    @Test
    void aTraceOfZerosEndsAtOnce() {
        CountsReplay zeros = CountsReplay.perSecond(0, 0, 0);
        assertThat(times(zeros, 1)).isEmpty();
        assertThat(zeros.meanRatePerSecond()).isZero();
    }

    @Test
    void scalingKeepsTheMeanAndRoundsEachIntervalUpOrDown() {
        int[] threes = new int[20_000];
        java.util.Arrays.fill(threes, 3);
        CountsReplay half = CountsReplay.of(SECOND, threes).scaled(0.5);

        int[] seen = new int[threes.length];
        for (long t : times(half, 2)) seen[(int) (t / SECOND)]++;

        assertThat(seen).containsOnly(1, 2); // 1.5 each: 1 or 2
        // Binomial(20000, 0.5) extra arrivals: sd 71.
        assertThat((double) java.util.Arrays.stream(seen).sum()).isCloseTo(30_000, offset(400.0));
        assertThat(half.meanRatePerSecond()).isEqualTo(1.5);
        // A whole factor needs no rounding: exactly twice the counts.
        assertThat(times(CountsReplay.perSecond(2, 0, 1).scaled(2), 1)).hasSize(6);
    }

    @Test
    void readsAFileOfPerSecondCounts(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("counts.txt");
        Files.writeString(file, "100 0\n300\n");
        assertThat(CountsReplay.read(file, SECOND)).isEqualTo(CountsReplay.perSecond(100, 0, 300));

        Files.writeString(file, "100 0 x3");
        assertThatThrownBy(() -> CountsReplay.read(file, SECOND))
                .hasMessage(file + ": entry 3 'x3' is not a non-negative whole number");
        assertThatThrownBy(() -> CountsReplay.read(dir.resolve("missing.txt"), SECOND))
                .hasMessageStartingWith(dir.resolve("missing.txt") + ": cannot read counts file");
    }

    @Test
    void badCountsAreNamedInOneLine() {
        assertThatThrownBy(() -> CountsReplay.parse("100 -1 3", SECOND))
                .hasMessage("counts replay: entry 2 '-1' is not a non-negative whole number");
        assertThatThrownBy(() -> CountsReplay.parse("  ", SECOND))
                .hasMessage("counts replay: no counts; expected whitespace-separated counts, e.g. 100 0 300");
        assertThatThrownBy(() -> CountsReplay.parse("1 99999999999", SECOND))
                .hasMessage("counts replay: entry 2 '99999999999' is not a non-negative whole number");
        assertThatThrownBy(() -> CountsReplay.of(SECOND, 1, -2)).hasMessage("replay count of interval 2 is negative: -2");
        assertThatThrownBy(() -> CountsReplay.of(0, 1)).hasMessageContaining("interval must be at least 1 us");
        assertThatThrownBy(() -> CountsReplay.perSecond(1).scaled(0)).hasMessageContaining("scale must be a positive number");
    }

    @Test
    void theMeanRateIsTheCountOverTheLength() {
        CountsReplay replay = CountsReplay.of(60 * SECOND, 600, 0, 1200);
        assertThat(replay.meanRatePerSecond()).isCloseTo(10.0, withPercentage(1e-12));
        assertThat(replay.scaled(2.5).meanRatePerSecond()).isCloseTo(25.0, withPercentage(1e-12));
    }
}
