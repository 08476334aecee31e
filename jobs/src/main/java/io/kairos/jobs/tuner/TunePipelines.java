package io.kairos.jobs.tuner;

import io.kairos.control.DecisionPublisher;
import io.kairos.control.VersionClock;
import io.kairos.control.tuner.ReplicaPlacement;
import io.kairos.control.tuner.StageScale;
import io.kairos.control.tuner.Tuner;
import io.kairos.control.tuner.TunerPlan;
import io.kairos.core.device.DeviceSlots;
import io.kairos.core.time.WallClock;
import io.kairos.schema.ControlDecision;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeHint;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The tuner job's one keyed function, keyed by pipeline id: each element is one arrival of a
 * request of that pipeline; a processing-time timer every tick runs the pipeline's {@link Tuner}
 * (Algorithms 3 and 4, engine-free) and emits the placements it makes as control decisions,
 * stamped as every writer's are ({@link DecisionPublisher#decision}: the key of the action, this
 * job's writer id, a version from a {@link VersionClock}), for a sink that writes them to the
 * control topic under their key.
 *
 * <p>A pipeline's tuner lives on the heap (its envelope is read at every tick) and its
 * {@link Tuner.State} is written to keyed state at every tick, so a restore loses at most the
 * arrivals of one tick from the envelope. Arrivals are counted
 * at the time their clients sent them (the record's timestamp, see {@link #arrivalMicros}); the
 * timers run on processing time. A pipeline with no plan is counted ({@code arrivalsUntuned})
 * and left alone.
 */
public final class TunePipelines extends KeyedProcessFunction<String, String, ControlDecision> {
    private final Map<String, TunerPlan> plans;
    private final DeviceSlots pool;
    private final Map<String, List<List<Integer>>> placed;
    private final String writer;

    private transient Map<String, Tuner> tuners;
    private transient ValueState<Tuner.State> state;
    private transient ValueState<Long> nextTickMs;
    private transient VersionClock versions;
    private transient Counter decisions;
    private transient Counter untuned;

    /**
     * @param plans  per pipeline id, what its tuner tunes against
     * @param pool   the serving job's device slots
     * @param placed per pipeline id, each stage's slots when the tuner starts (the planned placement, applied)
     * @param writer the writer id its decisions carry
     */
    public TunePipelines(Map<String, TunerPlan> plans, DeviceSlots pool, Map<String, List<List<Integer>>> placed, String writer) {
        for (Map.Entry<String, TunerPlan> e : plans.entrySet()) {
            List<List<Integer>> slots = placed.get(e.getKey());
            if (slots == null) throw new IllegalArgumentException("pipeline '" + e.getKey() + "' has a plan but no placement");
            // Checked now, on the client, rather than in the job.
            new ReplicaPlacement(pool, e.getValue().stages().stream().map(StageScale::hardwareType).toList(), slots);
        }
        this.plans = Map.copyOf(plans);
        this.pool = pool;
        this.placed = Map.copyOf(placed);
        this.writer = writer;
    }

    @Override
    public void open(OpenContext context) {
        tuners = new HashMap<>();
        state = getRuntimeContext().getState(new ValueStateDescriptor<>("tuner", TypeInformation.of(new TypeHint<Tuner.State>() {})));
        nextTickMs = getRuntimeContext().getState(new ValueStateDescriptor<>("next-tick-ms", Long.class));
        versions = new VersionClock(WallClock::nowMicros);
        decisions = getRuntimeContext().getMetricGroup().addGroup("kairos").counter("tunerDecisions");
        untuned = getRuntimeContext().getMetricGroup().addGroup("kairos").counter("arrivalsUntuned");
    }

    @Override
    public void processElement(String pipeline, Context ctx, Collector<ControlDecision> out) throws Exception {
        long nowMs = ctx.timerService().currentProcessingTime();
        Tuner t = tuner(ctx.getCurrentKey(), nowMs * 1000);
        if (t == null) {
            untuned.inc();
            return;
        }
        t.arrive(arrivalMicros(ctx.timestamp(), nowMs));
        if (nextTickMs.value() == null) {
            // The first arrival of a pipeline (or the first since a restore without a timer) starts its ticks.
            long tickMs = Math.max(1, t.plan().settings().tickMicros() / 1000);
            long at = (nowMs / tickMs + 1) * tickMs;
            ctx.timerService().registerProcessingTimeTimer(at);
            nextTickMs.update(at);
            state.update(t.state());
        }
    }

    @Override
    public void onTimer(long timestampMs, OnTimerContext ctx, Collector<ControlDecision> out) throws Exception {
        long now = timestampMs * 1000;
        Tuner t = tuner(ctx.getCurrentKey(), now);
        if (t == null) return;
        t.tick(now).ifPresent(change -> {
            for (Object action : change.actions()) {
                out.collect(DecisionPublisher.decision(writer, versions.next(), now, action));
                decisions.inc();
            }
        });
        state.update(t.state());
        long next = timestampMs + Math.max(1, t.plan().settings().tickMicros() / 1000);
        ctx.timerService().registerProcessingTimeTimer(next);
        nextTickMs.update(next);
    }

    /**
     * When a request arrived: its record's timestamp (the Kafka record's, the time its client sent
     * it), no later than now; now where it has none. Counted at send time, a burst of records that
     * reach the job together (its source starting, or catching up after a pause) is counted as the
     * traffic it was, not as a spike; a timestamp ahead of this clock (a client's clock ahead) counts now.
     */
    static long arrivalMicros(Long recordTimestampMs, long nowMs) {
        return (recordTimestampMs == null ? nowMs : Math.min(recordTimestampMs, nowMs)) * 1000;
    }

    /** The pipeline's tuner: on the heap, else restored from its state, else new from its plan; null when it has no plan. */
    private Tuner tuner(String pipeline, long nowMicros) throws Exception {
        Tuner t = tuners.get(pipeline);
        if (t != null) return t;
        TunerPlan plan = plans.get(pipeline);
        if (plan == null) return null;
        Tuner.State saved = state.value();
        if (saved != null) {
            try {
                t = Tuner.restore(plan, pool, saved);
            } catch (IllegalArgumentException e) {
                t = null; // the configuration changed since: start again from the planned placement
            }
        }
        if (t == null) {
            List<String> types = plan.stages().stream().map(StageScale::hardwareType).toList();
            t = new Tuner(plan, new ReplicaPlacement(pool, types, placed.get(pipeline)), nowMicros);
        }
        tuners.put(pipeline, t);
        return t;
    }
}
