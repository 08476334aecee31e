package io.kairos.control.herd;

import io.kairos.workload.ArrivalProcess;

/**
 * One request stream Herd plans for (Shepherd's stream {@code i}): requests of one model at a
 * mean rate, each with the same SLO, arriving with the burstiness {@code cv2} (the squared
 * coefficient of variation of the gaps: 1 is Poisson, above 1 bursty), optionally in an affinity
 * set: the models of a set share serving groups only with each other and with models of no set.
 *
 * @param ratePerSecond the mean rate; null when it is to come from the running job's telemetry
 * @param affinity      the affinity set's name, or null for none
 * @param where         where the stream was written, for errors that name its fields
 */
public record RequestStream(String name, String model, Double ratePerSecond, double sloMs, double cv2, String affinity, Where where) {

    public RequestStream {
        if (name == null || name.isBlank()) throw new IllegalArgumentException(where.field("name") + ": must not be empty");
        if (model == null || model.isBlank()) throw new IllegalArgumentException(where.field("model") + ": must name a model");
        if (ratePerSecond != null && (!(ratePerSecond > 0) || Double.isInfinite(ratePerSecond))) {
            throw new IllegalArgumentException(where.field("rate_per_s") + ": must be a positive number of requests per second, got " + ratePerSecond);
        }
        if (!(sloMs > 0) || Double.isInfinite(sloMs)) throw new IllegalArgumentException(where.field("slo_ms") + ": must be a positive number of milliseconds, got " + sloMs);
        if (!(cv2 > 0) || Double.isInfinite(cv2)) throw new IllegalArgumentException(where.field("cv2") + ": must be a positive number (1 is Poisson), got " + cv2);
        if (affinity != null && affinity.isBlank()) throw new IllegalArgumentException(where.field("affinity") + ": must not be empty (leave it out for none)");
    }

    /** A stream written in code, not in a file. */
    public static RequestStream of(String name, String model, double ratePerSecond, double sloMs, double cv2, String affinity) {
        return new RequestStream(name, model, ratePerSecond, sloMs, cv2, affinity, Where.inCode(name));
    }

    /** The same stream at another rate (the job's own estimate of it). */
    public RequestStream withRate(double perSecond) {
        return new RequestStream(name, model, perSecond, sloMs, cv2, affinity, where);
    }

    /** The stream's arrivals at {@code ratePerSecond}: Poisson at CV² 1, Gamma gaps otherwise. */
    public ArrivalProcess arrivals(double ratePerSecond) {
        return cv2 == 1 ? ArrivalProcess.poisson(ratePerSecond) : ArrivalProcess.gamma(ratePerSecond, cv2);
    }

    public long sloMicros() {
        return Math.max(1, Math.round(sloMs * 1000));
    }

    /**
     * Where a stream was written: its file and the line of each of its fields, so that a problem
     * found later (an unknown model, an SLO no device meets) is named as a problem in the file is.
     */
    public record Where(String file, int index, String name, java.util.Map<String, Integer> fieldLines, int line) {
        static Where inCode(String name) {
            return new Where(null, -1, name, java.util.Map.of(), 0);
        }

        /** "FILE line L: stream N ('name') field 'F'", or "stream 'name' field 'F'" for a stream written in code. */
        public String field(String field) {
            if (file == null) return "stream '" + name + "' field '" + field + "'";
            int at = fieldLines.getOrDefault(field, line);
            return file + " line " + at + ": stream " + (index + 1) + (name == null ? "" : " ('" + name + "')") + " field '" + field + "'";
        }
    }
}
