package io.kairos.tools.demo;

import io.kairos.schema.InferenceResult;
import io.kairos.schema.ResultStatus;
import io.kairos.schema.StageTimes;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class HandoverDelaysTest {

    private static InferenceResult result(String id, int device, long dispatched, long start, long end) {
        StageTimes t = StageTimes.newBuilder().setSent(1).setDeadline(1_000_000).setIngested(2L).setEnqueued(3L)
                .setDispatched(dispatched).setExecStart(start).setExecEnd(end).setEmitted(end + 1).build();
        return InferenceResult.newBuilder().setRequestId(id).setTenant("t").setModel("m").setStatus(ResultStatus.OK)
                .setBatchSize(1).setDevice(device).setSloMs(100).setTimings(t).build();
    }

    @Test
    void aBatchThatQueuedBehindAnotherWaitedForTheDeviceNotForTheHandOver() {
        HandoverDelays d = new HandoverDelays();
        // Device 0: a dispatched at 100, starts 900 (hand-over 800), ends 3600. b dispatched at 200
        // starts at 3600 behind a: its hand-over is 3600 - max(200, 3600) = 0. c dispatched at 5000
        // while b runs until 6300, starts at 6600: 300. Device 1: e dispatched at 0, starts 50: 50. a's second request (same
        // batch, same device and start) counts once.
        d.add(result("a1", 0, 100, 900, 3600));
        d.add(result("a2", 0, 100, 900, 3600));
        d.add(result("b", 0, 200, 3600, 6300));
        d.add(result("c", 0, 5000, 6300 + 300, 9000));
        d.add(result("e", 1, 0, 50, 2750));
        assertThat(d.samplesMicros()).containsExactlyInAnyOrder(800L, 0L, 300L, 50L);
    }

    @Test
    void theTimelineListsHandOversInTheOrderOfDispatchAndDropsTheLongest() {
        HandoverDelays d = new HandoverDelays();
        // The same batches as above: by dispatch e (0: 50), a (100: 800), b (200: 0), c (5000: 300).
        d.add(result("c", 0, 5000, 6300 + 300, 9000));
        d.add(result("a1", 0, 100, 900, 3600));
        d.add(result("b", 0, 200, 3600, 6300));
        d.add(result("e", 1, 0, 50, 2750));
        HandoverDelays.Timeline all = d.timeline(100);
        assertThat(all.dispatchedMicros()).containsExactly(0, 100, 200, 5000);
        assertThat(all.handOversMicros()).containsExactly(50, 800, 0, 300);
        // 75 % of 4 keeps 3: a's 800, the longest, goes.
        HandoverDelays.Timeline kept = d.timeline(75);
        assertThat(kept.dispatchedMicros()).containsExactly(0, 200, 5000);
        assertThat(kept.handOversMicros()).containsExactly(50, 0, 300);
    }
}
