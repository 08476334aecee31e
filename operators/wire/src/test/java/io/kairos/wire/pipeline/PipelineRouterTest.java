package io.kairos.wire.pipeline;

import io.kairos.core.model.ModelCatalog;
import io.kairos.core.pipeline.Edge;
import io.kairos.core.pipeline.PipelineSpec;
import io.kairos.core.pipeline.PipelineSpecTest;
import io.kairos.core.pipeline.Stage;
import io.kairos.schema.DType;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.ResultStatus;
import io.kairos.schema.StageResult;
import io.kairos.schema.StageTimes;
import io.kairos.schema.Tensor;
import io.kairos.schema.internal.AdmittedRequest;
import io.kairos.schema.internal.PipelineHop;
import io.kairos.wire.result.Results;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** A pipeline request's steps, worked by hand on the cascade: fast (m1) -> slow (m2, budget 40 ms) when fast's top value is below 0.8. */
class PipelineRouterTest {
    private static final PipelineSpec CASCADE = PipelineSpec.parse(PipelineSpecTest.CASCADE, "cascade");
    private static final ModelCatalog CATALOG = PipelineSpecTest.CATALOG; // inputs FLOAT32 [4]
    private static final long SENT = 1_000_000_000L;

    private static InferenceRequest request(String model) {
        return InferenceRequest.newBuilder().setRequestId("r1").setTenant("t").setModel(model).setSentAtMicros(SENT).setSloMs(100)
                .setInput(tensor(0, 0, 0, 0)).setPipelineId("cascade").build();
    }

    static Tensor tensor(float... values) {
        ByteBuffer b = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (float v : values) b.putFloat(v);
        b.flip();
        return Tensor.newBuilder().setDtype(DType.FLOAT32).setShape(List.of((long) values.length)).setData(b).build();
    }

    /** The entry stage's result: ran from 1 002 000 to 1 005 000 us (sent at 1 000 000), its output as given. */
    private static InferenceResult fastResult(ResultStatus status, Tensor output) {
        InferenceRequest r = request("");
        assertThat(PipelineRouter.enter(r, CASCADE)).isNull();
        AdmittedRequest a = AdmittedRequest.newBuilder().setRequest(r).setDeadlineAtMicros(SENT + 100_000).setIngestedAtMicros(SENT + 1_000).build();
        InferenceResult stage = Results.failed(a, "x", SENT + 5_500);
        return InferenceResult.newBuilder(stage).setStatus(status).setReason(status == ResultStatus.OK ? null : "device 0 failed")
                .setOutput(output).setBatchSize(2).setDevice(0)
                .setTimings(StageTimes.newBuilder(stage.getTimings()).setExecStart(SENT + 2_000).setExecEnd(SENT + 5_000).build()).build();
    }

    @Test
    void aRequestEntersAtTheEntryStage() {
        InferenceRequest empty = request("");
        assertThat(PipelineRouter.enter(empty, CASCADE)).isNull();
        assertThat(empty.getModel()).isEqualTo("m1");
        assertThat(empty.getStage()).isEqualTo(0);
        assertThat(PipelineRouter.enter(request("m1"), CASCADE)).isNull();
        assertThat(PipelineRouter.enter(request("m2"), CASCADE))
                .isEqualTo("model 'm2' is not the model of pipeline 'cascade''s entry stage 'fast' ('m1'): leave it empty or name that model");
        InferenceRequest atSlow = request("m1");
        atSlow.setStage(1);
        assertThat(PipelineRouter.enter(atSlow, CASCADE)).isEqualTo("stage 1: a request enters pipeline 'cascade' at its entry stage, 0 ('fast'); leave it empty");
    }

