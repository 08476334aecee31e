package io.kairos.sim;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DelayTest {

    /**
     * Samples at 100, 200 and 400 us (1, 5 and 9 us of delay) span 301 us from the first: a send at
     * t takes the delay of the last sample at or before t modulo 301, so 350 (49 into the second
     * cycle) takes the first sample's again.
     */
    @Test
    void aTimelineReplaysEachDelayFromItsTimeUntilTheNextCyclically() {
        Delay d = Delay.timeline(new long[] {100, 200, 400}, new long[] {1, 5, 9});
        SplittableRandom random = new SplittableRandom(1);
        long[] at = {0, 99, 100, 299, 300, 301, 350, 401, 601, 602, -1};
        long[] want = {1, 1, 5, 5, 9, 1, 1, 5, 9, 1, 9};
        for (int i = 0; i < at.length; i++) {
            assertThat(d.sampleMicros(random, at[i])).as("sent at %d us", at[i]).isEqualTo(want[i]);
        }
    }

    @Test
    void samplesAtOneInstantLeaveTheLastOfThemInForce() {
        Delay d = Delay.timeline(new long[] {0, 0, 10}, new long[] {3, 7, 2});
        SplittableRandom random = new SplittableRandom(1);
        assertThat(d.sampleMicros(random, 0)).isEqualTo(7);
        assertThat(d.sampleMicros(random, 9)).isEqualTo(7);
        assertThat(d.sampleMicros(random, 10)).isEqualTo(2);
    }

    @Test
    void withoutATimeATimelineDrawsFromItsDelaysAndOtherDelaysIgnoreTheTime() {
        Delay d = Delay.timeline(new long[] {0, 10}, new long[] {3, 7});
        SplittableRandom random = new SplittableRandom(1);
        for (int i = 0; i < 50; i++) assertThat(d.sampleMicros(random)).isIn(3L, 7L);
        assertThat(Delay.constant(42).sampleMicros(random, 1234)).isEqualTo(42);
    }

    @Test
    void aTimelineRejectsTimesThatGoBackAndUnequalLengths() {
        assertThatThrownBy(() -> Delay.timeline(new long[] {5, 4}, new long[] {1, 1})).hasMessageContaining("ascend");
        assertThatThrownBy(() -> Delay.timeline(new long[] {5}, new long[] {1, 1})).hasMessageContaining("as many times as delays");
        assertThatThrownBy(() -> Delay.timeline(new long[] {5}, new long[] {-1})).hasMessageContaining("negative");
    }
}
