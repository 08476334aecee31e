package io.kairos.flink;

import io.kairos.schema.InferenceResult;
import io.kairos.schema.ResultStatus;
import io.kairos.schema.DType;
import io.kairos.schema.StageTimes;
import io.kairos.schema.Tensor;
import io.kairos.schema.internal.PreemptionEvent;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.ProcessFunctionTestHarnesses;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

/**
 * {@link ResolvePreemptions} on hand-made events: a result after a preemption is kept only when
 * every batch it was preempted from was cancelled in time, whatever the order of the events.
 */
class ResolvePreemptionsTest {
    private static final long HORIZON_MS = 1_000;

    private KeyedOneInputStreamOperatorTestHarness<String, PreemptionEvent, InferenceResult> h;

    @BeforeEach
    void open() throws Exception {
        h = ProcessFunctionTestHarnesses.forKeyedProcessFunction(new ResolvePreemptions(HORIZON_MS), PreemptionEvent::getRequestId, Types.STRING);
        h.setProcessingTime(0);
    }

    @AfterEach
    void close() throws Exception {
        h.close();
    }

    private static InferenceResult result(String id, ResultStatus status) {
        return InferenceResult.newBuilder().setRequestId(id).setTenant("t").setModel("m").setStatus(status)
                .setTimings(StageTimes.newBuilder().setSent(0).setDeadline(0).setEmitted(0).build()).build();
    }

    private void send(PreemptionEvent e) throws Exception {
        h.processElement(e, 0);
    }

    @Test
    void aResultWaitsForItsVerdictAndIsKeptWhenTheBatchWasCancelledInTime() throws Exception {
        send(ResolvePreemptions.result(result("r", ResultStatus.OK), List.of("b1"), null));
        assertThat(h.extractOutputValues()).as("held until the device says").isEmpty();
        send(ResolvePreemptions.verdict("r", "b1", true));
        assertThat(h.extractOutputValues()).extracting(InferenceResult::getRequestId, InferenceResult::getStatus).containsExactly(tuple("r", ResultStatus.OK));
    }

    @Test
    void aKeptPipelineStagesResultGoesOnWithTheInputItCarries() throws Exception {
        Tensor picture = Tensor.newBuilder().setDtype(DType.FLOAT32).setShape(List.of(1L)).setData(ByteBuffer.allocate(4)).build();
        InferenceResult stage = InferenceResult.newBuilder(result("r", ResultStatus.OK)).setPipelineId("cascade").setStage(0).build();
        send(ResolvePreemptions.result(stage, List.of("b1"), picture));
        send(ResolvePreemptions.verdict("r", "b1", true));
        assertThat(h.extractOutputValues()).as("not a result of its own: the pipeline goes on").isEmpty();
        assertThat(h.getSideOutput(ResolvePreemptions.STAGES)).extracting(o -> o.getValue().getResult().getRequestId(), o -> o.getValue().getPipelineInput())
                .containsExactly(tuple("r", picture));
    }

    @Test
    void aResultIsDiscardedWhenThePreemptedBatchHadCompleted() throws Exception {
        // Verdict first this time: the preempted batch completed, and its result went out directly.
        send(ResolvePreemptions.verdict("r", "b1", false));
        send(ResolvePreemptions.result(result("r", ResultStatus.OK), List.of("b1"), null));
        assertThat(h.extractOutputValues()).isEmpty();
    }

    @Test
    void twoPreemptionsNeedBothVerdicts() throws Exception {
        // r was preempted from b1 then b2, both in time: its third run counts, once both are known.
        send(ResolvePreemptions.result(result("r", ResultStatus.OK), List.of("b1", "b2"), null));
        send(ResolvePreemptions.verdict("r", "b2", true));
        assertThat(h.extractOutputValues()).isEmpty();
        send(ResolvePreemptions.verdict("r", "b1", true));
        assertThat(h.extractOutputValues()).extracting(InferenceResult::getRequestId).containsExactly("r");

        // s: b1 had completed, so s's result from b2 (which completed too) and from after it both
        // go; b2's verdict, arriving first, keeps neither of them waiting on it alone.
        h.getOutput().clear();
        send(ResolvePreemptions.result(result("s", ResultStatus.OK), List.of("b1"), null));           // from b2, had it completed
        send(ResolvePreemptions.result(result("s", ResultStatus.DROPPED), List.of("b1", "b2"), null)); // after b2
        send(ResolvePreemptions.verdict("s", "b2", false));
        assertThat(h.extractOutputValues()).isEmpty();
        send(ResolvePreemptions.verdict("s", "b1", false));
        assertThat(h.extractOutputValues()).isEmpty();

        // t: b1 cancelled in time, b2 had completed: t's result from b2 is the one.
        send(ResolvePreemptions.result(result("t", ResultStatus.LATE), List.of("b1"), null));          // from b2
        send(ResolvePreemptions.result(result("t", ResultStatus.OK), List.of("b1", "b2"), null));      // after b2
        send(ResolvePreemptions.verdict("t", "b1", true));
        send(ResolvePreemptions.verdict("t", "b2", false));
        assertThat(h.extractOutputValues()).extracting(InferenceResult::getRequestId, InferenceResult::getStatus).containsExactly(tuple("t", ResultStatus.LATE));
    }

    @Test
    void aResultWhoseVerdictNeverComesGoesOutAtTheHorizonAndTheStateIsCleared() throws Exception {
        send(ResolvePreemptions.result(result("r", ResultStatus.OK), List.of("lost"), null));
        h.setProcessingTime(HORIZON_MS - 1);
        assertThat(h.extractOutputValues()).isEmpty();
        h.setProcessingTime(HORIZON_MS);
        assertThat(h.extractOutputValues()).extracting(InferenceResult::getRequestId).containsExactly("r");
        assertThat(h.numKeyedStateEntries()).isZero();
    }
}