    @Test
    void aStagesDeadlineIsItsBudgetCappedByTheEndToEndOne() {
        Stage slow = CASCADE.stage("slow"); // 40 ms
        assertThat(PipelineRouter.stageDeadline(slow, SENT + 100_000, SENT + 5_000)).isEqualTo(SENT + 45_000);
        assertThat(PipelineRouter.stageDeadline(slow, SENT + 100_000, SENT + 70_000)).isEqualTo(SENT + 100_000);
        assertThat(PipelineRouter.stageDeadline(CASCADE.stage("fast"), SENT + 100_000, SENT)).isEqualTo(SENT + 100_000);
    }

    @Test
    void anUnsureFastModelSendsTheRequestOnWithItsOutput() {
        Tensor unsure = tensor(0.5f, 0.3f, 0.1f, 0.1f); // max 0.5 < 0.8
        PipelineRouter.Step step = PipelineRouter.advance(fastResult(ResultStatus.OK, unsure), null, CASCADE, CATALOG, SENT + 6_000);

        PipelineHop hop = ((PipelineRouter.Step.Hop) step).hop();
        InferenceRequest next = hop.getRequest();
        assertThat(next.getRequestId()).isEqualTo("r1");
        assertThat(next.getModel()).isEqualTo("m2");
        assertThat(next.getStage()).isEqualTo(1);
        assertThat(next.getSentAtMicros()).as("the original send time: the end-to-end deadline travels").isEqualTo(SENT);
        assertThat(next.getSloMs()).isEqualTo(100);
        assertThat(next.getInput()).isEqualTo(unsure);
        StageResult fast = hop.getStages().get(0);
        assertThat(hop.getStages()).hasSize(1);
        assertThat(fast.getStage()).isEqualTo("fast");
        assertThat(fast.getModel()).isEqualTo("m1");
        assertThat(fast.getStatus()).isEqualTo(ResultStatus.OK);
        assertThat(fast.getBatchSize()).isEqualTo(2);
        assertThat(fast.getTimings().getSent()).isEqualTo(SENT);
        assertThat(fast.getTimings().getIngested()).isEqualTo(SENT + 1_000);
        assertThat(fast.getTimings().getExecEnd()).isEqualTo(SENT + 5_000);
        assertThat(fast.getTimings().getEmitted()).as("when the stage's result was made: the hop's start").isEqualTo(SENT + 5_500);
        // The slow stage's request was made then: its budget of 40 ms runs from 1 005 500.
        assertThat(PipelineRouter.stageSentMicros(hop.getStages(), SENT)).isEqualTo(SENT + 5_500);
    }

    @Test
    void aSureFastModelEndsThePipelineWithItsOutput() {
        Tensor sure = tensor(0.9f, 0.05f, 0.05f, 0f);
        InferenceResult last = ((PipelineRouter.Step.Final) PipelineRouter.advance(fastResult(ResultStatus.OK, sure), null, CASCADE, CATALOG, SENT + 6_000)).result();
        assertThat(last.getStatus()).isEqualTo(ResultStatus.OK); // ended at 1 005 000, deadline 1 100 000
        assertThat(last.getOutput()).isEqualTo(sure);
        assertThat(last.getStage()).isEqualTo(0);
        assertThat(last.getModel()).isEqualTo("m1");
        assertThat(last.getStages()).extracting(StageResult::getStage).containsExactly("fast");
        assertThat(last.getTimings().getDeadline()).isEqualTo(SENT + 100_000);
        assertThat(last.getTimings().getEmitted()).isEqualTo(SENT + 6_000);
    }

