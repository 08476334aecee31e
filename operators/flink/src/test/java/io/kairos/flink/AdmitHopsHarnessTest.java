package io.kairos.flink;

import io.kairos.core.model.ModelCatalog;
import io.kairos.core.pipeline.PipelineSpec;
import io.kairos.core.request.AdmissionLimits;
import io.kairos.core.time.ManualClock;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.DType;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.RemovePipeline;
import io.kairos.schema.ResultStatus;
import io.kairos.schema.StageResult;
import io.kairos.schema.StageTimes;
import io.kairos.schema.Tensor;
import io.kairos.schema.internal.AdmittedRequest;
import io.kairos.schema.internal.PipelineHop;
import io.kairos.wire.plan.PipelineActions;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.operators.co.CoBroadcastWithKeyedOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedBroadcastOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Drives {@link AdmitHops} with Flink's keyed broadcast harness and a manual clock: a hop admitted
 * to its stage with the stage's deadline, each hop once (across a snapshot and restore too, as
 * after a crash), and a hop that cannot go on ending its request with one final result naming the
 * stage.
 */
class AdmitHopsHarnessTest {
    private static final ModelCatalog CATALOG = ModelCatalog.builtIn(); // googlenet and resnet50 take FLOAT32 [3, 32, 32]
    private static final long NOW = 1_700_000_000_000_000L;
    private static final long SENT = NOW - 10_000;
    private static final long MEMORY_MS = 60_000;
    private static final PipelineSpec SPEC = PipelineSpec.parse("""
            {"pipeline": "p", "slo_p99_ms": 50,
             "stages": [{"name": "fast", "model": "googlenet"}, {"name": "slow", "model": "resnet50", "budget_ms": 20}],
             "edges": [{"from": "fast", "to": "slow", "probability": 1}]}""", "p");

    private final ManualClock clock = new ManualClock(NOW);
    private final List<KeyedBroadcastOperatorTestHarness<String, PipelineHop, ControlDecision, AdmittedRequest>> opened = new ArrayList<>();
    private long version;

    @AfterEach
    void close() throws Exception {
        for (var h : opened) h.close();
    }

    private KeyedBroadcastOperatorTestHarness<String, PipelineHop, ControlDecision, AdmittedRequest> harness(OperatorSubtaskState restore) throws Exception {
        var h = new KeyedBroadcastOperatorTestHarness<>(
                new CoBroadcastWithKeyedOperator<>(new AdmitHops(CATALOG, new ControlPlane(1, Long.MAX_VALUE, "triton", Map.of(), CATALOG),
                        AdmissionLimits.DEFAULTS, MEMORY_MS, clock), List.of(ControlPlane.DECISIONS)),
                AdmitHops.KEY, Types.STRING, 1, 1, 0);
        opened.add(h);
        if (restore != null) h.initializeState(restore);
        h.open();
        h.processBroadcastElement(decision(PipelineActions.action(SPEC)), 0);
        return h;
    }

    private ControlDecision decision(Object action) {
        return ControlDecision.newBuilder().setVersion(++version).setIssuedAtMicros(1).setIssuedBy("user").setAction(action).build();
    }

    /** r1 on its way to slow: the fast stage's result was made 5 ms ago, the request sent 10 ms ago with an SLO of 100 ms. */
    private static PipelineHop hop(String id, long sent, long[] shape) {
        List<Long> dims = new ArrayList<>();
        long elements = 1;
        for (long d : shape) {
            dims.add(d);
            elements *= d;
        }
        InferenceRequest r = InferenceRequest.newBuilder().setRequestId(id).setTenant("t").setModel("resnet50").setSentAtMicros(sent).setSloMs(100)
                .setPipelineId("p").setStage(1)
                .setInput(Tensor.newBuilder().setDtype(DType.FLOAT32).setShape(dims).setData(ByteBuffer.allocate((int) elements * 4)).build()).build();
        StageResult fast = StageResult.newBuilder().setStage("fast").setModel("googlenet").setStatus(ResultStatus.OK).setBatchSize(1).setDevice(0)
                .setTimings(StageTimes.newBuilder().setSent(sent).setDeadline(sent + 100_000).setIngested(sent + 1_000).setExecEnd(NOW - 6_000)
                        .setEmitted(NOW - 5_000).build()).build();
        return PipelineHop.newBuilder().setRequest(r).setStages(List.of(fast)).build();
    }

