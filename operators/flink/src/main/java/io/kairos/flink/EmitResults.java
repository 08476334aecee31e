package io.kairos.flink;

import io.kairos.core.model.ModelCatalog;
import io.kairos.core.model.ModelSpec;
import io.kairos.wire.AvroCodec;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import io.kairos.core.time.Clock;
import io.kairos.schema.BatchTelemetry;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.ModelAction;
import io.kairos.schema.Preemption;
import io.kairos.schema.ResultStatus;
import io.kairos.schema.internal.AdmittedRequest;
import io.kairos.schema.internal.BatchOutcome;
import io.kairos.schema.internal.DeviceAction;
import io.kairos.schema.internal.DeviceReport;
import io.kairos.schema.internal.DispatchedBatch;
import io.kairos.schema.internal.PreemptionEvent;
import io.kairos.schema.internal.StageOutcome;
import io.kairos.wire.result.Results;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.concurrent.atomic.DoubleAdder;

/**
 * Splits a batch outcome into one result per request, and one telemetry record on a side output;
 * a batch that ran (or failed) also gives its scheduler a {@link DeviceReport} on the
 * {@link #REPORTS} side output, the feedback that closes the job's loop. A model load or unload
 * gives a telemetry record of its own, with why it was made; a load that failed also gives its
 * scheduler a report, so that it takes that copy out.
 *
 * <p>A pipeline stage's result is not the request's: it goes to the {@link #STAGES} side output,
 * with the pipeline request's input where a later stage reads it, for {@link AdvancePipelines}.
 *
 * <p>Requests that were preempted before ({@code preempted_from} not empty) may already have a
 * result, from a preempted batch that completed before its cancel: their results go to the
 * {@link #PREEMPTED} side output, to be resolved ({@link ResolvePreemptions}), as do the verdicts
 * of a cancel's outcome, one per request of the preempted batch. A cancel also gives a telemetry
 * record, with {@code preemption} set.
 *
 * <p>Metrics (group {@code kairos}), over the requests this device executed: {@code ok},
 * {@code late}, {@code failed}, and the gauge {@code sloAttainment} = ok / (ok + late + failed)
 * since the start (NaN before the first), counted per execution (a preempted batch that completed
 * and the batch that then ran its requests again both count). Requests that never reached a device (REJECTED,
 * DROPPED) are counted where they were turned away ({@link AdmitRequests},
 * {@link GroupSchedulerFunction}).
 *
 * <p>Energy: a batch that ran carries its estimate in its telemetry ({@code energy_mj}, the model's
 * {@code zeta(b)} from the catalog at the size it ran as), and the gauge
 * {@code model.<name>.energyMillijoules} sums the estimates of the model's batches on this device
 * (its rate over time / 1000 is the mean power in W). A model without an energy profile gets
 * neither: its energy is unknown, which no figure may show as 0.
 */
public final class EmitResults extends ProcessFunction<BatchOutcome, InferenceResult> {
    public static final OutputTag<BatchTelemetry> TELEMETRY = new OutputTag<>("telemetry") {};
    public static final OutputTag<PreemptionEvent> PREEMPTED = new OutputTag<>("preempted") {};
    public static final OutputTag<DeviceReport> REPORTS = new OutputTag<>("device-reports") {};
    /** The results of pipeline stages, with the pipeline request's input where a later stage reads it: for {@link AdvancePipelines}. */
    public static final OutputTag<StageOutcome> STAGES = new OutputTag<>("stage-outcomes", new AvroTypeInfo<>(StageOutcome.class));

    private final ModelCatalog catalog;
    private final Clock clock;
    private transient MetricGroup metrics;
    private transient Map<String, DoubleAdder> energyByModel;
    private transient Counter okCount;
    private transient Counter lateCount;
    private transient Counter failedCount;
    private transient Counter earlyCount;

    /** @param catalog the models' energy profiles, for each batch's energy estimate */
    public EmitResults(ModelCatalog catalog) {
        this(catalog, Clock.wall());
    }

    /** @param clock stamps each result's emission time */
    public EmitResults(ModelCatalog catalog, Clock clock) {
        this.catalog = catalog;
        this.clock = clock;
    }

    @Override
    public void open(OpenContext openContext) {
        AvroCodec.enableCustomCoders();
        metrics = getRuntimeContext().getMetricGroup().addGroup("kairos");
        energyByModel = new HashMap<>();
        okCount = metrics.counter("ok");
        lateCount = metrics.counter("late");
        failedCount = metrics.counter("failed");
        earlyCount = metrics.counter("early");
        // Read by the reporter thread: four counts read one after the other, so a sample may be one
        // batch off, which a ratio over the whole run does not notice.
        metrics.gauge("sloAttainment", (Gauge<Double>) () -> {
            long ok = okCount.getCount(), all = ok + lateCount.getCount() + failedCount.getCount() + earlyCount.getCount();
            return all == 0 ? Double.NaN : (double) ok / all;
        });
    }

