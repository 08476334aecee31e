package io.kairos.core.request;

import io.kairos.core.model.InputSpec;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.model.ModelSpec;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.Tensor;

import java.util.List;

/**
 * Checks a decoded request against the model catalog. Returns why it must be rejected, or null.
 * Every check names the field, so that a client can fix what it sends.
 */
public final class RequestValidator {
    private final ModelCatalog catalog;

    public RequestValidator(ModelCatalog catalog) {
        this.catalog = catalog;
    }

    public String rejectionReason(InferenceRequest r) {
        if (r.getRequestId() == null || r.getRequestId().isBlank()) return "request_id is empty";
        if (!(r.getSloMs() > 0) || Double.isInfinite(r.getSloMs())) return "slo_ms must be a positive number of milliseconds, got " + r.getSloMs();
        if (r.getSentAtMicros() <= 0) return "sent_at_micros must be a positive time in microseconds since the epoch, got " + r.getSentAtMicros();
        ModelSpec model = catalog.get(r.getModel());
        if (model == null) return "unknown model '" + r.getModel() + "'; served models: " + catalog.names();
        return tensorMismatch(r.getInput(), model.input(), model.name());
    }

    static String tensorMismatch(Tensor t, InputSpec expected, String model) {
        if (!t.getDtype().name().equals(expected.dtype())) {
            return "input dtype " + t.getDtype() + " does not match model '" + model + "', which takes " + expected.dtype();
        }
        List<Long> shape = t.getShape();
        long[] want = expected.shape();
        boolean same = shape.size() == want.length;
        for (int i = 0; same && i < want.length; i++) same = shape.get(i) == want[i];
        if (!same) return "input shape " + shape + " does not match model '" + model + "', which takes " + expected;
        long bytes = t.getData().remaining();
        if (bytes != expected.byteSize()) {
            return "input has " + bytes + " bytes of data, but " + expected + " needs " + expected.byteSize();
        }
        return null;
    }

    /** Deadline in microseconds since the epoch: send time plus the SLO. */
    public static long deadlineMicros(InferenceRequest r) {
        return r.getSentAtMicros() + Math.round(r.getSloMs() * 1000.0);
    }
}
