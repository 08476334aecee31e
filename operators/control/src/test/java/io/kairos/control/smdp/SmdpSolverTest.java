package io.kairos.control.smdp;

import io.kairos.core.scheduling.BatchingTable;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/**
 * The solver against the paper's equations written out densely, and properties of its solutions
 * on the paper's GoogLeNet / Tesla P4 queue.
 */
class SmdpSolverTest {
    /** GoogLeNet on a Tesla P4: tau(b) = 0.3051 b + 1.052 ms, zeta(b) = 19.90 b + 19.60 mJ, B_max 32. */
    static final BatchServiceModel P4 = BatchServiceModel.linear(1, 0.3051, 1.052, 19.90, 19.60, 32);

    /**
     * Relative value iteration as the paper writes it: the discretised costs (17) and the dense
     * transition matrix m~ (17) built from m' (12), iterated by (21) and stopped by (22). The
     * solver's structured iteration must give the same table after the same number of iterations.
     */
    @Test
    void agreesWithTheDenseIterationOfThePaper() {
        BatchServiceModel model = BatchServiceModel.linear(1, 0.5, 2.0, 3.0, 10.0, 8).atLoad(0.7);
        TruncatedSmdp smdp = new TruncatedSmdp(model, CostWeights.of(1, 0.5), 40, 50);
        SmdpSolver.Settings settings = SmdpSolver.Settings.PAPER;
        SmdpSolution fast = new SmdpSolver(settings).solve(smdp);

        int n = smdp.states();
        double eta = settings.etaShare() * SmdpSolver.etaBound(model);
        double[] j = new double[n];
        int[] policy = new int[n];
        int iterations = 0;
        double lo = 0, hi = 0;
        while (iterations < settings.iterMax()) {
            double[] next = new double[n];
            for (int s = 0; s < n; s++) {
                double best = Double.POSITIVE_INFINITY;
                for (int a = 0; a <= smdp.maxAction(s); a++) {
                    double y = smdp.sojourn(s, a);
                    double[] m = smdp.transitionRow(s, a);
                    double v = smdp.cost(s, a) / y - j[0];
                    for (int t = 0; t < n; t++) {
                        double mt = t == s ? 1 + eta * (m[t] - 1) / y : eta * m[t] / y;
                        v += mt * j[t];
                    }
                    if (v < best) {
                        best = v;
                        policy[s] = a;
                    }
                }
                next[s] = best;
            }
            lo = Double.POSITIVE_INFINITY;
            hi = Double.NEGATIVE_INFINITY;
            for (int s = 0; s < n; s++) {
                lo = Math.min(lo, next[s] - j[s]);
                hi = Math.max(hi, next[s] - j[s]);
            }
            double reference = j[0];
            j = next;
            iterations++;
            if (hi - lo < settings.epsilon()) {
                lo += reference;
                hi += reference;
                break;
            }
        }
        assertThat(fast.iterations()).isEqualTo(iterations);
        assertThat(fast.table().actions()).containsExactly(policy);
        assertThat(fast.gainLower()).isCloseTo(lo, within(1e-7));
        assertThat(fast.gainUpper()).isCloseTo(hi, within(1e-7));
        assertThat(fast.converged()).isTrue();
    }

    /** The stationary analysis against a plain power iteration of the embedded chain. */
    @Test
    void stationaryDistributionAgreesWithPowerIteration() {
        TruncatedSmdp smdp = new TruncatedSmdp(P4.atLoad(0.5), CostWeights.of(1, 1), 60, 100);
        for (BatchingTable table : List.of(BatchingTable.workConserving(32, 60), BatchingTable.staticBatch(16, 60))) {
            double[] mu = StationaryAnalysis.distribution(smdp, table);
            int n = smdp.states();
            double[][] p = new double[n][];
            for (int s = 0; s < n; s++) p[s] = smdp.transitionRow(s, table.action(s));
            double[] x = new double[n];
            x[0] = 1;
            for (int it = 0; it < 20_000; it++) {
                double[] y = new double[n];
                for (int s = 0; s < n; s++) for (int t = 0; t < n; t++) y[t] += x[s] * p[s][t];
                // Averaging with the last step removes any periodicity.
                for (int t = 0; t < n; t++) x[t] = (x[t] + y[t]) / 2;
            }
            for (int s = 0; s < n; s++) assertThat(mu[s]).as("%s state %d", table, s).isCloseTo(x[s], within(1e-10));
        }
    }

