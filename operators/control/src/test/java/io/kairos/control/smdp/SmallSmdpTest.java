package io.kairos.control.smdp;

import io.kairos.core.scheduling.BatchingTable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * SMDPs small enough to solve on paper: three states, or a queue whose optimum is known in closed
 * form. The numbers in the comments are worked by hand; the assertions hold the code to them.
 */
class SmallSmdpTest {
    private static final double E = Math.E;

    /**
     * lambda = 1/ms, B_max = 1, tau(1) = 1 ms, latency only (w = (1, 0)), s_max = 1: states 0, 1
     * and S_o (which counts as 1 request). Arrivals during a batch: p_k = e^-1 / k!.
     *
     * <p>Work-conserving (wait in 0, serve 1 in 1 and in S_o). Rows: 0 -> 1; 1 and S_o both serve
     * their one request and go to k arrivals: 0 w.p. 1/e, 1 w.p. 1/e, S_o w.p. 1 - 2/e. With
     * X = mu_1 + mu_o: mu_0 = X/e, mu_1 = mu_0 + X/e = 2X/e, mu_o = (1 - 2/e) X; normalised,
     * mu = (1, 2, e - 2) / (e + 1). Every sojourn is 1 ms (1/lambda or tau(1)), so the mean time per
     * step is 1. Costs: c(0, 0) = 0; c(1, 1) = s tau / lambda + tau^2 / 2 = 1.5; c(S_o, 1) = 1.5 + c_o.
     * So g = (1.5 e + c_o (e - 2)) / (e + 1), Delta = (e - 2)(1.5 + c_o) / (e + 1), and the mean
     * latency (holding 0, 1.5, 1.5 over the same steps, over lambda) is 1.5 e / (e + 1).
     */
    @Test
    void threeStateWorkConservingTableEvaluatedByHand() {
        double co = 10;
        TruncatedSmdp smdp = threeStates(co);
        BatchingTable table = BatchingTable.workConserving(1, 1);
        assertThat(table.actions()).containsExactly(0, 1, 1);

        double[] mu = StationaryAnalysis.distribution(smdp, table);
        assertThat(mu[0]).isCloseTo(1 / (E + 1), within(1e-14));
        assertThat(mu[1]).isCloseTo(2 / (E + 1), within(1e-14));
        assertThat(mu[2]).isCloseTo((E - 2) / (E + 1), within(1e-14));

        PolicyEvaluation ev = StationaryAnalysis.evaluate(smdp, table);
        assertThat(ev.gain()).isCloseTo((1.5 * E + co * (E - 2)) / (E + 1), within(1e-12));
        assertThat(ev.overflowCost()).isCloseTo((E - 2) * (1.5 + co) / (E + 1), within(1e-12));
        assertThat(ev.meanLatencyMs()).isCloseTo(1.5 * E / (E + 1), within(1e-12));
        assertThat(ev.meanBatch()).isEqualTo(1.0);
        assertThat(ev.stable()).isFalse(); // one request per ms at a rate of one per ms
    }

