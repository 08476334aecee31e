package io.kairos.testbed.experiment;

import io.kairos.control.smdp.BatchServiceModel;
import io.kairos.control.smdp.CostWeights;
import io.kairos.control.smdp.PolicyEvaluation;
import io.kairos.control.smdp.SmdpSolution;
import io.kairos.control.smdp.SmdpSolver;
import io.kairos.control.smdp.StationaryAnalysis;
import io.kairos.control.smdp.TruncatedSmdp;
import io.kairos.core.scheduling.BatchingTable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

/**
 * The SMDP paper's queue in the simulator, run by the scheduler's own policies, against the
 * stationary analysis of the same tables: what {@code experiment smdp} checks at every point of
 * Fig 5, here at rho 0.5 on shorter runs.
 */
class SmdpSimulationTest {
    private static final BatchServiceModel P4 = SmdpExperiment.P4;
    private static final long REQUESTS = 400_000;

    private static PolicyEvaluation analytic(double rho, BatchingTable table) {
        return StationaryAnalysis.evaluate(new TruncatedSmdp(P4.atLoad(rho), CostWeights.of(1, 1), table.sMax(), 0), table);
    }

    @Test
    void theBaselinesMeasureWhatTheAnalysisComputes() {
        for (String policy : SmdpExperiment.BASELINES) {
            PolicyEvaluation e = analytic(0.5, SmdpExperiment.baselineTable(policy));
            SmdpSimulation.Measured m = SmdpSimulation.run(P4, 0.5, policy, null, REQUESTS, 1);
            assertThat(m.latencyMs() / e.meanLatencyMs() - 1).as("%s latency", policy).isCloseTo(0, offset(0.02));
            assertThat(m.powerW() / e.meanPowerW() - 1).as("%s power", policy).isCloseTo(0, offset(0.02));
            assertThat(m.requestsPerJoule() / e.requestsPerJoule() - 1).as("%s efficiency", policy).isCloseTo(0, offset(0.02));
            assertThat(m.requests()).isBetween((long) (0.97 * REQUESTS), REQUESTS);
        }
        // Work-conserving serves what is there at once, static 32 waits for exactly 32.
        assertThat(SmdpSimulation.run(P4, 0.5, "work-conserving", null, REQUESTS, 1).meanBatch()).isLessThan(8);
        assertThat(SmdpSimulation.run(P4, 0.5, "static-32", null, REQUESTS, 1).meanBatch()).isEqualTo(32);
    }

    @Test
    void theSolversTableMeasuresWhatTheAnalysisComputes() {
        SmdpSolution sol = SmdpExperiment.accepted(new SmdpSolver(), P4.atLoad(0.5), CostWeights.of(1, 1));
        SmdpSimulation.Measured m = SmdpSimulation.run(P4, 0.5, SmdpExperiment.SMDP, sol.table(), REQUESTS, 1);
        assertThat(m.gap(1, 1, sol.evaluation().gain())).isCloseTo(0, offset(0.02));
        assertThat(m.cost(1, 1)).isEqualTo(m.latencyMs() + m.powerW());
    }

    @Test
    void aTableThatWaitsForThirtyTwoIsStaticThirtyTwoOnTheSameArrivals() {
        // The same arrivals (seed), the same decisions: the same run to the last digit.
        SmdpSimulation.Measured table = SmdpSimulation.run(P4, 0.3, SmdpExperiment.SMDP, BatchingTable.staticBatch(32, 64), 100_000, 7);
        SmdpSimulation.Measured fixed = SmdpSimulation.run(P4, 0.3, "static-32", null, 100_000, 7);
        assertThat(table.latencyMs()).isEqualTo(fixed.latencyMs());
        assertThat(table.powerW()).isEqualTo(fixed.powerW());
        // zeta(32) / 32 = (19.90 * 32 + 19.60) / 32 mJ per request: 1000 / that requests per joule.
        assertThat(fixed.requestsPerJoule()).isCloseTo(1000 / ((19.90 * 32 + 19.60) / 32), offset(1e-9));
    }

    @Test
    void interpolatesACurveBetweenItsPoints() {
        double[][] curve = {{1, 10}, {2, 8}, {4, 7}};
        assertThat(SmdpShapeCheck.interpolate(curve, 0, 1, 3)).isCloseTo(7.5, offset(1e-12));
        assertThat(SmdpShapeCheck.interpolate(curve, 1, 0, 9)).isCloseTo(1.5, offset(1e-12));
        assertThat(SmdpShapeCheck.interpolate(curve, 0, 1, 5)).isNaN();
    }

    /**
     * Four points of one policy: (energy, attainment, latency) = a (20, 0.9, 10), b (21, 0.99, 8),
     * c (22, 0.98, 7), d (21, 0.95, 9). Against attainment, d is beaten by b (same energy, more
     * attained) and c by b (less energy, more attained): the front is a, b. Against latency, d is
     * beaten by b (same energy, shorter): the front is a, b, c. A point of another policy counts
     * for its own front only.
     */
    @Test
    void marksEachPolicysParetoFronts() {
        java.util.List<java.util.List<String>> rows = new java.util.ArrayList<>();
        for (String[] p : new String[][]{{"smdp", "20", "0.9", "10"}, {"smdp", "21", "0.99", "8"}, {"smdp", "22", "0.98", "7"},
                {"smdp", "21", "0.95", "9"}, {"triton", "30", "0.5", "50"}}) {
            rows.add(java.util.List.of("poisson", "15", p[0], "", p[2], "", p[3], "", p[1], "", "", "", "", ""));
        }
        java.util.List<java.util.List<String>> marked = SmdpBeyondPaper.markFronts(rows);
        int attainment = SmdpBeyondPaper.PARETO_COLUMNS.indexOf("pareto"), latency = SmdpBeyondPaper.PARETO_COLUMNS.indexOf("pareto_latency");
        assertThat(marked).extracting(r -> r.get(attainment)).containsExactly("true", "true", "false", "false", "true");
        assertThat(marked).extracting(r -> r.get(latency)).containsExactly("true", "true", "true", "false", "true");
    }
}
