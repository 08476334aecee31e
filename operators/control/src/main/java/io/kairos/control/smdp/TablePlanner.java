package io.kairos.control.smdp;

import io.kairos.core.model.ModelSpec;
import io.kairos.schema.SetBatchingTable;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Plans one model's batching in a serving group: the SMDP solver's table for the model's catalog
 * profile (latency and energy, padded sizes priced as they run) at its arrival rate, and the
 * control decision that delivers it to the group's {@code smdp} policy. What {@code kairos plan
 * smdp} runs, and the tuner to come.
 *
 * <p>The paper's model is one device. A group of {@code k} devices that share a model's requests
 * serves about {@code 1/k} of them on each, so the table is solved for {@code rate / k}.
 *
 * <p>Truncation as in the experiment's Figs 4 and 5: the abstract cost {@code c_o} is
 * {@link SmdpSolver#overflowCostBound}, and {@code s_max} rises from {@code B_max} in steps of 8
 * until {@code Delta < delta} ({@value #DELTA}), at most to {@value #S_MAX_LIMIT}.
 */
public final class TablePlanner {
    public static final double DELTA = 0.001;
    public static final int S_MAX_STEP = 8;
    public static final int S_MAX_LIMIT = 2_000;

    private final SmdpSolver solver;

    public TablePlanner(SmdpSolver solver) {
        this.solver = solver;
    }

    public TablePlanner() {
        this(new SmdpSolver());
    }

    /** A solved table for a model in a group, and the decision that carries it. */
    public record Plan(String group, String model, double ratePerSecond, int devices, CostWeights weights, SmdpSolver.Accepted accepted) {
        public SmdpSolution solution() {
            return accepted.solution();
        }

        /** The control decision's action: the table, and the rate and weights it was solved for. */
        public SetBatchingTable decision() {
            List<Integer> actions = new ArrayList<>();
            for (int a : solution().table().actions()) actions.add(a);
            return SetBatchingTable.newBuilder()
                    .setGroup(group)
                    .setModel(model)
                    .setActions(actions)
                    .setArrivalRatePerS(ratePerSecond)
                    .setLatencyWeight(weights.latency())
                    .setPowerWeight(weights.power())
                    .setAverageCost(solution().gain())
                    .build();
        }

        /** Several lines: the table, its cost, latency and power, and how the solve went. */
        public String describe() {
            SmdpSolution s = solution();
            PolicyEvaluation e = s.evaluation();
            BatchServiceModel m = s.smdp().model();
            return String.format(Locale.ROOT, """
                    model %s in serving group %s: %s requests/s on %d device(s), rho %.3f per device, w1 %s, w2 %s
                    table: %s
                    control limit %d; average cost g %.6g, mean latency %.4g ms, mean power %.4g W, mean batch %.3g
                    s_max %d (Delta %.3g %s %.3g after %d solve(s)), c_o %.4g, %d iterations%s, %.1f ms""",
                    model, group, plain(ratePerSecond), devices, m.load(), plain(weights.latency()), plain(weights.power()),
                    s.table(), s.table().controlLimit(), s.gain(), e.meanLatencyMs(), e.meanPowerW(), e.meanBatch(),
                    s.sMax(), s.overflowCost(), accepted.accepted() ? "<" : "NOT <", DELTA, accepted.solves(), s.smdp().overflowCost(),
                    s.iterations(), s.converged() ? "" : " (iter_max reached)", accepted.nanos() / 1e6);
        }
    }

    /**
     * Solves {@code spec}'s table at {@code ratePerSecond} shared by {@code devices} devices.
     *
     * @throws IllegalArgumentException when the rate is not below one device's capacity, or the
     *         model's energy is unknown and {@code w2 > 0}; the message says which
     */
    public Plan plan(String group, ModelSpec spec, double ratePerSecond, int devices, CostWeights weights) {
        if (!(ratePerSecond > 0) || Double.isInfinite(ratePerSecond)) throw new IllegalArgumentException("the rate must be a positive number of requests per second, got " + ratePerSecond);
        if (devices < 1) throw new IllegalArgumentException("devices must be at least 1, got " + devices);
        BatchServiceModel model = BatchServiceModel.of(spec, ratePerSecond / devices);
        if (model.load() >= 1) {
            throw new IllegalArgumentException(String.format(Locale.ROOT,
                    "%.6g requests/s on %d device(s) is at or above the capacity of model '%s', %.6g requests/s per device at batch %d (rho %.3f): no table keeps the queue stable",
                    ratePerSecond, devices, spec.name(), model.maxThroughput() * 1000, model.maxBatch(), model.load()));
        }
        if (weights.power() > 0 && !model.energyKnown()) {
            throw new IllegalArgumentException("model '" + spec.name() + "' has no energy profile (energy_mj) in the catalog: only a latency objective (w2 = 0) can be solved");
        }
        double co = SmdpSolver.overflowCostBound(model, weights, Math.max(64, model.maxBatch()));
        SmdpSolver.Accepted accepted = solver.solveAccepted(model, weights, co, DELTA, model.maxBatch(), S_MAX_STEP, Math.max(S_MAX_LIMIT, model.maxBatch()));
        return new Plan(group, spec.name(), ratePerSecond, devices, weights, accepted);
    }

    private static String plain(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
    }
}
