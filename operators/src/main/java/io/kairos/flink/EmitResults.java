package io.kairos.flink;

import io.kairos.wire.AvroCodec;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import io.kairos.core.result.Results;
import io.kairos.core.time.WallClock;
import io.kairos.schema.BatchTelemetry;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.ResultStatus;
import io.kairos.schema.internal.BatchOutcome;
import io.kairos.schema.internal.DispatchedBatch;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Splits a batch outcome into one result per request, and one telemetry record on a side output.
 *
 * <p>Metrics (group {@code kairos}), over the requests this device executed: {@code ok},
 * {@code late}, {@code failed}, and the gauge {@code sloAttainment} = ok / (ok + late + failed)
 * since the start (NaN before the first). Requests that never reached a device (REJECTED,
 * DROPPED) are counted where they were turned away ({@link AdmitRequests},
 * {@link GroupSchedulerFunction}).
 */
public final class EmitResults extends ProcessFunction<BatchOutcome, InferenceResult> {
    public static final OutputTag<BatchTelemetry> TELEMETRY = new OutputTag<>("telemetry") {};

    private transient Counter okCount;
    private transient Counter lateCount;
    private transient Counter failedCount;

    @Override
    public void open(OpenContext openContext) {
        AvroCodec.enableCustomCoders();
        MetricGroup metrics = getRuntimeContext().getMetricGroup().addGroup("kairos");
        okCount = metrics.counter("ok");
        lateCount = metrics.counter("late");
        failedCount = metrics.counter("failed");
        // Read by the reporter thread: three counts read one after the other, so a sample may be one
        // batch off, which a ratio over the whole run does not notice.
        metrics.gauge("sloAttainment", (Gauge<Double>) () -> {
            long ok = okCount.getCount(), all = ok + lateCount.getCount() + failedCount.getCount();
            return all == 0 ? Double.NaN : (double) ok / all;
        });
    }

    @Override
    public void processElement(BatchOutcome outcome, Context ctx, Collector<InferenceResult> out) {
        long now = WallClock.nowMicros();
        int ok = 0, late = 0, failed = 0;
        int n = outcome.getBatch().getRequests().size();
        for (int i = 0; i < n; i++) {
            InferenceResult r = Results.executed(outcome, i, now);
            if (r.getStatus() == ResultStatus.OK) ok++;
            else if (r.getStatus() == ResultStatus.LATE) late++;
            else failed++;
            out.collect(r);
        }
        okCount.inc(ok);
        lateCount.inc(late);
        failedCount.inc(failed);
        DispatchedBatch b = outcome.getBatch();
        ctx.output(TELEMETRY, BatchTelemetry.newBuilder()
                .setBatchId(b.getBatchId())
                .setGroup(b.getGroup())
                .setModel(b.getModel())
                .setDevice(b.getDevice())
                .setBatchSize(n)
                .setDispatchedAtMicros(b.getDispatchedAtMicros())
                .setPredictedStartMicros(b.getPredictedStartMicros())
                .setPredictedLatencyMicros(b.getPredictedLatencyMicros())
                .setExecStartMicros(outcome.getExecStartMicros())
                .setExecEndMicros(outcome.getExecEndMicros())
                .setColdStart(outcome.getColdStart())
                .setOk(ok)
                .setLate(late)
                .setFailed(failed)
                .build());
    }
}