    private static PipelineHop hop(String id) {
        return hop(id, SENT, new long[] {3, 32, 32});
    }

    private static List<AdmittedRequest> admitted(KeyedBroadcastOperatorTestHarness<String, PipelineHop, ControlDecision, AdmittedRequest> h) {
        return h.extractOutputValues();
    }

    private static List<InferenceResult> ended(KeyedBroadcastOperatorTestHarness<String, PipelineHop, ControlDecision, AdmittedRequest> h) {
        var side = h.getSideOutput(AdmitHops.TURNED_AWAY);
        return side == null ? List.of() : side.stream().map(StreamRecord::getValue).toList();
    }

    @Test
    void aHopIsAdmittedToItsStageWithTheStagesDeadline() throws Exception {
        var h = harness(null);
        h.processElement(hop("r1"), 0);

        AdmittedRequest a = admitted(h).get(0);
        // The budget of 20 ms runs from the fast stage's result (NOW - 5 ms): NOW + 15 ms, before the end-to-end NOW + 90 ms.
        assertThat(a.getDeadlineAtMicros()).isEqualTo(NOW + 15_000);
        assertThat(a.getIngestedAtMicros()).isEqualTo(NOW);
        assertThat(a.getGroup()).isEqualTo("default");
        assertThat(a.getPipelineStages()).extracting(StageResult::getStage).containsExactly("fast");
        assertThat(a.getRequest().getModel()).isEqualTo("resnet50");
        assertThat(ended(h)).isEmpty();
    }

    @Test
    void eachHopOnceAcrossARestoreUntilItsMemoryEnds() throws Exception {
        var h = harness(null);
        h.processElement(hop("r1"), 0);
        h.processElement(hop("r1"), 0);
        assertThat(admitted(h)).hasSize(1);
        OperatorSubtaskState snapshot = h.snapshot(1L, 1L);

        // After a crash: the hop read again from the topic, and the same hop made again by the replay.
        var after = harness(snapshot);
        after.processElement(hop("r1"), 0);
        after.processElement(hop("r1"), 0);
        assertThat(admitted(after)).isEmpty();
        // Another request under a reused id (another send time) is another hop.
        after.processElement(hop("r1", SENT + 1, new long[] {3, 32, 32}), 0);
        assertThat(admitted(after)).hasSize(1);

        // Forgotten after its memory: long after any replay.
        after.setProcessingTime(MEMORY_MS + 1);
        after.processElement(hop("r1"), MEMORY_MS + 1);
        assertThat(admitted(after)).hasSize(2);
    }

    @Test
    void aHopThatCannotGoOnEndsItsRequestNamingTheStage() throws Exception {
        var h = harness(null);
        h.processElement(hop("misfit", SENT, new long[] {10}), 0);
        InferenceResult misfit = ended(h).get(0);
        assertThat(misfit.getStatus()).isEqualTo(ResultStatus.REJECTED);
        assertThat(misfit.getReason()).isEqualTo("stage 'slow': input shape [10] does not match model 'resnet50', which takes FLOAT32[3, 32, 32]");
        assertThat(misfit.getStages()).extracting(StageResult::getStage, StageResult::getStatus)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("fast", ResultStatus.OK), org.assertj.core.groups.Tuple.tuple("slow", ResultStatus.REJECTED));
        assertThat(misfit.getTimings().getDeadline()).as("end to end").isEqualTo(SENT + 100_000);
        assertThat(misfit.getTimings().getIngested()).as("at the entry stage").isEqualTo(SENT + 1_000);

        // Past the stage's deadline (NOW + 15 ms) when it comes: dropped there.
        clock.set(NOW + 16_000);
        h.processElement(hop("late"), 0);
        InferenceResult late = ended(h).get(1);
        assertThat(late.getStatus()).isEqualTo(ResultStatus.DROPPED);
        assertThat(late.getReason()).isEqualTo("stage 'slow': deadline passed 1000 us before the request was read");

        h.processBroadcastElement(decision(RemovePipeline.newBuilder().setPipeline("p").build()), 0);
        h.processElement(hop("orphan"), 0);
        InferenceResult orphan = ended(h).get(2);
        assertThat(orphan.getStatus()).isEqualTo(ResultStatus.FAILED);
        assertThat(orphan.getReason()).isEqualTo("stage '#1': pipeline 'p' is no longer served");
        assertThat(admitted(h)).isEmpty();
    }
}