    @Test
    void theLastStageDecidesOkOrLateAgainstTheEndToEndDeadline() {
        // slow ran at stage deadline 1 045 500 but ended at 1 101 000: late against the budget and end to end
        InferenceRequest r = request("m2");
        r.setStage(1);
        StageResult fast = ((PipelineRouter.Step.Hop) PipelineRouter.advance(fastResult(ResultStatus.OK, tensor(0.5f, 0, 0, 0)), null, CASCADE, CATALOG, SENT))
                .hop().getStages().get(0);
        AdmittedRequest a = AdmittedRequest.newBuilder().setRequest(r).setDeadlineAtMicros(SENT + 45_500).setIngestedAtMicros(SENT + 7_000)
                .setPipelineStages(List.of(fast)).build();
        InferenceResult stage = Results.failed(a, "x", SENT + 101_500);
        for (long end : new long[] {SENT + 60_000, SENT + 101_000}) {
            InferenceResult slow = InferenceResult.newBuilder(stage).setStatus(ResultStatus.LATE).setReason(null).setOutput(tensor(1, 2, 3, 4))
                    .setTimings(StageTimes.newBuilder(stage.getTimings()).setExecEnd(end).build()).build();
            InferenceResult last = ((PipelineRouter.Step.Final) PipelineRouter.advance(slow, null, CASCADE, CATALOG, SENT + 102_000)).result();
            assertThat(last.getStatus()).isEqualTo(end <= SENT + 100_000 ? ResultStatus.OK : ResultStatus.LATE);
            assertThat(last.getStages()).extracting(StageResult::getStage).containsExactly("fast", "slow");
            assertThat(last.getStages().get(1).getStatus()).as("late against its own budget").isEqualTo(ResultStatus.LATE);
            assertThat(last.getStages().get(1).getTimings().getSent()).isEqualTo(SENT + 5_500);
            assertThat(last.getStages().get(1).getTimings().getDeadline()).isEqualTo(SENT + 45_500);
            assertThat(last.getTimings().getIngested()).as("at the entry").isEqualTo(SENT + 1_000);
            assertThat(last.getStage()).isEqualTo(1);
            assertThat(last.getModel()).isEqualTo("m2");
        }
    }

    @Test
    void aFailedStageEndsThePipelineNamingIt() {
        InferenceResult last = ((PipelineRouter.Step.Final) PipelineRouter.advance(fastResult(ResultStatus.FAILED, null), null, CASCADE, CATALOG, SENT + 6_000)).result();
        assertThat(last.getStatus()).isEqualTo(ResultStatus.FAILED);
        assertThat(last.getReason()).isEqualTo("stage 'fast': device 0 failed");
        assertThat(last.getStages()).extracting(StageResult::getStatus).containsExactly(ResultStatus.FAILED);
    }

    @Test
    void aPipelineRemovedOrChangedMeanwhileFailsTheRequest() {
        InferenceResult removed = ((PipelineRouter.Step.Final) PipelineRouter.advance(fastResult(ResultStatus.OK, tensor(0.5f, 0, 0, 0)), null, null, CATALOG, SENT)).result();
        assertThat(removed.getStatus()).isEqualTo(ResultStatus.FAILED);
        assertThat(removed.getReason()).isEqualTo("stage '#0': pipeline 'cascade' is no longer served");
        PipelineSpec swapped = new PipelineSpec("cascade", 100_000, List.of(new Stage("fast", "m3")), List.of());
        assertThat(((PipelineRouter.Step.Final) PipelineRouter.advance(fastResult(ResultStatus.OK, null), null, swapped, CATALOG, SENT)).result().getReason())
                .isEqualTo("stage '#0': pipeline 'cascade' was changed and has no stage of model 'm1' at index 0");
    }

    @Test
    void withoutAnOutputTheNextStageGetsZerosOfItsInput() {
        // A simulated device gives no tensor: no condition holds, but an edge by probability is drawn.
        PipelineSpec chain = new PipelineSpec("cascade", 100_000, List.of(new Stage("fast", "m1"), new Stage("slow", "m2")), List.of(new Edge("fast", "slow", 1)));
        PipelineHop hop = ((PipelineRouter.Step.Hop) PipelineRouter.advance(fastResult(ResultStatus.OK, null), null, chain, CATALOG, SENT)).hop();
        assertThat(hop.getRequest().getInput()).isEqualTo(tensor(0, 0, 0, 0));
    }

