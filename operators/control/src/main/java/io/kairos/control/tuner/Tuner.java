package io.kairos.control.tuner;

import io.kairos.control.inferline.PipelineDecisions;
import io.kairos.core.device.DeviceSlots;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * InferLine's high-frequency tuner for one planned pipeline: it hears the pipeline's arrivals,
 * keeps their envelope ({@link ArrivalEnvelope}) and, at each tick, applies the scale rules
 * ({@link ScaleRule}) and turns a change of replicas into the placements that carry it out
 * ({@link ReplicaPlacement}: a {@code SetPlacement} per stage whose devices changed). The same
 * object runs in the simulator, fed the simulated arrivals, and its state is what the tuner job
 * keeps per pipeline.
 *
 * <p>Plain Java: it is told the time, never reads a clock. Not thread-safe.
 */
public final class Tuner {
    /**
     * A change the tuner made.
     *
     * @param atMicros when
     * @param step     the rules' verdict
     * @param replicas each stage's replicas from now on (fewer than the step asked where the pool ran out)
     * @param actions  the placements that carry it out, one per stage whose devices changed, then
     *                 the batching tables solved again ({@link #followBatching})
     * @param notes    why a drifted rate got no new table, one line each
     */
    public record Change(long atMicros, ScaleRule.Step step, int[] replicas, List<Object> actions, List<String> notes) {}

    private final TunerPlan plan;
    private final ArrivalEnvelope envelope;
    private final ReplicaPlacement placement;
    private long lastChangeMicros;
    private BatchingFollower batching;
    private int batchingWindow;

    /**
     * @param placement   where the stages' replicas are now (the planned placement, applied)
     * @param startMicros when the tuner starts: Algorithm 4 waits its quiet time from here too
     */
    public Tuner(TunerPlan plan, ReplicaPlacement placement, long startMicros) {
        this.plan = plan;
        this.envelope = plan.settings().envelope();
        this.placement = placement;
        this.lastChangeMicros = startMicros;
    }

    /** A request of the pipeline arrived (at its entry stage) at {@code atMicros}. */
    public void arrive(long atMicros) {
        envelope.record(atMicros);
    }

    /** {@code n} requests arrived at {@code atMicros}. */
    public void arrive(long atMicros, int n) {
        envelope.record(atMicros, n);
    }

    /**
     * Has the tuner keep the stages' batching tables solved for their rate ({@link
     * BatchingFollower}), each stage's rate taken as {@code s_m} times the pipeline's rate over the
     * latest window of {@code rateWindowMicros} (one of the settings' windows). For pipelines whose
     * groups run the {@code smdp} policy.
     */
    public void followBatching(BatchingFollower follower, long rateWindowMicros) {
        this.batchingWindow = envelope.windowIndex(rateWindowMicros);
        this.batching = follower;
    }

    /** The rules at {@code nowMicros}: the change they make (replicas, batching tables), if any. */
    public Optional<Change> tick(long nowMicros) {
        int[] current = replicas();
        ScaleRule.Step step = ScaleRule.next(plan, envelope.peakRates(nowMicros), current, lastChangeMicros, nowMicros);
        List<Object> actions = new ArrayList<>();
        if (step.changed()) {
            for (int s = 0; s < current.length; s++) {
                if (step.replicas()[s] == current[s]) continue;
                List<Integer> slots = placement.resize(s, step.replicas()[s]);
                if (slots.size() == current[s]) continue; // the pool has no free device of the stage's type
                StageScale stage = plan.stages().get(s);
                actions.add(PipelineDecisions.placement(stage.group(), stage.model(), slots));
            }
            if (!actions.isEmpty()) lastChangeMicros = nowMicros;
        }
        boolean placed = !actions.isEmpty();
        List<String> notes = new ArrayList<>();
        if (batching != null) {
            // After the placements: a table is solved for the devices the group has from now on.
            double pipelineRate = envelope.latestRate(nowMicros, batchingWindow);
            for (int s = 0; s < current.length; s++) {
                StageScale stage = plan.stages().get(s);
                BatchingFollower.Result r = batching.follow(stage.group(), stage.model(), stage.scaleFactor() * pipelineRate, placement.replicas(s));
                r.plan().ifPresent(p -> actions.add(p.decision()));
                if (r.problem() != null) notes.add("stage '" + stage.stage() + "': " + r.problem());
            }
        }
        if (actions.isEmpty() && notes.isEmpty()) return Optional.empty();
        ScaleRule.Step made = placed ? step : new ScaleRule.Step(replicas(), ScaleRule.Kind.NONE, step.window(), step.rate(), step.sampleRate());
        return Optional.of(new Change(nowMicros, made, replicas(), List.copyOf(actions), List.copyOf(notes)));
    }

    /** Each stage's replicas now, in the plan's order. */
    public int[] replicas() {
        int[] k = new int[plan.stages().size()];
        for (int s = 0; s < k.length; s++) k[s] = placement.replicas(s);
        return k;
    }

    /**
     * What a streaming job keeps of a tuner to restore it: the envelope's ring, each stage's slots
     * and the time of the last change (the plan and the pool are the job's configuration).
     */
    public record State(int[] envelope, long newestBucket, List<List<Integer>> slots, long lastChangeMicros) implements java.io.Serializable {}

    public State state() {
        List<List<Integer>> slots = new ArrayList<>();
        for (int s = 0; s < plan.stages().size(); s++) slots.add(new ArrayList<>(placement.slots(s)));
        return new State(envelope.counts(), envelope.newestBucket(), slots, lastChangeMicros);
    }

    /**
     * The tuner {@link #state} described, on {@code pool}.
     *
     * @throws IllegalArgumentException if the state does not fit the plan's settings or the pool (the job's configuration changed)
     */
    public static Tuner restore(TunerPlan plan, DeviceSlots pool, State state) {
        List<String> types = plan.stages().stream().map(StageScale::hardwareType).toList();
        Tuner t = new Tuner(plan, new ReplicaPlacement(pool, types, state.slots()), state.lastChangeMicros());
        t.envelope.restore(state.envelope(), state.newestBucket());
        return t;
    }

    public TunerPlan plan() {
        return plan;
    }

    /** The envelope's recent peak rates at {@code nowMicros}, per window. */
    public double[] peakRates(long nowMicros) {
        return envelope.peakRates(nowMicros);
    }

    public ReplicaPlacement placement() {
        return placement;
    }

    public long lastChangeMicros() {
        return lastChangeMicros;
    }

    @Override
    public String toString() {
        return "tuner of pipeline '" + plan.pipeline() + "': replicas " + Arrays.toString(replicas());
    }
}