    /**
     * The paper's Fig 4 (a)-(d): every table has the control-limit form, with batch sizes that do
     * not fall over the states the chain visits (stationary probability above 1e-6; see
     * {@link BatchingTable#isMonotoneUpTo} for a dip beyond them); the limit grows with w2, and at
     * w2 = 500 it is B_max at every load. At w2 = 0 the paper finds the limit "close to 1". The
     * abstract cost is {@link SmdpSolver#overflowCostBound}: with the paper's 100 the table at
     * w2 = 500 and rho 0.1 waits for ever (serving costs more per ms than overflowing).
     */
    @Test
    void tablesAreMonotoneControlLimitsRisingWithThePowerWeight() {
        SmdpSolver solver = new SmdpSolver();
        for (double rho : new double[]{0.1, 0.5, 0.9}) {
            int previous = 0;
            for (double w2 : new double[]{0, 0.1, 1, 500}) {
                CostWeights w = CostWeights.of(1, w2);
                double co = SmdpSolver.overflowCostBound(P4.atLoad(rho), w, 120);
                SmdpSolution sol = solver.solve(new TruncatedSmdp(P4.atLoad(rho), w, 120, co));
                assertThat(sol.overflowCost()).as("rho %s w2 %s", rho, w2).isLessThan(1e-3);
                BatchingTable t = sol.table();
                assertThat(t.isControlLimit()).as("rho %s w2 %s: %s", rho, w2, t).isTrue();
                double[] mu = StationaryAnalysis.distribution(sol.smdp(), t);
                int visited = 0;
                for (int s = 0; s <= 120; s++) if (mu[s] > 1e-6) visited = s;
                assertThat(visited).as("rho %s w2 %s", rho, w2).isGreaterThanOrEqualTo(t.controlLimit());
                assertThat(t.isMonotoneUpTo(visited)).as("rho %s w2 %s up to %d: %s", rho, w2, visited, t).isTrue();
                assertThat(t.controlLimit()).as("rho %s w2 %s", rho, w2).isGreaterThanOrEqualTo(previous);
                previous = t.controlLimit();
                if (w2 == 0) assertThat(t.controlLimit()).as("rho %s: %s", rho, t).isLessThanOrEqualTo(3);
                if (w2 == 500) assertThat(t.controlLimit()).as("rho %s", rho).isEqualTo(32);
                assertThat(sol.evaluation().stable()).isTrue();
            }
        }
    }

    /**
     * A larger abstract cost only adds cost, so the optimal average cost cannot fall as c_o rises
     * (at s_max = 60, where the small c_o still let the table overflow); and at c_o = 100 the
     * overflow cost Delta shrinks as s_max grows (the paper's Fig 8).
     */
    @Test
    void gainRisesWithTheAbstractCostAndDeltaShrinksWithSMax() {
        SmdpSolver solver = new SmdpSolver();
        BatchServiceModel model = P4.atLoad(0.9);
        double previous = Double.NEGATIVE_INFINITY;
        for (double co : new double[]{0, 10, 100, 1000, 10_000}) {
            double g = solver.solve(new TruncatedSmdp(model, CostWeights.of(1, 1), 60, co)).gain();
            assertThat(g).as("c_o %s", co).isGreaterThanOrEqualTo(previous - 1e-9);
            previous = g;
        }
        List<Double> deltas = new ArrayList<>();
        for (int sMax : new int[]{40, 55, 70, 100, 140}) {
            deltas.add(solver.solve(new TruncatedSmdp(model, CostWeights.of(1, 1), sMax, 100)).overflowCost());
        }
        for (int i = 1; i < deltas.size(); i++) assertThat(deltas.get(i)).as("Delta at the %d-th s_max", i).isLessThan(deltas.get(i - 1));
    }

    /**
     * The paper's Table I row for c_o = 100 (rho 0.9, w = (1, 1), epsilon 0.01, iter_max 10,000,
     * delta 0.001): min s_max 70, 1483 iterations, Delta 8.36e-4, g 66.1377. The iteration count
     * here is one less (the paper seems to count the start); g is 0.004 lower (5e-5 relative).
     */
    @Test
    void acceptanceTestReproducesThePapersTableIRowForCo100() {
        SmdpSolver.Accepted acc = new SmdpSolver().solveAccepted(P4.atLoad(0.9), CostWeights.of(1, 1), 100, 0.001, 32, 1, 250);
        SmdpSolution sol = acc.solution();
        assertThat(acc.accepted()).isTrue();
        assertThat(sol.sMax()).isEqualTo(70);
        assertThat(acc.solves()).isEqualTo(70 - 32 + 1);
        assertThat(sol.iterations()).isBetween(1483 - 5, 1483 + 5);
        assertThat(sol.overflowCost()).isCloseTo(8.36e-4, within(0.05e-4));
        assertThat(sol.gain()).isCloseTo(66.1377, within(0.01));
    }

    @Test
    void badSettingsAndModelsAreRefusedWithTheirName() {
        assertThatThrownBy(() -> new TruncatedSmdp(P4.atLoad(0.5), CostWeights.of(1, 0), 16, 0)).hasMessageContaining("s_max must be at least B_max = 32");
        assertThatThrownBy(() -> new SmdpSolver.Settings(0, 10, 0.5, 1e-12)).hasMessageContaining("epsilon");
        assertThatThrownBy(() -> new SmdpSolver.Settings(0.01, 10, 1, 1e-12)).hasMessageContaining("eta share");
        assertThatThrownBy(() -> new BatchServiceModel(1, new double[]{2, 1}, new double[]{1, 1})).hasMessageContaining("tau(b) must not fall");
        assertThatThrownBy(() -> CostWeights.of(0, 0)).hasMessageContaining("at least one of the weights");
        BatchServiceModel unknownEnergy = new BatchServiceModel(0.1, new double[]{1, 2}, new double[]{Double.NaN, Double.NaN});
        assertThatThrownBy(() -> new TruncatedSmdp(unknownEnergy, CostWeights.of(1, 1), 10, 0)).hasMessageContaining("energy is unknown");
        assertThat(new SmdpSolver().solve(new TruncatedSmdp(unknownEnergy, CostWeights.of(1, 0), 10, 10)).evaluation().meanPowerW()).isNaN();
    }
}
