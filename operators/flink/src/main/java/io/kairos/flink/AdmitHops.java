package io.kairos.flink;

import io.kairos.core.model.ModelCatalog;
import io.kairos.core.pipeline.PipelineSpec;
import io.kairos.core.pipeline.Stage;
import io.kairos.core.plan.ServingPlan;
import io.kairos.core.request.AdmissionLimits;
import io.kairos.core.time.Clock;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.ResultStatus;
import io.kairos.schema.StageResult;
import io.kairos.schema.internal.AdmittedRequest;
import io.kairos.schema.internal.PipelineHop;
import io.kairos.wire.AvroCodec;
import io.kairos.wire.pipeline.PipelineRouter;
import io.kairos.wire.request.RequestValidator;
import io.kairos.wire.result.Results;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.functions.co.KeyedBroadcastProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

import java.util.List;

/**
 * Admits a pipeline request to its next stage, read back from the pipeline-hops topic: what
 * {@link AdmitRequests} does for a client's request, for a stage the request reaches after
 * another. Its input is checked against the stage's model (a stage whose output does not fit the
 * next stage's input is REJECTED there), its deadline is the stage's
 * ({@link PipelineRouter#stageDeadline}), and it is routed to its model's serving group. A hop
 * that cannot go on gives the request's one final result, naming the stage, on the
 * {@link #TURNED_AWAY} side output.
 *
 * <p><b>Each hop once.</b> Keyed by request, send time and stage ({@link #KEY}): after a restore
 * the hops written since the checkpoint are read again from the topic, and the replayed requests
 * make the same hops once more (a request's path depends only on its id and its outputs); the
 * second of each is dropped here, so that a request still gets one final result, under
 * at-least-once and exactly-once delivery alike. A key is remembered {@code memoryMs} after its
 * first hop, far longer than a replay takes to be read.
 *
 * <p>Metrics (group {@code kairos}): {@code hopsAdmitted}, {@code hopsTurnedAway},
 * {@code hopsDuplicate}.
 */
public final class AdmitHops extends KeyedBroadcastProcessFunction<String, PipelineHop, ControlDecision, AdmittedRequest> {
    public static final OutputTag<InferenceResult> TURNED_AWAY = new OutputTag<>("hops-turned-away") {};

    /** A hop's identity: its request (id and send time) and the stage it goes to. */
    public static final KeySelector<PipelineHop, String> KEY = hop -> {
        InferenceRequest r = hop.getRequest();
        return r.getRequestId() + '\u0000' + r.getSentAtMicros() + '\u0000' + r.getStage();
    };

    private final ModelCatalog catalog;
    private final ControlPlane control;
    private final AdmissionLimits limits;
    private final long memoryMs;
    private final Clock clock;
    private transient RequestValidator validator;
    private transient ValueState<Boolean> seen;
    private transient Counter admitted;
    private transient Counter turnedAway;
    private transient Counter duplicates;

    public AdmitHops(ModelCatalog catalog, ControlPlane control, AdmissionLimits limits, long memoryMs, Clock clock) {
        if (memoryMs <= 0) throw new IllegalArgumentException("the hops' memory must be positive, got " + memoryMs + " ms");
        this.catalog = catalog;
        this.control = control;
        this.limits = limits;
        this.memoryMs = memoryMs;
        this.clock = clock;
    }

    @Override
    public void open(OpenContext openContext) {
        AvroCodec.enableCustomCoders();
        validator = new RequestValidator(catalog, limits);
        seen = getRuntimeContext().getState(new ValueStateDescriptor<>("hop-seen", Types.BOOLEAN));
        MetricGroup metrics = getRuntimeContext().getMetricGroup().addGroup("kairos");
        admitted = metrics.counter("hopsAdmitted");
        turnedAway = metrics.counter("hopsTurnedAway");
        duplicates = metrics.counter("hopsDuplicate");
    }

    @Override
    public void processElement(PipelineHop hop, ReadOnlyContext ctx, Collector<AdmittedRequest> out) throws Exception {
        if (seen.value() != null) {
            duplicates.inc();
            return;
        }
        seen.update(true);
        ctx.timerService().registerProcessingTimeTimer(ctx.timerService().currentProcessingTime() + memoryMs);
        long now = clock.nowMicros();
        InferenceResult ended;
        try {
            ServingPlan plan = control.plan(ctx.getBroadcastState(ControlPlane.DECISIONS));
            Admission a = admit(hop, plan, now);
            if (a.admitted() != null) {
                admitted.inc();
                out.collect(a.admitted());
                return;
            }
            ended = a.ended();
        } catch (RuntimeException e) { // a bug or a case no check foresaw: this request fails, the job goes on
            ended = ended(hop, ResultStatus.FAILED, "#" + hop.getRequest().getStage(), "the hop could not be admitted: " + e, now);
        }
        turnedAway.inc();
        ctx.output(TURNED_AWAY, ended);
    }

    /** The stage's request admitted, or the request's final result. */
    private record Admission(AdmittedRequest admitted, InferenceResult ended) {
        static Admission ended(InferenceResult result) {
            return new Admission(null, result);
        }
    }

    private Admission admit(PipelineHop hop, ServingPlan plan, long now) {
        InferenceRequest request = hop.getRequest();
        PipelineSpec spec = plan.pipeline(request.getPipelineId());
        Stage stage = PipelineRouter.stageAt(spec, request.getStage(), request.getModel());
        if (stage == null) {
            String reason = spec == null ? "pipeline '" + request.getPipelineId() + "' is no longer served"
                    : "pipeline '" + request.getPipelineId() + "' was changed and has no stage of model '" + request.getModel() + "' at index " + request.getStage();
            return Admission.ended(ended(hop, ResultStatus.FAILED, "#" + request.getStage(), reason, now));
        }
        String reason = validator.rejectionReason(request, now);
        if (reason != null) return Admission.ended(ended(hop, ResultStatus.REJECTED, stage.name(), reason, now));
        List<StageResult> before = hop.getStages();
        long sent = PipelineRouter.stageSentMicros(before, request.getSentAtMicros());
        AdmittedRequest next = AdmittedRequest.newBuilder()
                .setRequest(request)
                .setDeadlineAtMicros(PipelineRouter.stageDeadline(stage, RequestValidator.deadlineMicros(request), sent))
                .setIngestedAtMicros(now)
                .setPipelineStages(before)
                .setPipelineInput(hop.getPipelineInput())
                .build();
        String unreachable = validator.unreachableReason(request, next.getDeadlineAtMicros(), now);
        if (unreachable != null) return Admission.ended(PipelineRouter.ended(Results.dropped(next, unreachable, now), stage.name(), now));
        next.setGroup(plan.groupOf(request.getModel()));
        return new Admission(next, null);
    }

    /** The request's final result: {@code status} at stage {@code stageName}, for {@code reason}. */
    private static InferenceResult ended(PipelineHop hop, ResultStatus status, String stageName, String reason, long now) {
        InferenceResult r = Results.rejected("", hop.getRequest(), reason, now, now);
        r.setStatus(status);
        r.setStages(hop.getStages());
        return PipelineRouter.ended(r, stageName, now);
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<AdmittedRequest> out) {
        seen.clear();
    }

    @Override
    public void processBroadcastElement(ControlDecision decision, Context ctx, Collector<AdmittedRequest> out) throws Exception {
        control.apply(ctx.getBroadcastState(ControlPlane.DECISIONS), decision);
    }
}
