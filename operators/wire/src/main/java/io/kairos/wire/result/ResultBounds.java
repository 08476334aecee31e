package io.kairos.wire.result;

import io.kairos.core.api.Internal;
import io.kairos.core.request.AdmissionLimits;
import io.kairos.core.request.Utf8;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.ResultStatus;
import io.kairos.schema.Tensor;

import java.io.Serializable;

/**
 * Keeps every result within what the results producer can write, so that no request can make
 * the sink fail (a record over the producer's {@code max.request.size} fails the job, and fails
 * it again on every restart, since the record is replayed). Fields echoed from the request (id,
 * tenant, model, pipeline) are cut to the longest an admitted request may have, the reason to
 * {@link #MAX_REASON_BYTES}, and the reason says what was cut; an output tensor that still makes
 * the result too large turns it FAILED, with the reason.
 *
 * <p>{@link #fit} is applied once, just before the results are written, to the results of every
 * stage (rejected, dropped, executed, resolved after a preemption).
 */
@Internal
public final class ResultBounds implements Serializable {
    private static final long serialVersionUID = 1L;

    /** Kafka's default {@code max.request.size}. */
    public static final int KAFKA_DEFAULT_MAX_REQUEST_SIZE = 1_048_576;
    /** Left for Kafka's own record and batch headers and record headers, beyond the key and value. */
    public static final int HEADROOM_BYTES = 16 * 1024;
    public static final int MAX_REASON_BYTES = 8 * 1024;
    /** What {@link #sizeBound} adds to the strings and the tensor: the varints, enums, unions and longs of a result. */
    static final int FIXED_BYTES = 256;

    private final int maxRecordBytes;
    private final int maxEchoBytes;

    /**
     * @param maxRecordBytes the most that a result's key (its request id) and value may take together
     * @param maxEchoBytes   the most that each field echoed from the request may take
     */
    public ResultBounds(int maxRecordBytes, int maxEchoBytes) {
        long leastRecord = 5L * maxEchoBytes + MAX_REASON_BYTES + 1024 + FIXED_BYTES;
        if (maxEchoBytes < 1) throw new IllegalArgumentException("the echoed fields need at least one byte, got " + maxEchoBytes);
        if (maxRecordBytes < leastRecord) {
            throw new IllegalArgumentException("a result of at most " + maxRecordBytes + " bytes cannot hold fields of "
                    + maxEchoBytes + " bytes and a reason; it needs " + leastRecord);
        }
        this.maxRecordBytes = maxRecordBytes;
        this.maxEchoBytes = maxEchoBytes;
    }

    /** The bounds for a results producer with this {@code max.request.size} and requests admitted within {@code limits}. */
    public static ResultBounds forProducer(int maxRequestSize, AdmissionLimits limits) {
        return new ResultBounds(maxRequestSize - HEADROOM_BYTES, limits.maxEchoBytes());
    }

    /** For Kafka's default producer and the default admission limits. */
    public static final ResultBounds DEFAULT = forProducer(KAFKA_DEFAULT_MAX_REQUEST_SIZE, AdmissionLimits.DEFAULTS);

    public int maxRecordBytes() {
        return maxRecordBytes;
    }

    /** {@code r} itself when it fits (nearly always), else a copy cut to fit, its reason saying how. */
    public InferenceResult fit(InferenceResult r) {
        if (fitsAsIs(r)) return r;
        InferenceResult.Builder b = InferenceResult.newBuilder(r).setOutput(null);
        StringBuilder cut = new StringBuilder();
        b.setRequestId(cut("request_id", r.getRequestId(), maxEchoBytes, cut));
        b.setTenant(cut("tenant", r.getTenant(), maxEchoBytes, cut));
        b.setModel(cut("model", r.getModel(), maxEchoBytes, cut));
        if (r.getPipelineId() != null) b.setPipelineId(cut("pipeline_id", r.getPipelineId(), maxEchoBytes, cut));
        String reason = r.getReason() == null ? null : cut("reason", r.getReason(), MAX_REASON_BYTES, null);
        if (reason != null && reason.length() < r.getReason().length()) reason += " [reason truncated]";
        b.setReason(reason);
        b.setOutput(r.getOutput());
        long bound = sizeBound(b.build());
        if (bound > maxRecordBytes && r.getOutput() != null) {
            long outputBytes = r.getOutput().getData().remaining();
            b.setOutput(null).setStatus(ResultStatus.FAILED);
            String tooLarge = "output of " + outputBytes + " bytes makes the result larger than the limit of " + maxRecordBytes
                    + " bytes (the results producer's max.request.size less " + HEADROOM_BYTES + ")";
            reason = reason == null ? tooLarge : tooLarge + "; " + reason;
        }
        if (cut.length() > 0) reason = (reason == null ? "" : reason + "; ") + cut;
        return b.setReason(reason).build();
    }

    private boolean fitsAsIs(InferenceResult r) {
        return Utf8.fits(r.getRequestId(), maxEchoBytes) && Utf8.fits(r.getTenant(), maxEchoBytes) && Utf8.fits(r.getModel(), maxEchoBytes)
                && (r.getPipelineId() == null || Utf8.fits(r.getPipelineId(), maxEchoBytes))
                && (r.getReason() == null || Utf8.fits(r.getReason(), MAX_REASON_BYTES))
                && sizeBound(r) <= maxRecordBytes;
    }

    private static String cut(String field, String value, int max, StringBuilder notes) {
        if (value == null || Utf8.fits(value, max)) return value;
        String kept = Utf8.truncate(value, max);
        if (notes != null) {
            if (notes.length() > 0) notes.append("; ");
            notes.append(field).append(" truncated to its first ").append(Utf8.length(kept)).append(" of ").append(Utf8.length(value)).append(" bytes");
        }
        return kept;
    }

    /**
     * An upper bound of the bytes of a result's Avro encoding plus its key (the request id): the
     * strings' UTF-8 bytes with their length, the output tensor's data and shape, and
     * {@link #FIXED_BYTES} for everything else.
     */
    public static long sizeBound(InferenceResult r) {
        long bytes = FIXED_BYTES;
        bytes += 2 * string(r.getRequestId()) + string(r.getTenant()) + string(r.getModel()) + string(r.getPipelineId()) + string(r.getReason());
        Tensor out = r.getOutput();
        if (out != null) bytes += 10 + out.getData().remaining() + 10 + 10L * out.getShape().size() + 10;
        return bytes;
    }

    private static long string(String s) {
        return s == null ? 0 : 10 + Utf8.length(s);
    }
}