    /**
     * The same three states, every stationary policy (a choice in state 1 and in S_o):
     * <ul>
     *   <li>serve, serve: g = (1.5 e + c_o (e - 2)) / (e + 1) (above);</li>
     *   <li>wait in 1, serve in S_o: 0 -> 1 -> S_o -> {0, 1, S_o}; mu = (1, 2, e) / (e + 3), costs
     *       c(1, 0) = s / lambda^2 = 1, c(S_o, 1) = 1.5 + c_o: g = (2 + (1.5 + c_o) e) / (e + 3);</li>
     *   <li>wait in S_o (either choice in 1): S_o keeps the chain for ever at
     *       c~(S_o, 0) = s_max / lambda + c_o per ms: g = 1 + c_o.</li>
     * </ul>
     * With c_o = 10: 3.028, 5.817, 11: serving everywhere is optimal. With c_o = 0: 1.097, 1.063,
     * 1: waiting for ever in S_o is, which is the paper's warning about a small c_o (the tail costs
     * nothing, so the truncated model prefers to overflow).
     */
    @Test
    void threeStateOptimumFoundByRelativeValueIteration() {
        SmdpSolver solver = new SmdpSolver(SmdpSolver.Settings.PAPER.withEpsilon(1e-9));

        SmdpSolution penalised = solver.solve(threeStates(10));
        assertThat(penalised.table().actions()).containsExactly(0, 1, 1);
        double g = (1.5 * E + 10 * (E - 2)) / (E + 1);
        assertThat(penalised.gain()).isCloseTo(g, within(1e-12));
        assertThat(penalised.gainLower()).isCloseTo(g, within(1e-8));
        assertThat(penalised.gainUpper()).isCloseTo(g, within(1e-8));
        assertThat(penalised.converged()).isTrue();

        SmdpSolution free = solver.solve(threeStates(0));
        assertThat(free.table().action(2)).isZero();
        assertThat(free.gain()).isCloseTo(1.0, within(1e-12));
        assertThat(free.overflowCost()).isCloseTo(1.0, within(1e-12));
        assertThat(free.gainUpper()).isCloseTo(1.0, within(1e-8));
    }

    /**
     * No set-up time ({@code tau(b) = b} ms) and latency only: a batch of b keeps all b waiting b ms,
     * b single requests back to back let the i-th go after i ms, so the optimum serves one request
     * whenever the device is free and the queue is M/D/1 with service 1 ms. At lambda = 0.5/ms the
     * Pollaczek–Khinchine formula gives the mean response time 1 + lambda / (2 (1 - lambda)) = 1.5 ms.
     */
    @Test
    void withoutSetUpTimeLatencyAloneServesOneAtATimeAsMD1() {
        BatchServiceModel model = BatchServiceModel.linear(0.5, 1.0, 0.0, 0.0, 0.0, 4);
        SmdpSolution sol = new SmdpSolver(SmdpSolver.Settings.PAPER.withEpsilon(1e-8))
                .solve(new TruncatedSmdp(model, CostWeights.of(1, 0), 60, 10));
        for (int s = 1; s <= 40; s++) assertThat(sol.table().action(s)).as("state %d", s).isEqualTo(1);
        assertThat(sol.table().action(0)).isZero();
        assertThat(sol.evaluation().meanLatencyMs()).isCloseTo(1.5, within(1e-9));
        assertThat(sol.gain()).isCloseTo(1.5, within(1e-9));
        assertThat(sol.overflowCost()).isLessThan(1e-12);
    }

    /**
     * Power alone ({@code w1 = 0}): holding costs nothing, and energy per request
     * {@code beta + zeta0 / b} is least at {@code b = B_max}, so the optimum waits for full batches
     * and the mean power is {@code lambda (beta + zeta0 / B_max)}: here 0.5 (2 + 8 / 4) = 2 W.
     */
    @Test
    void powerAloneWaitsForFullBatches() {
        BatchServiceModel model = BatchServiceModel.linear(0.5, 0.2, 1.0, 2.0, 8.0, 4);
        SmdpSolution sol = new SmdpSolver(SmdpSolver.Settings.PAPER.withEpsilon(1e-8))
                .solve(new TruncatedSmdp(model, CostWeights.of(0, 1), 40, 10));
        for (int s = 0; s <= 40; s++) {
            int a = sol.table().action(s);
            assertThat(a == 0 || a == 4).as("state %d serves %d", s, a).isTrue();
        }
        assertThat(sol.evaluation().meanPowerW()).isCloseTo(2.0, within(1e-6));
        assertThat(sol.evaluation().meanBatch()).isCloseTo(4.0, within(1e-9));
    }

    private static TruncatedSmdp threeStates(double co) {
        return new TruncatedSmdp(BatchServiceModel.linear(1.0, 0.0, 1.0, 0.0, 0.0, 1), CostWeights.of(1, 0), 1, co);
    }
}