    @Override
    public void processElement(BatchOutcome outcome, Context ctx, Collector<InferenceResult> out) {
        long now = clock.nowMicros();
        DispatchedBatch b = outcome.getBatch();
        if (b.getAction() == DeviceAction.CANCEL) {
            for (String id : b.getCancelledRequestIds()) {
                ctx.output(PREEMPTED, ResolvePreemptions.verdict(id, b.getBatchId(), outcome.getCancelledInTime()));
            }
            ctx.output(TELEMETRY, telemetry(outcome, b.getCancelledRequestIds().size(), 0, 0, 0)
                    .setPreemption(outcome.getCancelledInTime() ? Preemption.CANCELLED : Preemption.TOO_LATE).build());
            return;
        }
        if (b.getAction() == DeviceAction.LOAD || b.getAction() == DeviceAction.UNLOAD) {
            ctx.output(TELEMETRY, telemetry(outcome, 0, 0, 0, 0)
                    .setModelAction(b.getAction() == DeviceAction.LOAD ? ModelAction.LOAD : ModelAction.UNLOAD)
                    .setWhy(b.getWhy()).setError(outcome.getError()).build());
            if (b.getAction() == DeviceAction.LOAD && outcome.getError() != null) ctx.output(REPORTS, report(outcome));
            return;
        }
        int ok = 0, late = 0, failed = 0, early = 0;
        int n = b.getRequests().size();
        for (int i = 0; i < n; i++) {
            InferenceResult r;
            try {
                r = Results.executed(outcome, i, now);
            } catch (RuntimeException e) { // this request fails, not its batch nor the job
                r = Results.failed(b.getRequests().get(i), "result could not be made: " + e, now);
            }
            if (r.getStatus() == ResultStatus.OK) ok++;
            else if (r.getStatus() == ResultStatus.LATE) late++;
            else if (r.getStatus() == ResultStatus.EARLY) early++;
            else failed++;
            AdmittedRequest request = b.getRequests().get(i);
            List<String> preemptedFrom = request.getPreemptedFrom();
            if (!preemptedFrom.isEmpty()) ctx.output(PREEMPTED, ResolvePreemptions.result(r, preemptedFrom, request.getPipelineInput()));
            else if (AdvancePipelines.ofAStage(r)) ctx.output(STAGES, AdvancePipelines.outcome(r, request.getPipelineInput()));
            else out.collect(r);
        }
        okCount.inc(ok);
        lateCount.inc(late);
        failedCount.inc(failed);
        earlyCount.inc(early);
        // The batch's telemetry counts an early request as a miss that ran, beside the late ones.
        BatchTelemetry.Builder telemetry = telemetry(outcome, n, ok, late + early, failed);
        OptionalDouble energy = outcome.getError() == null ? energyMillijoules(b.getModel(), n) : OptionalDouble.empty();
        if (energy.isPresent()) {
            telemetry.setEnergyMj(energy.getAsDouble());
            // Registered on the model's first batch with a known energy: the reporter reads the sum from its own thread.
            energyByModel.computeIfAbsent(b.getModel(), m -> {
                DoubleAdder sum = new DoubleAdder();
                metrics.addGroup("model", m).gauge("energyMillijoules", (Gauge<Double>) sum::sum);
                return sum;
            }).add(energy.getAsDouble());
        }
        ctx.output(TELEMETRY, telemetry.build());
        ctx.output(REPORTS, report(outcome));
    }

    /** The energy estimate of a batch of {@code size} requests of {@code model}; empty when unknown. */
    private OptionalDouble energyMillijoules(String model, int size) {
        ModelSpec spec = catalog.get(model);
        return spec == null || size < 1 || size > spec.latency().maxBatch() ? OptionalDouble.empty() : spec.batchEnergyMillijoules(size);
    }

    /** What the device did with a batch, for the scheduler that sent it. */
    static DeviceReport report(BatchOutcome outcome) {
        DispatchedBatch b = outcome.getBatch();
        return DeviceReport.newBuilder()
                .setGroup(b.getGroup())
                .setBatchId(b.getBatchId())
                .setModel(b.getModel())
                .setDevice(b.getDevice())
                .setBatchSize(b.getRequests().size())
                .setExecStartMicros(outcome.getExecStartMicros())
                .setExecEndMicros(Math.max(outcome.getExecStartMicros(), outcome.getExecEndMicros()))
                .setColdStart(outcome.getColdStart())
                .setFailed(outcome.getError() != null)
                .setLoadFailed(b.getAction() == DeviceAction.LOAD ? outcome.getError() : null)
                .build();
    }

    private static BatchTelemetry.Builder telemetry(BatchOutcome outcome, int size, int ok, int late, int failed) {
        DispatchedBatch b = outcome.getBatch();
        return BatchTelemetry.newBuilder()
                .setBatchId(b.getBatchId())
                .setGroup(b.getGroup())
                .setModel(b.getModel())
                .setDevice(b.getDevice())
                .setBatchSize(size)
                .setDispatchedAtMicros(b.getDispatchedAtMicros())
                .setPredictedStartMicros(b.getPredictedStartMicros())
                .setPredictedLatencyMicros(b.getPredictedLatencyMicros())
                .setExecStartMicros(outcome.getExecStartMicros())
                .setExecEndMicros(outcome.getExecEndMicros())
                .setColdStart(outcome.getColdStart())
                .setArrivalRatePerS(b.getArrivalRatePerS())
                .setOk(ok)
                .setLate(late)
                .setFailed(failed);
    }
}
