package io.kairos.core.request;

import io.kairos.core.api.Internal;
import java.io.Serializable;

/**
 * The bounds a request must keep to be admitted, so that no single request can grow a result,
 * a queue or a deadline beyond what the job can carry.
 *
 * @param maxIdBytes        request_id and pipeline_id, in UTF-8 bytes
 * @param maxNameBytes      tenant and model names, in UTF-8 bytes
 * @param maxSloMs          the longest SLO a request may ask for
 * @param maxClockSkewMicros how far ahead of the job's clock a send time may be
 */
@Internal
public record AdmissionLimits(int maxIdBytes, int maxNameBytes, double maxSloMs, long maxClockSkewMicros) implements Serializable {
    /** 256-byte ids and names, SLOs up to one hour, clocks up to one hour ahead. */
    public static final AdmissionLimits DEFAULTS = new AdmissionLimits(256, 256, 3_600_000, 3_600_000_000L);

    /** Keeps every echoed field far below any producer limit, and every deadline far from overflow. */
    public static final int MAX_ECHO_BYTES = 64 * 1024;
    public static final double MAX_SLO_MS = 365.0 * 24 * 3_600_000;

    public AdmissionLimits {
        if (maxIdBytes < 1 || maxIdBytes > MAX_ECHO_BYTES) throw new IllegalArgumentException("the id limit must be 1 to " + MAX_ECHO_BYTES + " bytes, got " + maxIdBytes);
        if (maxNameBytes < 1 || maxNameBytes > MAX_ECHO_BYTES) throw new IllegalArgumentException("the name limit must be 1 to " + MAX_ECHO_BYTES + " bytes, got " + maxNameBytes);
        if (!(maxSloMs > 0) || maxSloMs > MAX_SLO_MS) throw new IllegalArgumentException("the SLO limit must be more than 0 and at most a year (" + (long) MAX_SLO_MS + " ms), got " + maxSloMs);
        if (maxClockSkewMicros < 0 || maxClockSkewMicros > (long) MAX_SLO_MS * 1000) throw new IllegalArgumentException("the clock skew must be 0 to a year, got " + maxClockSkewMicros + " us");
    }

    /** The longest echoed field (id, tenant, model, pipeline) of a request that passes. */
    public int maxEchoBytes() {
        return Math.max(maxIdBytes, maxNameBytes);
    }
}
