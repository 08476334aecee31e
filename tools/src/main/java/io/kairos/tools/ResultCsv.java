package io.kairos.tools;

import io.kairos.schema.InferenceResult;
import io.kairos.schema.StageTimes;

/**
 * One CSV row per result, for the notebooks: every stage time in microseconds since the epoch
 * (empty where the request never reached the stage), the client's receive time, and the
 * end-to-end latency {@code emitted - sent}.
 */
public final class ResultCsv {
    private ResultCsv() {}

    public static final String HEADER = "request_id,tenant,model,status,slo_ms,batch_size,device,cold_start,"
            + "sent_us,deadline_us,ingested_us,enqueued_us,dispatched_us,exec_start_us,exec_end_us,emitted_us,received_us,"
            + "latency_us,reason";

    public static String row(InferenceResult r, long receivedAtMicros) {
        StageTimes t = r.getTimings();
        StringBuilder s = new StringBuilder(192);
        text(s, r.getRequestId()).append(',');
        text(s, r.getTenant()).append(',');
        text(s, r.getModel()).append(',');
        s.append(r.getStatus()).append(',');
        s.append(r.getSloMs()).append(',');
        s.append(r.getBatchSize()).append(',');
        value(s, r.getDevice()).append(',');
        s.append(r.getColdStart()).append(',');
        s.append(t.getSent()).append(',');
        s.append(t.getDeadline()).append(',');
        value(s, t.getIngested()).append(',');
        value(s, t.getEnqueued()).append(',');
        value(s, t.getDispatched()).append(',');
        value(s, t.getExecStart()).append(',');
        value(s, t.getExecEnd()).append(',');
        s.append(t.getEmitted()).append(',');
        s.append(receivedAtMicros).append(',');
        if (t.getSent() > 0) s.append(t.getEmitted() - t.getSent());
        s.append(',');
        if (r.getReason() != null) text(s, r.getReason());
        return s.toString();
    }

    private static StringBuilder value(StringBuilder s, Object v) {
        return v == null ? s : s.append(v);
    }

    /** Quotes a field that holds a comma, a quote or a line break (RFC 4180). */
    private static StringBuilder text(StringBuilder s, String v) {
        if (v.indexOf(',') < 0 && v.indexOf('"') < 0 && v.indexOf('\n') < 0 && v.indexOf('\r') < 0) return s.append(v);
        return s.append('"').append(v.replace("\"", "\"\"")).append('"');
    }
}
