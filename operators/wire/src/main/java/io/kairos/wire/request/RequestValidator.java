package io.kairos.wire.request;

import io.kairos.core.api.Internal;
import io.kairos.core.model.InputConversion;
import io.kairos.core.model.InputSpec;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.model.ModelSpec;
import io.kairos.core.request.AdmissionLimits;
import io.kairos.core.request.Request;
import io.kairos.core.request.Utf8;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.Tensor;

import java.util.List;

/**
 * Checks a decoded request against the model catalog and the {@link AdmissionLimits}. Returns why
 * it must be rejected, or null. Every check names the field (and the limit it broke), so that a
 * client can fix what it sends; every size and range is bounded, so that a request that passes
 * can neither overflow its deadline nor make a result too large to write.
 */
@Internal
public final class RequestValidator {
    private final ModelCatalog catalog;
    private final AdmissionLimits limits;

    public RequestValidator(ModelCatalog catalog) {
        this(catalog, AdmissionLimits.DEFAULTS);
    }

    public RequestValidator(ModelCatalog catalog, AdmissionLimits limits) {
        this.catalog = catalog;
        this.limits = limits;
    }

    /** @param nowMicros the job's clock, which a send time may be ahead of by the allowed skew at most */
    public String rejectionReason(InferenceRequest r, long nowMicros) {
        String id = r.getRequestId();
        if (id == null || id.isBlank()) return "request_id is empty";
        String tooLong = tooLong("request_id", id, limits.maxIdBytes());
        if (tooLong == null) tooLong = tooLong("tenant", r.getTenant(), limits.maxNameBytes());
        if (tooLong == null) tooLong = tooLong("model", r.getModel(), limits.maxNameBytes());
        if (tooLong == null && r.getPipelineId() != null) tooLong = tooLong("pipeline_id", r.getPipelineId(), limits.maxIdBytes());
        if (tooLong != null) return tooLong;
        if (r.getStage() != null && r.getStage() < 0) return "stage must not be negative, got " + r.getStage();
        double slo = r.getSloMs();
        if (!(slo > 0) || Double.isInfinite(slo)) return "slo_ms must be a positive number of milliseconds, got " + slo;
        if (slo > limits.maxSloMs()) return "slo_ms " + slo + " is over the limit of " + plain(limits.maxSloMs()) + " ms";
        Double window = r.getWindowStartMs();
        if (window != null) {
            if (!(window >= 0) || Double.isInfinite(window)) return "window_start_ms must be a number of milliseconds from 0 to slo_ms, got " + window;
            if (window > slo) return "window_start_ms " + window + " is after the deadline: over slo_ms " + slo;
            if (r.getPipelineId() != null) return "window_start_ms is not supported with pipeline_id: a window is for a request of one model";
        }
        long sent = r.getSentAtMicros();
        if (sent <= 0) return "sent_at_micros must be a positive time in microseconds since the epoch, got " + sent;
        if (sent > nowMicros && sent - nowMicros > limits.maxClockSkewMicros()) {
            return "sent_at_micros " + sent + " is " + (sent - nowMicros) + " us ahead of the job's clock, over the allowed clock skew of "
                    + limits.maxClockSkewMicros() + " us";
        }
        if (r.getInput() == null) return "input is missing";
        ModelSpec model = catalog.get(r.getModel());
        if (model == null) return "unknown model '" + r.getModel() + "'; served models: " + catalog.names();
        return tensorMismatch(r.getInput(), model.input(), model.name());
    }

    private static String tooLong(String field, String value, int max) {
        if (value == null) return field + " is missing";
        return Utf8.fits(value, max) ? null : field + " is " + Utf8.length(value) + " bytes, over the limit of " + max + " bytes";
    }

    private static String plain(double ms) {
        return ms == Math.rint(ms) ? Long.toString((long) ms) : Double.toString(ms);
    }

    static String tensorMismatch(Tensor t, InputSpec expected, String model) {
        if (t.getDtype() == null || !InputConversion.converts(t.getDtype().name(), expected.dtype())) {
            return "input dtype " + t.getDtype() + " does not match model '" + model + "', which takes " + expected.dtype()
                    + (InputConversion.accepted(expected.dtype()).size() > 1 ? " (accepted: " + String.join(", ", InputConversion.accepted(expected.dtype())) + ", converted on the device)" : "");
        }
        List<Long> shape = t.getShape();
        long[] want = expected.shape();
        boolean same = shape.size() == want.length;
        for (int i = 0; same && i < want.length; i++) same = shape.get(i) == want[i];
        if (!same) return "input shape " + shapeText(shape) + " does not match model '" + model + "', which takes " + expected;
        long bytes = t.getData().remaining();
        long needed = InputConversion.byteSize(expected, t.getDtype().name());
        if (bytes != needed) {
            return "input has " + bytes + " bytes of data, but " + t.getDtype() + shapeText(shape) + " needs " + needed;
        }
        return null;
    }

    /** A shape as a reason shows it: the first dimensions only of a long one. */
    static String shapeText(List<Long> shape) {
        if (shape.size() <= 8) return shape.toString();
        return shape.subList(0, 8).toString().replace("]", ", ... (" + shape.size() + " dimensions)]");
    }

    /**
     * Why a valid request can no longer meet its deadline, read at {@code nowMicros}, or null: its
     * deadline has passed, or is nearer than its model's profiled latency alone (the catalog's
     * batch of one), so that even an idle device could not finish it in time. Such a request is
     * dropped on admission, before it costs the scheduler anything: what a job that fell behind
     * its input (consumer lag) reads once the backlog outlived its SLO.
     */
    public String unreachableReason(InferenceRequest r, long deadlineMicros, long nowMicros) {
        if (deadlineMicros <= nowMicros) return "deadline passed " + (nowMicros - deadlineMicros) + " us before the request was read";
        ModelSpec model = catalog.get(r.getModel());
        long alone = model == null ? 0 : model.latency().latencyAt(0);
        if (deadlineMicros - nowMicros < alone) {
            return "deadline unreachable when read: " + (deadlineMicros - nowMicros) + " us left, and model '" + model.name()
                    + "' takes " + alone + " us alone";
        }
        return null;
    }

    /**
     * The start of the request's window SLO in microseconds since the epoch: send time plus
     * {@code window_start_ms}; {@link Request#NO_WINDOW} when it has none. For a validated request.
     */
    public static long windowStartMicros(InferenceRequest r) {
        Double window = r.getWindowStartMs();
        if (window == null) return Request.NO_WINDOW;
        return r.getSentAtMicros() + Math.round(window * 1000.0);
    }

    /**
     * Deadline in microseconds since the epoch: send time plus the SLO; saturated at the largest
     * time rather than wrapped, for a request that was not validated (a rejected one).
     */
    public static long deadlineMicros(InferenceRequest r) {
        long slo = Math.round(r.getSloMs() * 1000.0); // NaN: 0; beyond the range: saturated
        long sent = r.getSentAtMicros();
        long sum = sent + slo;
        if (((sent ^ sum) & (slo ^ sum)) < 0) return sent < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        return sum;
    }
}
