package io.kairos.core.model;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LatencyProfileTest {

    // Clockwork's ResNet50: tau(b) = 0.8 b + 1.9 ms.
    private final LatencyProfile resnet = LatencyProfile.linear(0.8, 1.9, 1, 2, 4, 8, 16);

    @Test
    void linearProfileHasAlphaTimesBPlusBetaAtEachSize() {
        // 0.8*1+1.9 = 2.7 ms, 0.8*2+1.9 = 3.5, 0.8*4+1.9 = 5.1, 0.8*8+1.9 = 8.3, 0.8*16+1.9 = 14.7
        assertThat(resnet.batchSizes()).containsExactly(1, 2, 4, 8, 16);
        assertThat(resnet.latencyMicros(1)).isEqualTo(2700);
        assertThat(resnet.latencyMicros(2)).isEqualTo(3500);
        assertThat(resnet.latencyMicros(4)).isEqualTo(5100);
        assertThat(resnet.latencyMicros(8)).isEqualTo(8300);
        assertThat(resnet.latencyMicros(16)).isEqualTo(14700);
        assertThat(resnet.maxBatch()).isEqualTo(16);
        assertThat(resnet.batchSizeCount()).isEqualTo(5);
        assertThat(resnet.batchSizeAt(3)).isEqualTo(8);
        assertThat(resnet.latencyAt(3)).isEqualTo(8300);
    }

    @Test
    void batchBetweenAllowedSizesRunsPaddedToTheNextOne() {
        assertThat(resnet.latencyMicros(3)).isEqualTo(5100);   // padded to 4
        assertThat(resnet.latencyMicros(5)).isEqualTo(8300);   // padded to 8
        assertThat(resnet.latencyMicros(9)).isEqualTo(14700);  // padded to 16
        assertThat(resnet.latencyMicros(15)).isEqualTo(14700);
    }

    @Test
    void batchAboveTheLargestSizeIsRefused() {
        assertThatThrownBy(() -> resnet.latencyMicros(17))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("17").hasMessageContaining("16");
    }

    @Test
    void largestSizeAtMostRoundsDownToAnAllowedSize() {
        assertThat(resnet.largestSizeAtMost(0)).isZero();
        assertThat(resnet.largestSizeAtMost(1)).isEqualTo(1);
        assertThat(resnet.largestSizeAtMost(3)).isEqualTo(2);
        assertThat(resnet.largestSizeAtMost(8)).isEqualTo(8);
        assertThat(resnet.largestSizeAtMost(15)).isEqualTo(8);
        assertThat(resnet.largestSizeAtMost(1000)).isEqualTo(16);

        LatencyProfile from4 = new LatencyProfile(new int[] {4, 8}, new long[] {10, 20});
        assertThat(from4.largestSizeAtMost(3)).isZero();
    }

    @Test
    void powersOfTwoEndAtTheMaximumEvenIfItIsNotAPowerOfTwo() {
        assertThat(LatencyProfile.powersOfTwoUpTo(12)).containsExactly(1, 2, 4, 8, 12);
        assertThat(LatencyProfile.powersOfTwoUpTo(16)).containsExactly(1, 2, 4, 8, 16);
        assertThat(LatencyProfile.powersOfTwoUpTo(1)).containsExactly(1);
        assertThat(LatencyProfile.powersOfTwoUpTo(3)).containsExactly(1, 2, 3);
    }

    @Test
    void tableProfileKeepsMeasuredValues() {
        LatencyProfile table = new LatencyProfile(new int[] {1, 4, 16}, new long[] {300, 350, 500});
        assertThat(table.latencyMicros(1)).isEqualTo(300);
        assertThat(table.latencyMicros(2)).isEqualTo(350);
        assertThat(table.latencyMicros(16)).isEqualTo(500);
        assertThat(table).hasToString("{1: 0.3 ms, 4: 0.35 ms, 16: 0.5 ms}");
    }

    @Test
    void malformedProfilesAreRefused() {
        assertThatThrownBy(() -> new LatencyProfile(new int[0], new long[0])).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new LatencyProfile(new int[] {1, 2}, new long[] {1})).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new LatencyProfile(new int[] {2, 2}, new long[] {1, 2}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("strictly increasing");
        assertThatThrownBy(() -> new LatencyProfile(new int[] {0, 2}, new long[] {1, 2}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("positive");
        assertThatThrownBy(() -> new LatencyProfile(new int[] {1, 2}, new long[] {1, -2}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("batch size 2");
    }

    @Test
    void arraysPassedInOrHandedOutAreCopies() {
        int[] sizes = {1, 2};
        long[] lat = {10, 20};
        LatencyProfile p = new LatencyProfile(sizes, lat);
        sizes[1] = 99;
        lat[0] = 99;
        p.batchSizes()[0] = 99;
        assertThat(p.batchSizes()).containsExactly(1, 2);
        assertThat(p.latencyMicros(1)).isEqualTo(10);
    }
}
