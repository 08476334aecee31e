package io.kairos.testbed.experiment;

import io.kairos.control.DecisionPublisher;
import io.kairos.control.inferline.PipelineDecisions;
import io.kairos.control.tuner.ReplicaPlacement;
import io.kairos.control.tuner.Tuner;
import io.kairos.control.tuner.TunerPlan;
import io.kairos.control.tuner.TunerSettings;
import io.kairos.core.device.DeviceSlots;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.pipeline.PipelineSpec;
import io.kairos.schema.SetPlacement;
import io.kairos.sim.Controller;
import io.kairos.sim.TimedDecision;
import io.kairos.sim.pipeline.PipelineConfig;
import io.kairos.sim.pipeline.PipelineEstimator;
import io.kairos.workload.ArrivalTrace;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A planned pipeline run in the simulator with its replicas changing during the trace: the tuner
 * ({@link Tuner}) fed the trace's arrivals and ticking as the job's timers would, its placements
 * replayed at the ticks that made them ({@link PipelineEstimator#estimateScaled}), and what the run
 * held, second by second. The tuner experiment and InferLine's comparison over time share it.
 */
final class TunerReplay {
    /** The writer the replayed decisions name. */
    static final String WRITER = "tuner";

    private final ModelCatalog catalog;
    private final PipelineSpec pipeline;

    TunerReplay(ModelCatalog catalog, PipelineSpec pipeline) {
        this.catalog = catalog;
        this.pipeline = pipeline;
    }

    /** A tuned run: its estimate and the most replicas it held per stage (in topological order). */
    record Tuned(PipelineEstimator.ScaledEstimate estimate, int[] most) {}

    /** Each stage's replicas in every second (the most held during it), and how often they changed. */
    record Held(Map<String, int[]> replicasPerSecond, int changes, int reversals) {}

    /**
     * The tuner on {@code settings}, planned from {@code base} and {@code planning}, fed
     * {@code trace}'s arrivals up to {@code endMicros}; its placements replayed on {@code devices}.
     */
    Tuned tune(TunerSettings settings, PipelineConfig base, ArrivalTrace planning, ArrivalTrace trace, long endMicros, PipelineEstimator estimator,
               DeviceSlots devices, long sloMicros) {
        long[] times = trace.times();
        Tuner tuner = new Tuner(TunerPlan.of(pipeline, base, catalog, planning, settings), placement(base, devices), 0);
        Map<String, List<TimedDecision>> decisions = new LinkedHashMap<>();
        for (String s : pipeline.topologicalOrder()) decisions.put(PipelineDecisions.group(pipeline, s), new ArrayList<>());
        long tick = settings.tickMicros();
        int next = 0;
        long version = 0;
        int[] most = tuner.replicas();
        for (long now = tick; now <= endMicros; now += tick) {
            while (next < times.length && times[next] < now) tuner.arrive(times[next++]);
            var change = tuner.tick(now);
            if (change.isEmpty()) continue;
            for (Object action : change.get().actions()) {
                SetPlacement p = (SetPlacement) action;
                decisions.get(p.getGroup()).add(new TimedDecision(now, DecisionPublisher.decision(WRITER, ++version, now, action)));
            }
            int[] k = change.get().replicas();
            for (int i = 0; i < k.length; i++) most[i] = Math.max(most[i], k[i]);
        }
        Map<String, PipelineEstimator.StageScaling> tuned = scalings(base, devices, s -> decisions.get(PipelineDecisions.group(pipeline, s)), s -> null);
        return new Tuned(estimator.estimateScaled(base, sloMicros, devices, tuned), most);
    }

    /** {@code config} held all the time on {@code devices}: no decision, no controller. */
    PipelineEstimator.ScaledEstimate fixed(PipelineConfig config, PipelineEstimator estimator, DeviceSlots devices, long sloMicros) {
        return estimator.estimateScaled(config, sloMicros, devices, scalings(config, devices, s -> List.of(), s -> null));
    }

    /** The planned placement of {@code config} on the pool, as the tuner and the autoscalers start from. */
    ReplicaPlacement placement(PipelineConfig config, DeviceSlots devices) {
        List<String> types = new ArrayList<>();
        List<List<Integer>> slots = new ArrayList<>();
        for (PipelineDecisions.StageDevices d : PipelineDecisions.devices(pipeline, config, devices)) {
            types.add(config.stage(d.stage()).hardwareType());
            slots.add(d.slots());
        }
        return new ReplicaPlacement(devices, types, slots);
    }

    Map<String, PipelineEstimator.StageScaling> scalings(PipelineConfig config, DeviceSlots devices, Function<String, List<TimedDecision>> decisions,
                                                         Function<String, Supplier<Controller>> controllers) {
        Map<String, PipelineEstimator.StageScaling> m = new LinkedHashMap<>();
        for (PipelineDecisions.StageDevices d : PipelineDecisions.devices(pipeline, config, devices)) {
            m.put(d.stage(), new PipelineEstimator.StageScaling(d.group(), d.slots(), decisions.apply(d.stage()), controllers.apply(d.stage())));
        }
        return m;
    }

    /**
     * The replicas of each stage in every one of {@code seconds} seconds, from the decisions the run
     * applied; a change reversed within the tuner's scale-down quiet time counts as a reversal.
     */
    Held held(PipelineConfig config, PipelineEstimator.ScaledEstimate e, int seconds) {
        Map<String, int[]> perSecond = new LinkedHashMap<>();
        int changes = 0;
        int reversals = 0;
        for (String stage : pipeline.topologicalOrder()) {
            int[] k = new int[seconds];
            int current = config.stage(stage).replicas();
            List<TimedDecision> applied = e.applied().get(stage);
            int d = 0;
            int lastDirection = 0;
            long lastAt = Long.MIN_VALUE;
            for (int s = 0; s < seconds; s++) {
                // Device-seconds: each second is charged the replicas held at its end and any more
                // held during it (a device is paid for from when it is placed).
                int held = current;
                while (d < applied.size() && applied.get(d).atMicros() < (s + 1) * 1_000_000L) {
                    TimedDecision t = applied.get(d++);
                    int next = ((SetPlacement) t.decision().getAction()).getDevices().size();
                    int direction = Integer.signum(next - current);
                    if (direction != 0 && lastDirection != 0 && direction != lastDirection && t.atMicros() - lastAt < TunerSettings.DEFAULT.scaleDownQuietMicros()) reversals++;
                    if (direction != 0) {
                        lastDirection = direction;
                        lastAt = t.atMicros();
                        changes++;
                    }
                    current = next;
                    held = Math.max(held, current);
                }
                k[s] = held;
            }
            perSecond.put(stage, k);
        }
        return new Held(perSecond, changes, reversals);
    }

    /** Replica-seconds over all stages in the seconds [from, to) of a per-second replica count per stage. */
    static double replicaSeconds(Map<String, int[]> replicasPerSecond, int from, int to) {
        double sum = 0;
        for (int[] k : replicasPerSecond.values()) for (int s = from; s < to; s++) sum += k[s];
        return sum;
    }

    /** The most replicas over all stages held in any one second. */
    static int mostReplicas(Map<String, int[]> replicasPerSecond) {
        int seconds = replicasPerSecond.values().iterator().next().length;
        int most = 0;
        for (int s = 0; s < seconds; s++) {
            int total = 0;
            for (int[] k : replicasPerSecond.values()) total += k[s];
            most = Math.max(most, total);
        }
        return most;
    }

    /**
     * The dollars per hour of each second of {@code replicasPerSecond} (each stage's replicas at its
     * hardware type's price in {@code config}), seconds {@code from} (inclusive) to {@code to}
     * averaged: the time-averaged cost per hour over that span.
     */
    double costPerHour(PipelineConfig config, Map<String, int[]> replicasPerSecond, int from, int to) {
        if (to <= from) throw new IllegalArgumentException("an empty span of seconds: [" + from + ", " + to + ")");
        double dollarsPerHour = 0;
        for (Map.Entry<String, int[]> e : replicasPerSecond.entrySet()) {
            double price = catalog.hardwareType(config.stage(e.getKey()).hardwareType()).pricePerHour();
            for (int s = from; s < to; s++) dollarsPerHour += e.getValue()[s] * price;
        }
        return dollarsPerHour / (to - from);
    }
}
