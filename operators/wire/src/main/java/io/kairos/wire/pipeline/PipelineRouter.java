package io.kairos.wire.pipeline;

import io.kairos.core.api.Internal;
import io.kairos.core.model.InputConversion;
import io.kairos.core.model.InputSpec;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.model.ModelSpec;
import io.kairos.core.pipeline.Edge;
import io.kairos.core.pipeline.PipelineSpec;
import io.kairos.core.pipeline.Stage;
import io.kairos.schema.DType;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.ResultStatus;
import io.kairos.schema.StageResult;
import io.kairos.schema.StageTimes;
import io.kairos.schema.Tensor;
import io.kairos.schema.internal.PipelineHop;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * A pipeline request's way through the job, stage by stage, as plain functions of the records:
 * how a request enters at the entry stage ({@link #enter}), the deadline of each stage
 * ({@link #stageDeadline}), and what becomes of a stage's result ({@link #advance}): the next
 * stage's request, to travel as a {@link PipelineHop}, or the request's one final result.
 *
 * <p>Every stage's request keeps the original request id, tenant, send time and SLO, so that the
 * end-to-end deadline ({@code sent_at_micros + slo_ms}) travels with it; what a stage did is
 * added to the {@link StageResult}s the request carries, and the final result holds them all.
 * A stage whose result is not OK or LATE (FAILED, DROPPED, REJECTED) ends the pipeline there, its
 * status and reason ({@code stage 'name': ...}) the final result's.
 *
 * <p>A next stage's input is the stage's output, or the pipeline request's own input for a stage
 * that reads it ({@link Stage#readsRequestInput}); that input then travels with every stage's
 * request ({@code pipeline_input} of the internal records), and only in pipelines that have such
 * a stage.
 */
@Internal
public final class PipelineRouter {
    private PipelineRouter() {}

    /** What a stage's result becomes: the request's final result, or its hop to the next stage. */
    public sealed interface Step {
        record Final(InferenceResult result) implements Step {}

        record Hop(PipelineHop hop) implements Step {}
    }

    /**
     * Makes {@code request} the entry stage's request of {@code spec}: its model the entry
     * stage's, its stage the entry's index. A request may name the entry stage's model or leave
     * the model empty; any other model is a mistake of the client's, as is a stage other than the
     * entry's.
     *
     * @return why the request cannot enter, naming the field, or null when it entered
     */
    public static String enter(InferenceRequest request, PipelineSpec spec) {
        Stage entry = spec.entry();
        int index = spec.stages().indexOf(entry);
        String model = request.getModel();
        if (model != null && !model.isEmpty() && !model.equals(entry.model())) {
            return "model '" + model + "' is not the model of pipeline '" + spec.id() + "''s entry stage '" + entry.name() + "' ('"
                    + entry.model() + "'): leave it empty or name that model";
        }
        if (request.getStage() != null && request.getStage() != index) {
            return "stage " + request.getStage() + ": a request enters pipeline '" + spec.id() + "' at its entry stage, " + index
                    + " ('" + entry.name() + "'); leave it empty";
        }
        request.setModel(entry.model());
        request.setStage(index);
        return null;
    }

    /**
     * A stage's deadline: the end-to-end deadline, or sooner where the stage has a budget, counted
     * from {@code stageSentMicros} (the client's send for the entry stage, the previous stage's
     * result for the others, so that the hop counts against the stage it leads to).
     */
    public static long stageDeadline(Stage stage, long endToEndDeadlineMicros, long stageSentMicros) {
        if (!stage.hasBudget()) return endToEndDeadlineMicros;
        long budgetEnd = stageSentMicros + stage.budgetMicros();
        return budgetEnd < stageSentMicros ? endToEndDeadlineMicros : Math.min(endToEndDeadlineMicros, budgetEnd);
    }

    /** When a stage's request was made: the previous stage's result, or for the entry the client's send. */
    public static long stageSentMicros(List<StageResult> before, long sentMicros) {
        return before.isEmpty() ? sentMicros : before.get(before.size() - 1).getTimings().getEmitted();
    }

    /**
     * The stage of {@code spec} that a stage request of {@code model} at {@code index} is at, or
     * null when the pipeline no longer has it there (the pipeline was changed while the request
     * was inside it).
     */
    public static Stage stageAt(PipelineSpec spec, Integer index, String model) {
        if (spec == null || index == null || index < 0 || index >= spec.stages().size()) return null;
        Stage stage = spec.stages().get(index);
        return stage.model().equals(model) ? stage : null;
    }

    /**
     * What becomes of {@code result}, the result of one stage of a pipeline request (its
     * {@code pipeline_id} and {@code stage} set, its {@code stages} those before it).
     *
     * @param requestInput the pipeline request's own input, for a next stage that reads it
     *                     ({@link Stage#readsRequestInput}); null when no stage of the pipeline does
     * @param spec    the pipeline as the job serves it now; null when it no longer does
     * @param catalog the models, for the input of a next stage when a stage gave no output (a
     *                simulated device's): zeros of that model's input
     * @param nowMicros when the step is taken: the final result's emission time
     */
    public static Step advance(InferenceResult result, Tensor requestInput, PipelineSpec spec, ModelCatalog catalog, long nowMicros) {
        Stage stage = stageAt(spec, result.getStage(), result.getModel());
        if (stage == null) {
            String name = "#" + result.getStage();
            String reason = spec == null ? "pipeline '" + result.getPipelineId() + "' is no longer served"
                    : "pipeline '" + result.getPipelineId() + "' was changed and has no stage of model '" + result.getModel() + "' at index " + result.getStage();
            InferenceResult failed = InferenceResult.newBuilder(result).setStatus(ResultStatus.FAILED).setReason(reason).setOutput(null).build();
            return new Step.Final(ended(failed, name, nowMicros));
        }
        if (result.getStatus() != ResultStatus.OK && result.getStatus() != ResultStatus.LATE) {
            return new Step.Final(ended(result, stage.name(), nowMicros));
        }
        Edge edge = spec.next(stage.name(), floats(result.getOutput()), result.getRequestId());
        List<StageResult> stages = withStage(result, stage.name());
        if (edge == null) return new Step.Final(completed(result, stages, nowMicros));
        Stage next = spec.stage(edge.to());
        if (next.readsRequestInput() && requestInput == null) {
            // The pipeline was changed to read the request's input while this request was inside it.
            InferenceResult failed = InferenceResult.newBuilder(result).setStatus(ResultStatus.FAILED)
                    .setReason("its next stage '" + next.name() + "' reads the pipeline request's input, which did not travel with the request")
                    .setOutput(null).build();
            return new Step.Final(ended(failed, stage.name(), nowMicros));
        }
        Tensor input = next.readsRequestInput() ? requestInput
                : result.getOutput() != null ? result.getOutput() : zeros(catalog.get(next.model()));
        InferenceRequest request = InferenceRequest.newBuilder()
                .setRequestId(result.getRequestId())
                .setTenant(result.getTenant())
                .setModel(next.model())
                .setInput(input)
                .setSentAtMicros(result.getTimings().getSent())
                .setSloMs(result.getSloMs())
                .setPipelineId(result.getPipelineId())
                .setStage(spec.stages().indexOf(next))
                .build();
        // The request's input travels on only while a stage may still read it.
        Tensor carried = spec.readsRequestInput() ? requestInput : null;
        return new Step.Hop(PipelineHop.newBuilder().setRequest(request).setStages(stages).setPipelineInput(carried).build());
    }

    /**
     * The final result of a pipeline request whose path ended at a stage that did not run it to
     * completion: {@code result} is that stage's (FAILED, DROPPED or REJECTED, its {@code stages}
     * those before it); the final result takes its status, and its reason prefixed with the stage.
     */
    public static InferenceResult ended(InferenceResult result, String stageName, long nowMicros) {
        List<StageResult> stages = withStage(result, stageName);
        String reason = "stage '" + stageName + "': " + (result.getReason() == null ? result.getStatus().name().toLowerCase() : result.getReason());
        return InferenceResult.newBuilder(result)
                .setReason(reason)
                .setOutput(null)
                .setStages(stages)
                .setTimings(endToEnd(result, stages, nowMicros))
                .build();
    }

    /** The final result of a request whose path ended after a stage that ran it: OK or LATE against the end-to-end deadline. */
    private static InferenceResult completed(InferenceResult last, List<StageResult> stages, long nowMicros) {
        StageTimes t = endToEnd(last, stages, nowMicros);
        Long end = last.getTimings().getExecEnd();
        ResultStatus status = end != null && end <= t.getDeadline() ? ResultStatus.OK : ResultStatus.LATE;
        return InferenceResult.newBuilder(last).setStatus(status).setReason(null).setStages(stages).setTimings(t).build();
    }

    /** The request's times end to end: its send time and deadline, ingested at the entry stage, the rest of its last stage. */
    private static StageTimes endToEnd(InferenceResult last, List<StageResult> stages, long nowMicros) {
        StageTimes own = last.getTimings();
        long sent = own.getSent();
        long slo = Math.round(last.getSloMs() * 1000.0);
        long deadline = sent + slo;
        if (((sent ^ deadline) & (slo ^ deadline)) < 0) deadline = Long.MAX_VALUE;
        return StageTimes.newBuilder(own)
                .setSent(sent)
                .setDeadline(deadline)
                .setIngested(stages.isEmpty() ? own.getIngested() : stages.get(0).getTimings().getIngested())
                .setEmitted(nowMicros)
                .build();
    }

    /** The stages before {@code result}'s, then its own. */
    private static List<StageResult> withStage(InferenceResult result, String stageName) {
        List<StageResult> stages = new ArrayList<>(result.getStages());
        StageTimes own = result.getTimings();
        StageTimes times = StageTimes.newBuilder(own).setSent(stageSentMicros(result.getStages(), own.getSent())).build();
        stages.add(StageResult.newBuilder()
                .setStage(stageName)
                .setModel(result.getModel())
                .setStatus(result.getStatus())
                .setReason(result.getReason())
                .setBatchSize(result.getBatchSize())
                .setDevice(result.getDevice())
                .setColdStart(result.getColdStart())
                .setTimings(times)
                .build());
        return stages;
    }

    /** A tensor of zeros for {@code model}'s input. */
    static Tensor zeros(ModelSpec model) {
        InputSpec in = model.input();
        List<Long> shape = new ArrayList<>();
        for (long d : in.shape()) shape.add(d);
        return Tensor.newBuilder().setDtype(DType.valueOf(in.dtype())).setShape(shape).setData(ByteBuffer.allocate((int) in.byteSize())).build();
    }

    /**
     * An output's values as floats, what conditions read: FLOAT32 as it is, other numeric types
     * converted; empty for no output, BOOL, or data of the wrong length.
     */
    public static float[] floats(Tensor t) {
        if (t == null || t.getData() == null || t.getDtype() == null) return new float[0];
        ByteBuffer data = t.getData().duplicate().order(ByteOrder.LITTLE_ENDIAN);
        String dtype = t.getDtype().name();
        if (dtype.equals("BOOL")) return new float[0];
        int width = InputSpec.bytesPerElement(dtype);
        if (data.remaining() % width != 0) return new float[0];
        int n = data.remaining() / width;
        float[] out = new float[n];
        switch (dtype) {
            case "FLOAT32" -> data.asFloatBuffer().get(out);
            case "FLOAT64" -> { for (int i = 0; i < n; i++) out[i] = (float) data.getDouble(); }
            case "INT32" -> { for (int i = 0; i < n; i++) out[i] = data.getInt(); }
            case "INT64" -> { for (int i = 0; i < n; i++) out[i] = data.getLong(); }
            case "INT8" -> { for (int i = 0; i < n; i++) out[i] = data.get(); }
            default -> { // UINT8, FLOAT16: widened as a device widens its input
                ByteBuffer widened = ByteBuffer.allocate(n * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
                InputConversion.copy(data, dtype, widened, "FLOAT32");
                widened.flip();
                widened.asFloatBuffer().get(out);
            }
        }
        return out;
    }
}
