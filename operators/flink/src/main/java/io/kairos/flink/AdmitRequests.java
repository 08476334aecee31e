package io.kairos.flink;

import io.kairos.core.model.ModelCatalog;
import io.kairos.core.request.RequestValidator;
import io.kairos.core.result.Results;
import io.kairos.core.time.Clock;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.internal.AdmittedRequest;
import io.kairos.schema.internal.RawRequest;
import io.kairos.wire.AvroCodec;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import io.kairos.schema.ControlDecision;
import org.apache.flink.streaming.api.functions.co.BroadcastProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Decodes and checks each request, then tags it with the serving group of its model as the
 * current plan says. Bad input never fails the job: it becomes a REJECTED result (and a request
 * whose deadline passed before it got here, a DROPPED one) on a side output.
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
    private transient AvroCodec<InferenceRequest> codec;
    private transient RequestValidator validator;
    private transient Counter arrivals;
    private transient Counter admittedCount;
    private transient Counter rejected;
    private transient Counter droppedOnArrival;

    public AdmitRequests(ModelCatalog catalog, ControlPlane control) {
        this(catalog, control, Clock.wall());
    }

    /** @param clock what "now" is when a request is turned away or checked against its deadline */
    public AdmitRequests(ModelCatalog catalog, ControlPlane control, Clock clock) {
        this.catalog = catalog;
        this.control = control;
        this.clock = clock;
    }

    /** Names a request by where it was read, for when its own id cannot be had. */
    static String origin(RawRequest raw) {
        return raw.getTopic() + "-" + raw.getPartition() + "@" + raw.getOffset();
    }

    @Override
    public void open(OpenContext openContext) {
        AvroCodec.enableCustomCoders();
        codec = AvroCodec.of(InferenceRequest.class);
        validator = new RequestValidator(catalog);
        MetricGroup metrics = getRuntimeContext().getMetricGroup().addGroup("kairos");
        arrivals = metrics.counter("arrivals");
        admittedCount = metrics.counter("admitted");
        rejected = metrics.counter("rejected");
        droppedOnArrival = metrics.counter("droppedOnArrival");
    }

    @Override
    public void processElement(RawRequest raw, ReadOnlyContext ctx, Collector<AdmittedRequest> out) throws Exception {
        arrivals.inc();
        InferenceRequest request;
        try {
            request = codec.decode(raw.getPayload());
        } catch (AvroCodec.MalformedRecordException e) {
            rejected.inc();
            ctx.output(TURNED_AWAY, Results.rejected(origin(raw), null, "malformed request: " + e.getMessage(), raw.getIngestedAtMicros(), clock.nowMicros()));
            return;
        }
        String reason = validator.rejectionReason(request);
        if (reason != null) {
            rejected.inc();
            ctx.output(TURNED_AWAY, Results.rejected(origin(raw), request, reason, raw.getIngestedAtMicros(), clock.nowMicros()));
            return;
        }
        AdmittedRequest admitted = AdmittedRequest.newBuilder()
                .setRequest(request)
                .setDeadlineAtMicros(RequestValidator.deadlineMicros(request))
                .setIngestedAtMicros(raw.getIngestedAtMicros())
                .build();
        long now = clock.nowMicros();
        if (admitted.getDeadlineAtMicros() <= now) {
            droppedOnArrival.inc();
            ctx.output(TURNED_AWAY, Results.dropped(admitted, "deadline passed " + (now - admitted.getDeadlineAtMicros()) + " us before the request was read", now));
            return;
        }
        admitted.setGroup(control.plan(ctx.getBroadcastState(ControlPlane.DECISIONS)).groupOf(request.getModel()));
        admittedCount.inc();
        out.collect(admitted);
    }

    @Override
    public void processBroadcastElement(ControlDecision decision, Context ctx, Collector<AdmittedRequest> out) throws Exception {
        control.apply(ctx.getBroadcastState(ControlPlane.DECISIONS), decision);
    }
}
