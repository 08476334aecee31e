package io.kairos.testbed.experiment;

import io.kairos.control.DecisionPublisher;
import io.kairos.control.inferline.PipelineDecisions;
import io.kairos.control.tuner.ReplicaPlacement;
import io.kairos.schema.ControlDecision;
import io.kairos.sim.Controller;

import io.kairos.tools.format.Numbers;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * An autoscaler that users would pick instead of InferLine's tuner, emulated for one stage's
 * serving group in the simulator: it samples the group's ongoing requests (waiting and running)
 * once per {@link #SAMPLE_MICROS} and sizes the group from their averages over its windows. Its
 * replicas come from the same device pool as the tuner's ({@link ReplicaPlacement}), and its
 * placements are stamped as every writer's ({@link DecisionPublisher#decision}).
 */
abstract class StageAutoscaler implements Controller {
    static final long SAMPLE_MICROS = 1_000_000;

    private final String writer;
    private final String group;
    private final String model;
    private final ReplicaPlacement placement;
    private final int stage;
    private final int keep;
    private final Deque<Integer> samples = new ArrayDeque<>();
    private long next;
    private long version;

    /** @param keep how many one-second samples of ongoing requests the rule averages over (its longest window) */
    StageAutoscaler(String writer, String group, String model, ReplicaPlacement placement, int stage, int keep) {
        this.writer = writer;
        this.group = group;
        this.model = model;
        this.placement = placement;
        this.stage = stage;
        this.keep = keep;
    }

    @Override
    public long nextMicros() {
        return next;
    }

    @Override
    public List<ControlDecision> act(long nowMicros, Load load) {
        next = nowMicros + SAMPLE_MICROS;
        samples.addLast(load.queued(group) + load.running(group));
        if (samples.size() > keep) samples.removeFirst();
        int current = placement.replicas(stage);
        int desired = desired(nowMicros, current);
        if (desired == current) return List.of();
        List<Integer> slots = placement.resize(stage, Math.max(1, desired));
        if (slots.size() == current) return List.of(); // no free device of the stage's type
        return List.of(DecisionPublisher.decision(writer, ++version, nowMicros, PipelineDecisions.placement(group, model, slots)));
    }

    /** The replicas the rule wants now, given the samples so far ({@link #average}). */
    abstract int desired(long nowMicros, int current);

    /** The mean of the latest {@code n} samples (fewer at the start). */
    double average(int n) {
        double sum = 0;
        int count = 0;
        var it = samples.descendingIterator();
        while (it.hasNext() && count < n) {
            sum += it.next();
            count++;
        }
        return count == 0 ? 0 : sum / count;
    }

    /**
     * Ray Serve's autoscaling policy: the desired replicas are the ongoing requests averaged over
     * the look-back period (30 s) over {@code target_ongoing_requests}, rounded up; a change is made
     * once it has been asked for at every sample for the upscale delay or the downscale delay, and a
     * sample that asks for no change (or the other way) starts the count again. Its defaults: a
     * target of 2, delays of 30 s and 600 s ({@link Ray#DEFAULT}).
     */
    static final class RayServe extends StageAutoscaler {
        static final int LOOK_BACK_S = 30;
        private final Ray settings;
        private long upFor;
        private long downFor;

        RayServe(String group, String model, ReplicaPlacement placement, int stage) {
            this(group, model, placement, stage, Ray.DEFAULT);
        }

        RayServe(String group, String model, ReplicaPlacement placement, int stage, Ray settings) {
            super("ray-serve", group, model, placement, stage, LOOK_BACK_S);
            this.settings = settings;
        }

        @Override
        int desired(long nowMicros, int current) {
            int want = Math.max(1, (int) Math.ceil(average(LOOK_BACK_S) / settings.targetOngoing() - 1e-9));
            if (want > current) {
                downFor = 0;
                upFor += SAMPLE_MICROS;
                if (upFor >= settings.upscaleDelayS() * 1_000_000L) {
                    upFor = 0;
                    return want;
                }
            } else if (want < current) {
                upFor = 0;
                downFor += SAMPLE_MICROS;
                if (downFor >= settings.downscaleDelayS() * 1_000_000L) {
                    downFor = 0;
                    return want;
                }
            } else {
                upFor = 0;
                downFor = 0;
            }
            return current;
        }
    }

    /** Ray Serve's knobs: {@code target_ongoing_requests}, {@code upscale_delay_s}, {@code downscale_delay_s}. */
    record Ray(double targetOngoing, int upscaleDelayS, int downscaleDelayS) {
        static final Ray DEFAULT = new Ray(2, 30, 600);

        /** The grid its users search: targets around the default, and delays from quick to its defaults. */
        static List<Ray> grid() {
            List<Ray> out = new ArrayList<>();
            for (double target : new double[]{1, 2, 4}) {
                for (int up : new int[]{10, 30}) {
                    for (int down : new int[]{60, 600}) out.add(new Ray(target, up, down));
                }
            }
            return out;
        }

        String label() {
            return "target_ongoing_requests=" + Numbers.significant(targetOngoing) + " upscale_delay_s=" + upscaleDelayS + " downscale_delay_s=" + downscaleDelayS;
        }
    }

    /**
     * Knative's KPA: every 2 s, the concurrency (ongoing requests) averaged over the stable window
     * and the panic window, each over the target per replica (the target concurrency at the default
     * 70 % target utilisation). When the panic window asks for at least twice the replicas there
     * are (the 200 % panic threshold), it panics: it sizes from the panic window and never scales
     * down, until a stable window passes without that; otherwise it sizes from the stable window,
     * at most halving the replicas at once (the default maximum scale-down rate of 2). Its defaults
     * here: a target of 2, windows of 60 s and 6 s ({@link Kpa#DEFAULT}).
     */
    static final class Knative extends StageAutoscaler {
        static final double TARGET_UTILISATION = 0.7;
        static final double PANIC_THRESHOLD = 2;
        static final long TICK = 2_000_000;
        private final Kpa settings;
        private long lastEvaluation = Long.MIN_VALUE;
        private long panicSince = Long.MIN_VALUE;

        Knative(String group, String model, ReplicaPlacement placement, int stage) {
            this(group, model, placement, stage, Kpa.DEFAULT);
        }

        Knative(String group, String model, ReplicaPlacement placement, int stage, Kpa settings) {
            super("knative-kpa", group, model, placement, stage, settings.stableS());
            this.settings = settings;
        }

        @Override
        int desired(long nowMicros, int current) {
            if (lastEvaluation != Long.MIN_VALUE && nowMicros - lastEvaluation < TICK) return current;
            lastEvaluation = nowMicros;
            double perReplica = settings.targetConcurrency() * TARGET_UTILISATION;
            int stable = (int) Math.ceil(average(settings.stableS()) / perReplica - 1e-9);
            int panic = (int) Math.ceil(average(settings.panicS()) / perReplica - 1e-9);
            if (panic >= PANIC_THRESHOLD * current) panicSince = nowMicros;
            else if (panicSince != Long.MIN_VALUE && nowMicros - panicSince >= settings.stableS() * 1_000_000L) panicSince = Long.MIN_VALUE;
            if (panicSince != Long.MIN_VALUE) return Math.max(current, panic);
            return Math.max(1, Math.max(stable, (current + 1) / 2));
        }
    }

    /** Knative KPA's knobs: the target concurrency per replica, the stable window and the panic window (seconds). */
    record Kpa(double targetConcurrency, int stableS, int panicS) {
        static final Kpa DEFAULT = new Kpa(2, 60, 6);

        /** The grid its users search: targets around the default; stable windows of 30 and 60 s, panic windows of 10 % and 20 % of them. */
        static List<Kpa> grid() {
            List<Kpa> out = new ArrayList<>();
            for (double target : new double[]{1, 2, 4}) {
                for (int stable : new int[]{30, 60}) {
                    for (int percent : new int[]{10, 20}) out.add(new Kpa(target, stable, stable * percent / 100));
                }
            }
            return out;
        }

        String label() {
            return "target=" + Numbers.significant(targetConcurrency) + " stable_window_s=" + stableS + " panic_window_s=" + panicS;
        }
    }
}
