package io.kairos.flink;

import io.kairos.core.model.ModelCatalog;
import io.kairos.core.pipeline.PipelineSpec;
import io.kairos.core.plan.ServingPlan;
import io.kairos.core.request.AdmissionLimits;
import io.kairos.core.request.Utf8;
import io.kairos.core.time.Clock;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.internal.AdmittedRequest;
import io.kairos.schema.internal.RawRequest;
import io.kairos.wire.AvroCodec;
import io.kairos.wire.FramedDecoder;
import io.kairos.wire.RegistryFraming;
import io.kairos.wire.pipeline.PipelineRouter;
import io.kairos.wire.request.RequestValidator;
import io.kairos.wire.result.Results;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.functions.co.BroadcastProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Decodes and checks each request, then tags it with the serving group of its model as the
 * current plan says. A request that names a pipeline ({@code pipeline_id}) enters as the
 * pipeline's entry stage ({@link PipelineRouter#enter}): checked against that stage's model, with
 * that stage's deadline; a problem then gives its one final result, naming the stage; a pipeline
 * the plan lacks, a REJECTED one. Bad input never fails the job: it becomes a REJECTED result (and a request
 * whose deadline passed before it got here, or is too near for its model to run even alone, a
 * DROPPED one, shed before it costs the scheduler anything) on a side output. Every size and range
 * is checked against the {@link AdmissionLimits} (ids, names, SLO, send time against the clock), so
 * an admitted request can neither overflow its deadline nor grow its result beyond what the job
 * writes; and an exception while admitting one request rejects that request, never the job.
 *
 * <p>A record is plain Avro binary, or in a schema registry's wire format when {@link RegistryFraming}
 * allows it (an id the job was given, or one its registry knows; a look-up blocks this operator
 * for the first record of each id only, and a registry that is down rejects the records that need
 * it, never the job).
 *
 * <p>Decoding, validation and routing are one operator because routing needs the broadcast
 * plan, and Flink never chains a two-input operator to its upstream: as separate operators, every
 * request would be encoded and decoded once more between them.
 *
 * <p>Metrics (group {@code kairos}): {@code arrivals} (records read), {@code admitted},
 * {@code rejected}, {@code droppedOnArrival}.
 */
public final class AdmitRequests extends BroadcastProcessFunction<RawRequest, ControlDecision, AdmittedRequest> {
    public static final OutputTag<InferenceResult> TURNED_AWAY = new OutputTag<>("turned-away") {};

    private final ModelCatalog catalog;
    private final ControlPlane control;
    private final Clock clock;
    private final AdmissionLimits limits;
    private final RegistryFraming framing;
    private transient FramedDecoder<InferenceRequest> codec;
    private transient RequestValidator validator;
    // The request being admitted once decoded, to name it should its admission throw.
    private transient InferenceRequest decoded;
    private transient Counter arrivals;
    private transient Counter admittedCount;
    private transient Counter rejected;
    private transient Counter droppedOnArrival;

    public AdmitRequests(ModelCatalog catalog, ControlPlane control) {
        this(catalog, control, AdmissionLimits.DEFAULTS, Clock.wall());
    }

    /** @param clock what "now" is when a request is turned away or checked against its deadline */
    public AdmitRequests(ModelCatalog catalog, ControlPlane control, Clock clock) {
        this(catalog, control, AdmissionLimits.DEFAULTS, clock);
    }

    public AdmitRequests(ModelCatalog catalog, ControlPlane control, AdmissionLimits limits, Clock clock) {
        this(catalog, control, limits, RegistryFraming.NONE, clock);
    }

    /** @param framing which records in a schema registry's wire format are read besides plain Avro binary */
    public AdmitRequests(ModelCatalog catalog, ControlPlane control, AdmissionLimits limits, RegistryFraming framing, Clock clock) {
        this.catalog = catalog;
        this.control = control;
        this.limits = limits;
        this.framing = framing;
        this.clock = clock;
    }

    /** Names a request by where it was read, for when its own id cannot be had. */
    static String origin(RawRequest raw) {
        return raw.getTopic() + "-" + raw.getPartition() + "@" + raw.getOffset();
    }

    /**
     * The id of the result of a record that cannot be decoded: its Kafka key, when it has one that
     * could be a request id (UTF-8, not blank, within the id limit), since clients that key their
     * requests by id correlate by it; else where it was read. The reason names the origin either way.
     */
    private String undecodedName(RawRequest raw) {
        ByteBuffer key = raw.getKey();
        if (key == null || !key.hasRemaining()) return origin(raw);
        try {
            String text = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(key.duplicate()).toString();
            return text.isBlank() || !Utf8.fits(text, limits.maxIdBytes()) ? origin(raw) : text;
        } catch (CharacterCodingException e) {
            return origin(raw);
        }
    }

