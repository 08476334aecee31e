package io.kairos.flink;

import io.kairos.core.model.LatencyEstimator;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.time.ManualClock;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.DType;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.ResultStatus;
import io.kairos.schema.Tensor;
import io.kairos.schema.internal.AdmittedRequest;
import io.kairos.schema.internal.DispatchedBatch;
import io.kairos.schema.internal.GroupInput;
import io.kairos.wire.request.RequestValidator;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedBroadcastOperatorTestHarness;
import org.apache.flink.streaming.util.ProcessFunctionTestHarnesses;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link GroupSchedulerFunction} on a manual clock that moves with the harness's processing time,
 * as the wall clock moves with Flink's in a job: shedding happens at the exact millisecond, with no
 * waiting for the wall clock.
 */
class GroupSchedulerFunctionClockTest {

    private static final long T0_MS = 1_700_000_000_000L;
    private static final long TAU1_MICROS = 2_700; // resnet50 at batch size 1: 0.8 + 1.9 ms

    private final ManualClock clock = new ManualClock(T0_MS * 1000);
    private KeyedBroadcastOperatorTestHarness<String, GroupInput, ControlDecision, DispatchedBatch> harness;

    @BeforeEach
    void open() throws Exception {
        // Triton holding requests for a minute: nothing leaves by batching during the test.
        GroupSchedulerFunction f = new GroupSchedulerFunction(ModelCatalog.builtIn(),
                new ControlPlane(1, "triton", Map.of("max_batch", "4", "max_queue_delay_ms", "60000")), LatencyEstimator.Settings.DEFAULT, clock);
        harness = ProcessFunctionTestHarnesses.forKeyedBroadcastProcessFunction(f, GroupInput::getGroup, Types.STRING, ControlPlane.DECISIONS);
        harness.setProcessingTime(T0_MS);
    }

    @AfterEach
    void close() throws Exception {
        harness.close();
    }

    /** Moves the clock and Flink's processing time to {@code ms} together, firing the timers due. */
    private void advanceTo(long ms) throws Exception {
        clock.set(ms * 1000);
        harness.setProcessingTime(ms);
    }

    private static GroupInput in(AdmittedRequest request) {
        return GroupInput.newBuilder().setGroup(request.getGroup()).setRequest(request).build();
    }

    private AdmittedRequest request(String id, double sloMs) {
        InferenceRequest r = InferenceRequest.newBuilder()
                .setRequestId(id).setTenant("t").setModel("resnet50")
                .setInput(Tensor.newBuilder().setDtype(DType.FLOAT32).setShape(List.of(3L, 32L, 32L))
                        .setData(ByteBuffer.allocate(3 * 32 * 32 * 4)).build())
                .setSentAtMicros(clock.nowMicros()).setSloMs(sloMs)
                .build();
        return AdmittedRequest.newBuilder().setRequest(r).setDeadlineAtMicros(RequestValidator.deadlineMicros(r))
                .setIngestedAtMicros(clock.nowMicros()).setGroup("default").build();
    }

    private List<InferenceResult> dropped() {
        var side = harness.getSideOutput(GroupSchedulerFunction.DROPPED);
        return side == null ? List.of() : side.stream().map(StreamRecord::getValue).toList();
    }

    @Test
    void aHeldRequestIsShedAtTheFirstMillisecondItsDeadlineIsUnreachable() throws Exception {
        AdmittedRequest r = request("r", 100);
        harness.processElement(in(r), 0);
        // The first instant the head cannot finish in time: deadline - tau(1) + 1 us. Its timer is
        // the millisecond that instant falls in, which Flink fires 1 ms later at the earliest.
        long wake = r.getDeadlineAtMicros() - TAU1_MICROS + 1;
        long timerMs = wake / 1000;
        assertThat(wake % 1000).as("a wake inside a millisecond, not on its edge").isNotZero();
        assertThat(harness.getProcessingTimeService().getActiveTimerTimestamps()).containsExactly(timerMs);

        // The harness fires it at its own millisecond, before the wake: nothing is shed, and the
        // timer is set again for the next millisecond, not the same one (which would fire at once).
        advanceTo(timerMs);
        assertThat(dropped()).isEmpty();
        assertThat(harness.getProcessingTimeService().getActiveTimerTimestamps()).containsExactly(timerMs + 1);

        long shedAtMs = timerMs + 1;
        advanceTo(shedAtMs);
        assertThat(dropped()).singleElement().satisfies(res -> {
            assertThat(res.getRequestId()).isEqualTo("r");
            assertThat(res.getStatus()).isEqualTo(ResultStatus.DROPPED);
            assertThat(res.getReason()).contains("deadline unreachable");
            assertThat(res.getTimings().getEnqueued()).isEqualTo(T0_MS * 1000);
            assertThat(res.getTimings().getEmitted()).isEqualTo(shedAtMs * 1000);
        });
        assertThat(harness.extractOutputValues()).isEmpty();
    }

    @Test
    void aFullBatchLeavesStampedWithTheClocksTime() throws Exception {
        for (int i = 0; i < 3; i++) {
            harness.processElement(in(request("r" + i, 60_000)), 0);
            advanceTo(T0_MS + 10 * (i + 1));
        }
        harness.processElement(in(request("r3", 60_000)), 0);

        assertThat(harness.extractOutputValues()).singleElement().satisfies(b -> {
            assertThat(b.getRequests()).extracting(a -> a.getRequest().getRequestId()).containsExactly("r0", "r1", "r2", "r3");
            assertThat(b.getDispatchedAtMicros()).isEqualTo((T0_MS + 30) * 1000);
            assertThat(b.getRequests()).extracting(AdmittedRequest::getEnqueuedAtMicros)
                    .containsExactly(T0_MS * 1000, (T0_MS + 10) * 1000, (T0_MS + 20) * 1000, (T0_MS + 30) * 1000);
            assertThat(b.getPredictedStartMicros()).isEqualTo((T0_MS + 30) * 1000); // the device is idle
        });
        assertThat(dropped()).isEmpty();
    }
}
