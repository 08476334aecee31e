package io.kairos.flink;

import io.kairos.core.model.ModelCatalog;
import io.kairos.core.request.RequestValidator;
import io.kairos.core.result.Results;
import io.kairos.core.time.WallClock;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.internal.AdmittedRequest;
import io.kairos.schema.internal.RawRequest;
import io.kairos.wire.AvroCodec;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Decodes and checks each request. Bad input never fails the job: it becomes a REJECTED result
 * (and a request whose deadline passed before it got here, a DROPPED one) on a side output.
 */
public final class ValidateRequests extends ProcessFunction<RawRequest, AdmittedRequest> {
    public static final OutputTag<InferenceResult> TURNED_AWAY = new OutputTag<>("turned-away") {};

    private final ModelCatalog catalog;
    private transient AvroCodec<InferenceRequest> codec;
    private transient RequestValidator validator;

    public ValidateRequests(ModelCatalog catalog) {
        this.catalog = catalog;
    }

    @Override
    public void open(OpenContext openContext) {
        codec = AvroCodec.of(InferenceRequest.class);
        validator = new RequestValidator(catalog);
    }

    @Override
    public void processElement(RawRequest raw, Context ctx, Collector<AdmittedRequest> out) {
        InferenceRequest request;
        try {
            request = codec.decode(raw.getPayload());
        } catch (AvroCodec.MalformedRecordException e) {
            ctx.output(TURNED_AWAY, Results.rejected(raw.getOrigin(), null, "malformed request: " + e.getMessage(), raw.getIngestedAtMicros(), WallClock.nowMicros()));
            return;
        }
        String reason = validator.rejectionReason(request);
        if (reason != null) {
            ctx.output(TURNED_AWAY, Results.rejected(raw.getOrigin(), request, reason, raw.getIngestedAtMicros(), WallClock.nowMicros()));
            return;
        }
        AdmittedRequest admitted = AdmittedRequest.newBuilder()
                .setRequest(request)
                .setDeadlineAtMicros(RequestValidator.deadlineMicros(request))
                .setIngestedAtMicros(raw.getIngestedAtMicros())
                .build();
        long now = WallClock.nowMicros();
        if (admitted.getDeadlineAtMicros() <= now) {
            ctx.output(TURNED_AWAY, Results.dropped(admitted, "deadline passed " + (now - admitted.getDeadlineAtMicros()) + " us before the request was read", now));
            return;
        }
        out.collect(admitted);
    }
}
