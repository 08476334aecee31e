package io.kairos.testbed.bench;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RateSearchTest {

    /** A path that holds every rate up to {@code capacity} and achieves what it is asked; records what was asked. */
    private static RateSearch.Trial upTo(double capacity, List<Double> asked) {
        return rate -> {
            asked.add(rate);
            return rate <= capacity ? RateSearch.Outcome.held(rate, rate) : RateSearch.Outcome.failed(rate, rate, "over capacity");
        };
    }

    @Test
    void doublesUntilARateFailsThenBisects() throws Exception {
        List<Double> asked = new ArrayList<>();
        RateSearch.Result r = new RateSearch(1_000, 1_000_000, 10, 0.1).search(upTo(10_000, asked));

        // 1k, 2k, 4k, 8k hold, 16k fails; then (8k+16k)/2 = 12k fails, 10k holds, 11k fails: 11k <= 1.1 x 10k.
        assertThat(asked).containsExactly(1_000.0, 2_000.0, 4_000.0, 8_000.0, 16_000.0, 12_000.0, 10_000.0, 11_000.0);
        assertThat(r.sustainedPerSecond()).isEqualTo(10_000);
        assertThat(r.limitFound()).isTrue();
        assertThat(r.lowestFailedPerSecond()).isEqualTo(11_000);
        assertThat(r.trials()).hasSize(8);
    }

    @Test
    void halvesFromAStartThatFails() throws Exception {
        List<Double> asked = new ArrayList<>();
        RateSearch.Result r = new RateSearch(8_000, 1_000_000, 10, 0.1).search(upTo(2_500, asked));

        // 8k and 4k fail, 2k holds; (2k+4k)/2 = 3k fails, 2.5k holds, 2.75k fails: 2.75k <= 1.1 x 2.5k.
        assertThat(asked).containsExactly(8_000.0, 4_000.0, 2_000.0, 3_000.0, 2_500.0, 2_750.0);
        assertThat(r.sustainedPerSecond()).isEqualTo(2_500);
        assertThat(r.limitFound()).isTrue();
    }

    @Test
    void aPathThatHoldsTheCeilingEndsTheSearchThereWithoutALimit() throws Exception {
        List<Double> asked = new ArrayList<>();
        RateSearch.Result r = new RateSearch(300, 1_000, 10, 0.1).search(upTo(5_000, asked));

        assertThat(asked).containsExactly(300.0, 600.0, 1_000.0);
        assertThat(r.sustainedPerSecond()).isEqualTo(1_000);
        assertThat(r.limitFound()).isFalse();
        assertThat(r.lowestFailedPerSecond()).isInfinite();
    }

    @Test
    void theTrialBudgetBoundsTheSearchAndTheBestHeldRateStands() throws Exception {
        List<Double> asked = new ArrayList<>();
        RateSearch.Result r = new RateSearch(1_000, 1_000_000, 3, 0.1).search(upTo(10_000, asked));

        assertThat(asked).containsExactly(1_000.0, 2_000.0, 4_000.0);
        assertThat(r.sustainedPerSecond()).isEqualTo(4_000);
        assertThat(r.limitFound()).isFalse();
    }

    @Test
    void nothingHeldIsZero() throws Exception {
        RateSearch.Result r = new RateSearch(1_000, 1_000_000, 4, 0.1).search(upTo(10, new ArrayList<>()));

        assertThat(r.trials()).extracting(RateSearch.Outcome::askedPerSecond).containsExactly(1_000.0, 500.0, 250.0, 125.0);
        assertThat(r.sustainedPerSecond()).isZero();
        assertThat(r.limitFound()).isFalse();
    }

    @Test
    void theRateReportedIsWhatTheSenderAchievedNotWhatWasAsked() throws Exception {
        // The sender reaches only 90 % of what it is asked; the path holds up to 5,000 asked.
        RateSearch.Result r = new RateSearch(1_000, 1_000_000, 10, 0.1).search(rate ->
                rate <= 5_000 ? RateSearch.Outcome.held(rate, 0.9 * rate) : RateSearch.Outcome.failed(rate, 0.9 * rate, "over"));

        // 1k 2k 4k hold, 8k fails, 6k fails, 5k holds, 5.5k fails: 5.5k <= 1.1 x 5k.
        assertThat(r.trials()).extracting(RateSearch.Outcome::askedPerSecond).containsExactly(1_000.0, 2_000.0, 4_000.0, 8_000.0, 6_000.0, 5_000.0, 5_500.0);
        assertThat(r.sustainedPerSecond()).isEqualTo(4_500);
    }

    @Test
    void onAnyMonotonePathTheResultIsWithinThePrecisionOfTheCapacity() throws Exception {
        SplittableRandom random = new SplittableRandom(14);
        for (int i = 0; i < 500; i++) {
            double capacity = 50 + random.nextDouble() * 500_000;
            double start = 10 + random.nextDouble() * 100_000;
            RateSearch.Result r = new RateSearch(start, 1_000_000, 40, 0.05).search(upTo(capacity, new ArrayList<>()));
            assertThat(r.limitFound()).isTrue();
            assertThat(r.sustainedPerSecond()).isLessThanOrEqualTo(capacity).isGreaterThanOrEqualTo(capacity / 1.05);
            assertThat(r.lowestFailedPerSecond()).isGreaterThan(capacity).isLessThanOrEqualTo(r.sustainedPerSecond() * 1.05);
            // Doubling or halving to a bracket, then bisection: about log2 of the start's distance plus log2(1/precision).
            assertThat(r.trials().size()).isLessThanOrEqualTo((int) Math.ceil(Math.abs(Math.log(capacity / start) / Math.log(2))) + 7);
        }
    }

    @Test
    void aFailureIsTriedAgainAndOneHoldAtTheRateIsEnough() throws Exception {
        // Capacity 10k, but the first trial at 8k is hit by a burst of other load and fails.
        List<Double> asked = new ArrayList<>();
        boolean[] burst = {true};
        RateSearch.Trial flaky = rate -> {
            asked.add(rate);
            boolean hit = rate == 8_000 && burst[0];
            if (hit) burst[0] = false;
            return rate <= 10_000 && !hit ? RateSearch.Outcome.held(rate, rate) : RateSearch.Outcome.failed(rate, rate, "failed");
        };
        RateSearch.Result r = new RateSearch(4_000, 1_000_000, 12, 0.1, 1).search(flaky);

        // 4k holds; 8k fails, again holds; 16k fails twice; 12k fails twice; 10k holds; 11k fails twice.
        assertThat(asked).containsExactly(4_000.0, 8_000.0, 8_000.0, 16_000.0, 16_000.0, 12_000.0, 12_000.0, 10_000.0, 11_000.0, 11_000.0);
        assertThat(r.sustainedPerSecond()).isEqualTo(10_000);
        assertThat(r.limitFound()).isTrue();

        // Without the retry the burst ends the search at 4k with 8k as its limit.
        burst[0] = true;
        asked.clear();
        assertThat(new RateSearch(4_000, 1_000_000, 12, 0.1).search(flaky).sustainedPerSecond()).isLessThan(8_000);
    }

    @Test
    void retriesCountAgainstTheTrialBudget() throws Exception {
        List<Double> asked = new ArrayList<>();
        RateSearch.Result r = new RateSearch(1_000, 1_000_000, 4, 0.1, 3).search(upTo(1_500, asked));
        assertThat(asked).containsExactly(1_000.0, 2_000.0, 2_000.0, 2_000.0);
        assertThat(r.sustainedPerSecond()).isEqualTo(1_000);
    }

    @Test
    void badSettingsAreRefused() {
        assertThatThrownBy(() -> new RateSearch(0, 10, 3, 0.1)).hasMessageContaining("0 < start <= ceiling");
        assertThatThrownBy(() -> new RateSearch(100, 10, 3, 0.1)).hasMessageContaining("0 < start <= ceiling");
        assertThatThrownBy(() -> new RateSearch(1, 10, 0, 0.1)).hasMessageContaining("at least one trial");
        assertThatThrownBy(() -> new RateSearch(1, 10, 3, 0)).hasMessageContaining("precision must be positive");
        assertThatThrownBy(() -> new RateSearch(1, 10, 3, 0.1, -1)).hasMessageContaining("retries must not be negative");
    }
}
