package io.kairos.flink;

import io.kairos.schema.InferenceResult;
import io.kairos.schema.Tensor;
import io.kairos.schema.internal.PreemptionEvent;
import io.kairos.schema.internal.StageOutcome;
import io.kairos.wire.AvroCodec;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

import java.util.ArrayList;
import java.util.List;

/**
 * Keeps the one result of each request whose batch was preempted, keyed by request id.
 *
 * <p>The scheduler preempts a batch on its prediction of the device; the device may already have
 * completed it by the time the cancel arrives, and then the batch's results went out while its
 * requests were queued again. So a request preempted from batches B1..Bk has one valid result:
 * that of the first Bi that completed, or, if every one was cancelled in time, its result from
 * after Bk (a later batch, or a drop). The results of Bi went out directly; each later result
 * comes here with its {@code preempted_from} list and is
 * <ul>
 *   <li>emitted once the devices' verdicts say that every batch in the list was cancelled in time,</li>
 *   <li>discarded as soon as one says a batch of the list had completed (its results went out),</li>
 *   <li>held until then.</li>
 * </ul>
 * Verdicts and results come from different operators, in any order. Every cancel gets a verdict,
 * so nothing is held for long; what is still held {@code horizonMs} after a request's first event
 * (a verdict lost in a failure) is emitted rather than lost, and the request's state is cleared.
 *
 * <p>Metrics (group {@code kairos}): {@code preemptedResultsKept}, {@code preemptedResultsDiscarded},
 * {@code preemptedResultsUnresolved} (emitted at the horizon without all their verdicts).
 */
public final class ResolvePreemptions extends KeyedProcessFunction<String, PreemptionEvent, InferenceResult> {
    /** The kept results of pipeline stages, for {@link AdvancePipelines}; a request's own results go to the main output. */
    public static final OutputTag<StageOutcome> STAGES = new OutputTag<>("preempted-stage-outcomes", new AvroTypeInfo<>(StageOutcome.class));
    private final long horizonMs;

    private transient MapState<String, Boolean> verdicts;
    private transient ListState<PreemptionEvent> held;
    private transient ValueState<Long> expiry;
    private transient Counter kept;
    private transient Counter discarded;
    private transient Counter unresolved;

    public ResolvePreemptions(long horizonMs) {
        if (horizonMs <= 0) throw new IllegalArgumentException("horizon must be positive, got " + horizonMs + " ms");
        this.horizonMs = horizonMs;
    }

    /**
     * A result of a request preempted from {@code preemptedFrom}, to be resolved here.
     *
     * @param pipelineInput a pipeline stage's: the pipeline request's input, for a later stage that reads it; else null
     */
    public static PreemptionEvent result(InferenceResult result, List<String> preemptedFrom, Tensor pipelineInput) {
        return PreemptionEvent.newBuilder().setRequestId(result.getRequestId()).setResult(result).setPreemptedFrom(preemptedFrom)
                .setPipelineInput(pipelineInput).build();
    }

    /** A device's verdict on a preempted batch, for one of its requests. */
    public static PreemptionEvent verdict(String requestId, String batchId, boolean cancelledInTime) {
        return PreemptionEvent.newBuilder().setRequestId(requestId).setVerdictBatchId(batchId).setCancelledInTime(cancelledInTime).build();
    }

    @Override
    public void open(OpenContext openContext) {
        AvroCodec.enableCustomCoders();
        verdicts = getRuntimeContext().getMapState(new MapStateDescriptor<>("verdicts", Types.STRING, Types.BOOLEAN));
        held = getRuntimeContext().getListState(new ListStateDescriptor<>("held", new AvroTypeInfo<>(PreemptionEvent.class)));
        expiry = getRuntimeContext().getState(new ValueStateDescriptor<>("expiry", Types.LONG));
        MetricGroup metrics = getRuntimeContext().getMetricGroup().addGroup("kairos");
        kept = metrics.counter("preemptedResultsKept");
        discarded = metrics.counter("preemptedResultsDiscarded");
        unresolved = metrics.counter("preemptedResultsUnresolved");
    }

    @Override
    public void processElement(PreemptionEvent event, Context ctx, Collector<InferenceResult> out) throws Exception {
        if (expiry.value() == null) {
            long at = ctx.timerService().currentProcessingTime() + horizonMs;
            ctx.timerService().registerProcessingTimeTimer(at);
            expiry.update(at);
        }
        if (event.getVerdictBatchId() != null) {
            verdicts.put(event.getVerdictBatchId(), event.getCancelledInTime());
            List<PreemptionEvent> still = new ArrayList<>();
            for (PreemptionEvent r : held.get()) {
                if (resolve(r, out, ctx) == null) still.add(r);
            }
            held.update(still);
        } else if (resolve(event, out, ctx) == null) {
            held.add(event);
        }
    }

    /** Emits or discards a result if its verdicts allow; null while one of them is missing. */
    private Boolean resolve(PreemptionEvent r, Collector<InferenceResult> out, Context ctx) throws Exception {
        boolean complete = true;
        for (String batch : r.getPreemptedFrom()) {
            Boolean cancelledInTime = verdicts.get(batch);
            if (cancelledInTime == null) {
                complete = false;
            } else if (!cancelledInTime) {
                discarded.inc();
                return false;
            }
        }
        if (!complete) return null;
        kept.inc();
        emit(r, out, ctx);
        return true;
    }

    /** The kept result: a request's to the main output, a pipeline stage's to {@link #STAGES} with the input it carries. */
    private static void emit(PreemptionEvent r, Collector<InferenceResult> out, Context ctx) {
        if (AdvancePipelines.ofAStage(r.getResult())) ctx.output(STAGES, AdvancePipelines.outcome(r.getResult(), r.getPipelineInput()));
        else out.collect(r.getResult());
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<InferenceResult> out) throws Exception {
        for (PreemptionEvent r : held.get()) {
            unresolved.inc();
            emit(r, out, ctx);
        }
        held.clear();
        verdicts.clear();
        expiry.clear();
    }
}
