package io.kairos.flink;

import io.kairos.core.model.ModelCatalog;
import io.kairos.core.pipeline.PipelineSpec;
import io.kairos.core.pipeline.Stage;
import io.kairos.core.time.Clock;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.ResultStatus;
import io.kairos.schema.Tensor;
import io.kairos.schema.internal.PipelineHop;
import io.kairos.schema.internal.StageOutcome;
import io.kairos.wire.AvroCodec;
import io.kairos.wire.pipeline.PipelineRouter;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.functions.co.BroadcastProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Takes each pipeline stage's result (with the pipeline request's input where a later stage reads
 * it) one step on ({@link PipelineRouter#advance}): to the
 * request's one final result, or to its next stage's request on the {@link #HOPS} side output,
 * which the job writes to the pipeline-hops topic and reads back into admission
 * ({@link AdmitHops}). Only the results of pipeline stages come here; no stage's own result
 * reaches the results topic.
 *
 * <p>The next stage is the pipeline's as the broadcast plan holds it when the stage ends; a
 * pipeline removed or changed while a request is inside it ends the request FAILED, naming it.
 * An exception fails that request, never the job.
 *
 * <p>Metrics (group {@code kairos}): {@code pipelineHops}, the hops sent on; {@code pipelineResults},
 * the final results made here.
 */
public final class AdvancePipelines extends BroadcastProcessFunction<StageOutcome, ControlDecision, InferenceResult> {
    public static final OutputTag<PipelineHop> HOPS = new OutputTag<>("pipeline-hops", new AvroTypeInfo<>(PipelineHop.class));

    private final ModelCatalog catalog;
    private final ControlPlane control;
    private final boolean hopsTravel;
    private final Clock clock;
    private transient Counter hops;
    private transient Counter finals;

    /**
     * @param hopsTravel whether the job has a hops topic to send a next stage's request through;
     *                   without one, a request whose path goes on fails at that stage, naming why
     */
    public AdvancePipelines(ModelCatalog catalog, ControlPlane control, boolean hopsTravel, Clock clock) {
        this.catalog = catalog;
        this.control = control;
        this.hopsTravel = hopsTravel;
        this.clock = clock;
    }

    @Override
    public void open(OpenContext openContext) {
        AvroCodec.enableCustomCoders();
        MetricGroup metrics = getRuntimeContext().getMetricGroup().addGroup("kairos");
        hops = metrics.counter("pipelineHops");
        finals = metrics.counter("pipelineResults");
    }

    @Override
    public void processElement(StageOutcome outcome, ReadOnlyContext ctx, Collector<InferenceResult> out) throws Exception {
        long now = clock.nowMicros();
        InferenceResult stageResult = outcome.getResult();
        PipelineSpec spec = null;
        InferenceResult last;
        try {
            spec = control.plan(ctx.getBroadcastState(ControlPlane.DECISIONS)).pipeline(stageResult.getPipelineId());
            PipelineRouter.Step step = PipelineRouter.advance(stageResult, outcome.getPipelineInput(), spec, catalog, now);
            if (step instanceof PipelineRouter.Step.Hop h && hopsTravel) {
                hops.inc();
                ctx.output(HOPS, h.hop());
                return;
            }
            last = step instanceof PipelineRouter.Step.Final f ? f.result()
                    : failed(stageResult, spec, "the job has no pipeline hops topic to send the request on to its next stage", now);
        } catch (RuntimeException e) { // a bug or a case no check foresaw: this request fails, the job goes on
            last = failed(stageResult, spec, "the pipeline could not take the request on: " + e, now);
        }
        finals.inc();
        out.collect(last);
    }

    /** The request's final result, FAILED at the stage of {@code stageResult}. */
    private static InferenceResult failed(InferenceResult stageResult, PipelineSpec spec, String reason, long now) {
        InferenceResult f = InferenceResult.newBuilder(stageResult).setStatus(ResultStatus.FAILED).setReason(reason).setOutput(null).build();
        try {
            Stage stage = PipelineRouter.stageAt(spec, stageResult.getStage(), stageResult.getModel());
            return PipelineRouter.ended(f, stage == null ? "#" + stageResult.getStage() : stage.name(), now);
        } catch (RuntimeException again) {
            return f;
        }
    }

    @Override
    public void processBroadcastElement(ControlDecision decision, Context ctx, Collector<InferenceResult> out) throws Exception {
        control.apply(ctx.getBroadcastState(ControlPlane.DECISIONS), decision);
    }

    /** A stage's result as this function takes it: with the pipeline request's input where a later stage reads it, else null. */
    public static StageOutcome outcome(InferenceResult stageResult, Tensor pipelineInput) {
        return StageOutcome.newBuilder().setResult(stageResult).setPipelineInput(pipelineInput).build();
    }

    /** Whether {@code result} is a pipeline stage's, for this function rather than the results topic. */
    public static boolean ofAStage(InferenceResult result) {
        return result.getPipelineId() != null;
    }
}