    @Test
    void aStageThatReadsTheRequestsInputGetsItAndTheHopCarriesItOn() {
        PipelineSpec image = PipelineSpec.parse(PipelineSpecTest.IMAGE_CASCADE, "image-cascade");
        Tensor picture = tensor(7, 8, 9, 10);
        InferenceResult fast = InferenceResult.newBuilder(fastResult(ResultStatus.OK, tensor(0.5f, 0.3f, 0.1f, 0.1f))).setPipelineId("image-cascade").build();
        PipelineHop hop = ((PipelineRouter.Step.Hop) PipelineRouter.advance(fast, picture, image, CATALOG, SENT + 6_000)).hop();
        assertThat(hop.getRequest().getInput()).as("the slow model reads the picture, not the fast one's probabilities").isEqualTo(picture);
        assertThat(hop.getRequest().getModel()).isEqualTo("m2");
        assertThat(hop.getPipelineInput()).as("carried on for any later stage that reads it").isEqualTo(picture);

        // Where no stage reads it, nothing is carried: the next stage reads the output.
        Tensor unsure = tensor(0.5f, 0.3f, 0.1f, 0.1f);
        PipelineHop plain = ((PipelineRouter.Step.Hop) PipelineRouter.advance(fastResult(ResultStatus.OK, unsure), picture, CASCADE, CATALOG, SENT)).hop();
        assertThat(plain.getRequest().getInput()).isEqualTo(unsure);
        assertThat(plain.getPipelineInput()).isNull();
    }

    @Test
    void aStageThatReadsTheRequestsInputFailsTheRequestWhenTheInputDidNotTravel() {
        // The pipeline was changed to read the request's input while this request was inside it.
        PipelineSpec image = PipelineSpec.parse(PipelineSpecTest.IMAGE_CASCADE, "image-cascade");
        InferenceResult fast = InferenceResult.newBuilder(fastResult(ResultStatus.OK, tensor(0.5f, 0.3f, 0.1f, 0.1f))).setPipelineId("image-cascade").build();
        InferenceResult last = ((PipelineRouter.Step.Final) PipelineRouter.advance(fast, null, image, CATALOG, SENT + 6_000)).result();
        assertThat(last.getStatus()).isEqualTo(ResultStatus.FAILED);
        assertThat(last.getReason()).isEqualTo("stage 'fast': its next stage 'slow' reads the pipeline request's input, which did not travel with the request");
        assertThat(last.getOutput()).isNull();
        assertThat(last.getStages()).extracting(StageResult::getStage).containsExactly("fast");
    }

    @Test
    void conditionsReadEveryNumericOutputAsFloats() {
        assertThat(PipelineRouter.floats(tensor(1.5f, -2f))).containsExactly(1.5f, -2f);
        ByteBuffer bytes = ByteBuffer.wrap(new byte[] {0, (byte) 200});
        assertThat(PipelineRouter.floats(Tensor.newBuilder().setDtype(DType.UINT8).setShape(List.of(2L)).setData(bytes).build())).containsExactly(0f, 200f);
        ByteBuffer longs = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putLong(-3).putLong(7).flip();
        assertThat(PipelineRouter.floats(Tensor.newBuilder().setDtype(DType.INT64).setShape(List.of(2L)).setData(longs).build())).containsExactly(-3f, 7f);
        // 0x3C00 is 1.0 in half precision
        ByteBuffer halves = ByteBuffer.allocate(2).order(ByteOrder.LITTLE_ENDIAN).putShort((short) 0x3C00).flip();
        assertThat(PipelineRouter.floats(Tensor.newBuilder().setDtype(DType.FLOAT16).setShape(List.of(1L)).setData(halves).build())).containsExactly(1f);
        assertThat(PipelineRouter.floats(null)).isEmpty();
        assertThat(PipelineRouter.floats(Tensor.newBuilder().setDtype(DType.FLOAT32).setShape(List.of(1L)).setData(ByteBuffer.allocate(3)).build())).isEmpty();
    }
}