    @Override
    public void open(OpenContext openContext) {
        AvroCodec.enableCustomCoders();
        codec = framing.decoder(InferenceRequest.class);
        validator = new RequestValidator(catalog, limits);
        MetricGroup metrics = getRuntimeContext().getMetricGroup().addGroup("kairos");
        arrivals = metrics.counter("arrivals");
        admittedCount = metrics.counter("admitted");
        rejected = metrics.counter("rejected");
        droppedOnArrival = metrics.counter("droppedOnArrival");
    }

    @Override
    public void processElement(RawRequest raw, ReadOnlyContext ctx, Collector<AdmittedRequest> out) throws Exception {
        arrivals.inc();
        decoded = null;
        AdmittedRequest admitted;
        try {
            admitted = admit(raw, ctx);
            if (admitted == null) return;
        } catch (RuntimeException e) { // a bug or a case no check foresaw: this request fails, the job goes on
            rejected.inc();
            ctx.output(TURNED_AWAY, failedToAdmit(raw, decoded, e));
            return;
        }
        admittedCount.inc();
        out.collect(admitted);
    }

    /** A REJECTED result for a request whose admission threw: under its id if it could be decoded, else its origin. */
    private InferenceResult failedToAdmit(RawRequest raw, InferenceRequest request, RuntimeException e) {
        String reason = "request could not be admitted: " + e;
        try {
            return Results.rejected(origin(raw), request, reason, raw.getIngestedAtMicros(), clock.nowMicros());
        } catch (RuntimeException again) {
            return Results.rejected(origin(raw), null, reason, raw.getIngestedAtMicros(), clock.nowMicros());
        }
    }

    /** The request admitted and routed, or null when it was turned away (its result is out). */
    private AdmittedRequest admit(RawRequest raw, ReadOnlyContext ctx) throws Exception {
        InferenceRequest request;
        try {
            request = codec.decode(raw.getPayload());
        } catch (AvroCodec.MalformedRecordException e) {
            rejected.inc();
            ctx.output(TURNED_AWAY, Results.rejected(undecodedName(raw), null, "malformed request: " + e.getMessage() + " (record " + origin(raw) + ")",
                    raw.getIngestedAtMicros(), clock.nowMicros()));
            return null;
        }
        decoded = request;
        long now = clock.nowMicros();
        ServingPlan plan = control.plan(ctx.getBroadcastState(ControlPlane.DECISIONS));
        PipelineSpec pipeline = null;
        if (request.getPipelineId() != null) {
            // A pipeline's request enters as its entry stage's: its model is that stage's from here on.
            pipeline = plan.pipeline(request.getPipelineId());
            String problem = pipeline == null ? unknownPipeline(request.getPipelineId(), plan) : PipelineRouter.enter(request, pipeline);
            if (problem != null) {
                rejected.inc();
                ctx.output(TURNED_AWAY, Results.rejected(origin(raw), request, problem, raw.getIngestedAtMicros(), now));
                return null;
            }
        }
        String reason = validator.rejectionReason(request, now);
        if (reason != null) {
            rejected.inc();
            ctx.output(TURNED_AWAY, atEntry(pipeline, Results.rejected(origin(raw), request, reason, raw.getIngestedAtMicros(), now), now));
            return null;
        }
        long deadline = RequestValidator.deadlineMicros(request);
        if (pipeline != null) deadline = PipelineRouter.stageDeadline(pipeline.entry(), deadline, request.getSentAtMicros());
        AdmittedRequest admitted = AdmittedRequest.newBuilder()
                .setRequest(request)
                .setDeadlineAtMicros(deadline)
                .setIngestedAtMicros(raw.getIngestedAtMicros())
                // A pipeline with a stage that reads the request's own input carries it from the entry on.
                .setPipelineInput(pipeline != null && pipeline.readsRequestInput() ? request.getInput() : null)
                .build();
        String unreachable = validator.unreachableReason(request, admitted.getDeadlineAtMicros(), now);
        if (unreachable != null) {
            droppedOnArrival.inc();
            ctx.output(TURNED_AWAY, atEntry(pipeline, Results.dropped(admitted, unreachable, now), now));
            return null;
        }
        admitted.setGroup(plan.groupOf(request.getModel()));
        return admitted;
    }

    /** A result of the request as it was turned away: for a pipeline's request, its final result at the entry stage. */
    private static InferenceResult atEntry(PipelineSpec pipeline, InferenceResult result, long now) {
        return pipeline == null ? result : PipelineRouter.ended(result, pipeline.entry().name(), now);
    }

    /** Why a pipeline id the plan lacks is refused: naming it (unless it is too long to echo) and those served. */
    private String unknownPipeline(String id, ServingPlan plan) {
        String named = Utf8.fits(id, limits.maxIdBytes()) ? "pipeline_id '" + id + "'" : "pipeline_id (" + Utf8.length(id) + " bytes)";
        return named + " names no pipeline the job serves; it serves " + (plan.pipelines().isEmpty() ? "none" : plan.pipelines().keySet().toString());
    }

    @Override
    public void processBroadcastElement(ControlDecision decision, Context ctx, Collector<AdmittedRequest> out) throws Exception {
        control.apply(ctx.getBroadcastState(ControlPlane.DECISIONS), decision);
    }
}
