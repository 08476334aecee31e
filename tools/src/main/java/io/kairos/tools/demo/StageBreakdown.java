package io.kairos.tools.demo;

import io.kairos.schema.InferenceResult;
import io.kairos.schema.ResultStatus;
import io.kairos.schema.StageTimes;
import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where the time of executed requests went, stage by stage, from the timestamps every result
 * carries: the Kafka hop in, admission, queueing in the scheduler, waiting behind the batch before
 * it on its device, the hand-over to the device, execution, and the Kafka hop out to the client.
 *
 * <p>A batch is sent to its device before the device frees when the policy looks ahead
 * ({@code clockwork}'s 5 ms): the time from its dispatch to its start is then mostly the batch
 * before it, not the pipeline. The results say when each batch on a device started and ended, so
 * the dispatch-to-start time is split there ({@link HandoverDelays}, as {@code fidelity} measures
 * the hand-over): the wait until the batch before it on the same device ended, and the rest, the
 * hand-over itself.
 */
final class StageBreakdown {
    static final String[] STAGES = {"kafka in (sent -> read)", "admit (read -> queued)", "queue (queued -> dispatched)",
            "device busy (dispatched -> free)", "hand-over (free -> start)", "execute (start -> end)", "emit (end -> written)",
            "kafka out (written -> received)"};
    private static final int DEVICE_BUSY = 3;
    private static final int HAND_OVER = 4;

    private final Map<String, Histogram> stages = new LinkedHashMap<>();
    private final HandoverDelays handOvers = new HandoverDelays();
    /** Executed requests' device times, until {@link #table} splits them (not the results: they may carry outputs). */
    private final List<Executed> executed = new ArrayList<>();

    private record Executed(Integer device, long dispatched, long start) {}

    StageBreakdown() {
        for (String s : STAGES) stages.put(s, new Histogram(3));
    }

    void add(InferenceResult r, long receivedAtMicros) {
        if (r.getStatus() != ResultStatus.OK && r.getStatus() != ResultStatus.LATE) return;
        StageTimes t = r.getTimings();
        long[] from = {t.getSent(), t.getIngested(), t.getEnqueued(), t.getExecStart(), t.getExecEnd(), t.getEmitted()};
        long[] to = {t.getIngested(), t.getEnqueued(), t.getDispatched(), t.getExecEnd(), t.getEmitted(), receivedAtMicros};
        int[] stage = {0, 1, 2, 5, 6, 7};
        for (int i = 0; i < stage.length; i++) record(stage[i], to[i] - from[i]);
        handOvers.add(r);
        executed.add(new Executed(r.getDevice(), t.getDispatched(), t.getExecStart()));
    }

    /** Each request's dispatch-to-start time: its batch's hand-over, and the wait for the device before it. */
    private void splitDeviceTimes() {
        for (Executed e : executed) {
            long toStart = e.start - e.dispatched;
            long handOver = Math.min(toStart, handOvers.handOverMicros(e.device, e.start));
            record(DEVICE_BUSY, toStart - handOver);
            record(HAND_OVER, handOver);
        }
        executed.clear();
    }

    private void record(int stage, long micros) {
        stages.get(STAGES[stage]).recordValue(Math.max(0, micros));
    }

    /** A stage's latencies so far, each executed request's device times split (call once every result is in). */
    Histogram stage(String name) {
        splitDeviceTimes();
        return stages.get(name);
    }

    /**
     * The line under the table: the p50s of every stage but execution added up, the time the
     * pipeline costs a request beside its work, and how much of that was waiting for a busy device
     * (the policy's choice to send a batch ahead, not the pipeline's cost).
     */
    String pipelineLine() {
        splitDeviceTimes();
        double total = 0;
        for (String s : STAGES) if (!s.startsWith("execute")) total += stages.get(s).getValueAtPercentile(50) / 1000.0;
        double busy = stages.get(STAGES[DEVICE_BUSY]).getValueAtPercentile(50) / 1000.0;
        return String.format(java.util.Locale.ROOT, "the pipeline's stages at p50, all but execute: %.1f ms (waiting for a busy device %.1f ms of them)", total, busy);
    }

    String table() {
        splitDeviceTimes();
        StringBuilder s = new StringBuilder(String.format("%-34s %9s %9s%n", "stage (executed requests)", "p50 ms", "p99 ms"));
        stages.forEach((name, h) -> s.append(String.format("%-34s %9.2f %9.2f%n", name,
                h.getValueAtPercentile(50) / 1000.0, h.getValueAtPercentile(99) / 1000.0)));
        return s.toString();
    }
}
