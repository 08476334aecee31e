package io.kairos.testbed.demo;

import io.kairos.schema.InferenceResult;
import io.kairos.schema.ResultStatus;
import io.kairos.schema.StageTimes;
import org.HdrHistogram.Histogram;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Where the time of executed requests went, stage by stage, from the timestamps every result
 * carries: the Kafka hop in, admission, queueing in the scheduler, the hand-over to the device,
 * waiting behind other batches, execution, and the Kafka hop out to the client.
 */
final class StageBreakdown {
    private final Map<String, Histogram> stages = new LinkedHashMap<>();

    StageBreakdown() {
        for (String s : new String[] {"kafka in (sent -> read)", "admit (read -> queued)", "queue (queued -> dispatched)",
                "to device (dispatched -> start)", "execute (start -> end)", "emit (end -> written)", "kafka out (written -> received)"}) {
            stages.put(s, new Histogram(3));
        }
    }

    void add(InferenceResult r, long receivedAtMicros) {
        if (r.getStatus() != ResultStatus.OK && r.getStatus() != ResultStatus.LATE) return;
        StageTimes t = r.getTimings();
        long[] at = {t.getSent(), t.getIngested(), t.getEnqueued(), t.getDispatched(), t.getExecStart(), t.getExecEnd(), t.getEmitted(), receivedAtMicros};
        int i = 0;
        for (Histogram h : stages.values()) {
            h.recordValue(Math.max(0, at[i + 1] - at[i]));
            i++;
        }
    }

    String table() {
        StringBuilder s = new StringBuilder(String.format("%-34s %9s %9s%n", "stage (executed requests)", "p50 ms", "p99 ms"));
        stages.forEach((name, h) -> s.append(String.format("%-34s %9.2f %9.2f%n", name,
                h.getValueAtPercentile(50) / 1000.0, h.getValueAtPercentile(99) / 1000.0)));
        return s.toString();
    }
}
