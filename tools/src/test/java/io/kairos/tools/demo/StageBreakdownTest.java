package io.kairos.tools.demo;

import io.kairos.schema.InferenceResult;
import io.kairos.schema.ResultStatus;
import io.kairos.schema.StageTimes;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class StageBreakdownTest {

    /** A request sent at 0, read at 1,000, queued at 1,500, its other stages as given, written 100 µs after its end. */
    private static InferenceResult executed(String id, int device, long dispatched, long start, long end) {
        StageTimes t = StageTimes.newBuilder().setSent(0).setDeadline(1_000_000).setIngested(1_000L).setEnqueued(1_500L)
                .setDispatched(dispatched).setExecStart(start).setExecEnd(end).setEmitted(end + 100).build();
        return InferenceResult.newBuilder().setRequestId(id).setTenant("t").setModel("m").setStatus(ResultStatus.OK)
                .setBatchSize(1).setDevice(device).setSloMs(100).setTimings(t).build();
    }

    @Test
    void theTimeFromDispatchToStartIsSplitIntoTheWaitForTheBatchBeforeAndTheHandOver() {
        StageBreakdown b = new StageBreakdown();
        // Device 0: batch a (a1, a2) dispatched at 2,000 onto a free device, starts 2,300 (hand-over
        // 300, busy 0), ends 5,000. Batch b dispatched at 4,000 while a runs: the device frees at
        // 5,000 (busy 1,000), b starts at 5,200 (hand-over 200). Device 1: c dispatched at 2,000,
        // starts 2,100: busy 0, hand-over 100.
        b.add(executed("a1", 0, 2_000, 2_300, 5_000), 6_000);
        b.add(executed("a2", 0, 2_000, 2_300, 5_000), 6_000);
        b.add(executed("b", 0, 4_000, 5_200, 7_000), 8_000);
        b.add(executed("c", 1, 2_000, 2_100, 3_000), 3_500);
        b.add(InferenceResult.newBuilder(executed("d", 1, 0, 0, 0)).setStatus(ResultStatus.DROPPED).build(), 10); // not executed: left out

        Histogram busy = b.stage("device busy (dispatched -> free)");
        Histogram handOver = b.stage("hand-over (free -> start)");
        assertThat(busy.getTotalCount()).isEqualTo(4);
        assertThat(busy.getMaxValue()).isEqualTo(1_000);
        assertThat(busy.getValueAtPercentile(50)).isZero(); // 0, 0, 0, 1,000
        assertThat(handOver.getTotalCount()).isEqualTo(4);
        assertThat(handOver.getMinValue()).isEqualTo(100);
        assertThat(handOver.getMaxValue()).isEqualTo(300);
        assertThat(b.stage("queue (queued -> dispatched)").getMinValue()).isEqualTo(500);
        assertThat(b.stage("kafka out (written -> received)").getMaxValue()).isEqualTo(900); // b: written 7,100, received 8,000
        // p50s (the 2nd of 4): kafka in 1,000, admit 500, queue 500 (500, 500, 500, 2,500), busy 0, hand-over 200
        // (100, 200, 300, 300), emit 100, kafka out 900 (400, 900, 900, 900): 3,200 µs
        assertThat(b.pipelineLine()).isEqualTo("the pipeline's stages at p50, all but execute: 3.2 ms (waiting for a busy device 0.0 ms of them)");
    }
}
