package io.kairos.wire.result;

import io.kairos.core.api.Internal;
import io.kairos.core.result.Completion;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.ResultStatus;
import io.kairos.schema.StageTimes;
import io.kairos.schema.Tensor;
import io.kairos.schema.internal.AdmittedRequest;
import io.kairos.schema.internal.BatchOutcome;
import io.kairos.schema.internal.DispatchedBatch;
import io.kairos.wire.request.RequestValidator;

/** Builds the one terminal result of a request, at whichever stage its journey ended. */
@Internal
public final class Results {
    private Results() {}

    /** Bad input. {@code request} is null when the bytes could not even be decoded. */
    public static InferenceResult rejected(String origin, InferenceRequest request, String reason, long ingestedMicros, long nowMicros) {
        StageTimes t = StageTimes.newBuilder()
                .setSent(request == null ? 0 : request.getSentAtMicros())
                .setDeadline(request == null ? 0 : RequestValidator.deadlineMicros(request))
                .setIngested(ingestedMicros)
                .setEmitted(nowMicros)
                .build();
        return InferenceResult.newBuilder()
                .setRequestId(request == null || request.getRequestId().isBlank() ? origin : request.getRequestId())
                .setTenant(request == null ? "" : request.getTenant())
                .setModel(request == null ? "" : request.getModel())
                .setStatus(ResultStatus.REJECTED)
                .setReason(reason)
                .setSloMs(request == null ? 0 : request.getSloMs())
                .setWindowStartMs(request == null ? null : request.getWindowStartMs())
                .setPipelineId(request == null ? null : request.getPipelineId())
                .setStage(request == null ? null : request.getStage())
                .setTimings(t)
                .build();
    }

    /** Shed: its deadline could no longer be met. */
    public static InferenceResult dropped(AdmittedRequest a, String reason, long nowMicros) {
        return base(a, ResultStatus.DROPPED, stages(a).setEmitted(nowMicros).build())
                .setReason(reason)
                .build();
    }

    /** Could not be handled: an error of the job's own while it was on its way (not of its device). */
    public static InferenceResult failed(AdmittedRequest a, String reason, long nowMicros) {
        return base(a, ResultStatus.FAILED, stages(a).setEmitted(nowMicros).build())
                .setReason(reason)
                .build();
    }

    /** Ran (or failed to run) in a batch on a device. */
    public static InferenceResult executed(BatchOutcome outcome, int index, long nowMicros) {
        DispatchedBatch batch = outcome.getBatch();
        AdmittedRequest a = batch.getRequests().get(index);
        StageTimes t = stages(a)
                .setDispatched(batch.getDispatchedAtMicros())
                .setExecStart(outcome.getExecStartMicros())
                .setExecEnd(outcome.getExecEndMicros())
                .setEmitted(nowMicros)
                .build();
        long windowStart = RequestValidator.windowStartMicros(a.getRequest());
        ResultStatus status = outcome.getError() != null ? ResultStatus.FAILED
                : ResultStatuses.wire(Completion.status(outcome.getExecEndMicros(), windowStart, a.getDeadlineAtMicros()));
        Tensor output = index < outcome.getOutputs().size() ? outcome.getOutputs().get(index) : null;
        String reason = status == ResultStatus.EARLY ? Completion.earlyReason(outcome.getExecEndMicros(), windowStart) : outcome.getError();
        String unwritable = status == ResultStatus.FAILED ? null : unwritable(output);
        if (unwritable != null) {
            status = ResultStatus.FAILED;
            reason = "device " + batch.getDevice() + " returned an output that cannot be written: " + unwritable;
        }
        return base(a, status, t)
                .setReason(reason)
                .setOutput(status == ResultStatus.FAILED ? null : output)
                .setBatchSize(batch.getRequests().size())
                .setDevice(batch.getDevice())
                .setColdStart(outcome.getColdStart())
                .build();
    }

    /**
     * Why an output tensor cannot be written as part of a result (Avro refuses a missing dtype,
     * shape or data, or a missing dimension), or null when it can; no output at all can.
     * Checked where a device's outputs come in, so that one bad output fails its request rather
     * than the serializer, and with it the job.
     */
    public static String unwritable(Tensor output) {
        if (output == null) return null;
        if (output.getDtype() == null) return "its dtype is missing";
        if (output.getShape() == null) return "its shape is missing";
        for (Long d : output.getShape()) if (d == null) return "its shape " + output.getShape() + " has a missing dimension";
        if (output.getData() == null) return "its data is missing";
        return null;
    }

    private static InferenceResult.Builder base(AdmittedRequest a, ResultStatus status, StageTimes t) {
        InferenceRequest r = a.getRequest();
        return InferenceResult.newBuilder()
                .setRequestId(r.getRequestId())
                .setTenant(r.getTenant())
                .setModel(r.getModel())
                .setStatus(status)
                .setSloMs(r.getSloMs())
                .setWindowStartMs(r.getWindowStartMs())
                .setPipelineId(r.getPipelineId())
                .setStage(r.getStage())
                .setStages(a.getPipelineStages()) // a pipeline's stage: those before it, for its final result
                .setTimings(t);
    }

    private static StageTimes.Builder stages(AdmittedRequest a) {
        return StageTimes.newBuilder()
                .setSent(a.getRequest().getSentAtMicros())
                .setDeadline(a.getDeadlineAtMicros())
                .setIngested(a.getIngestedAtMicros())
                .setEnqueued(a.getEnqueuedAtMicros() == 0 ? null : a.getEnqueuedAtMicros());
    }
}
