package io.kairos.core.scheduling;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BatchingTableTest {

    @Test
    void baselinesAndTheirControlLimits() {
        BatchingTable wc = BatchingTable.workConserving(4, 6);
        assertThat(wc.actions()).containsExactly(0, 1, 2, 3, 4, 4, 4, 4);
        assertThat(wc.controlLimit()).isEqualTo(1);
        assertThat(wc.isControlLimit()).isTrue();
        assertThat(wc.isMonotoneUpTo(6)).isTrue();
        BatchingTable st = BatchingTable.staticBatch(3, 6);
        assertThat(st.actions()).containsExactly(0, 0, 0, 3, 3, 3, 3, 3);
        assertThat(st.controlLimit()).isEqualTo(3);
        assertThat(st.toString()).isEqualTo("0-2:wait 3-6:3 S_o:3");
    }

    @Test
    void pastSMaxTheSchedulerServesWhatTheTableServesAtSMaxNotInTheOverflowState() {
        BatchingTable t = new BatchingTable(new int[]{0, 0, 2, 3, 1});
        assertThat(t.batchSize(1)).isZero();
        assertThat(t.batchSize(2)).isEqualTo(2);
        assertThat(t.batchSize(3)).isEqualTo(3);
        assertThat(t.batchSize(1_000)).isEqualTo(3);
        assertThat(t.isMonotoneUpTo(3)).isTrue();
        assertThat(new BatchingTable(new int[]{0, 1, 0, 3, 3}).isControlLimit()).isFalse();
        BatchingTable dip = new BatchingTable(new int[]{0, 1, 2, 1, 3, 3});
        assertThat(dip.isControlLimit()).isTrue();
        assertThat(dip.isMonotoneUpTo(2)).isTrue();
        assertThat(dip.isMonotoneUpTo(3)).isFalse();
    }

    @Test
    void aBatchLargerThanTheQueueIsRefused() {
        assertThatThrownBy(() -> new BatchingTable(new int[]{0, 2, 2})).hasMessage("state 1: batch of 2 with 1 requests in the system");
        assertThatThrownBy(() -> BatchingTable.staticBatch(0, 4)).hasMessageContaining("static batch size");
    }
}
