package io.kairos.control.smdp;

import io.kairos.core.scheduling.BatchingTable;

/**
 * What the solver found for one truncated SMDP.
 *
 * @param smdp        the problem solved ({@code s_max}, {@code c_o}, model and weights)
 * @param table       the policy: the minimiser of the last iteration
 * @param evaluation  the table evaluated exactly on {@code smdp}: {@code g^pi}, {@code Delta^pi}, latency, power
 * @param gainLower   the bounds on the optimal gain that the last iteration gives,
 * @param gainUpper   {@code min} and {@code max} of {@code J_{n+1} - J_n} plus the reference value
 * @param iterations  relative value iterations run
 * @param converged   whether the span fell below {@code epsilon} before {@code iter_max}
 * @param eta         the discretisation's step {@code eta}
 * @param solveNanos  wall time of the iterations and the evaluation, ns
 * @param cpuNanos    the solving thread's CPU time for the same, ns (-1 where the JVM cannot tell):
 *                    the figure to quote on a machine shared with other work
 */
public record SmdpSolution(TruncatedSmdp smdp, BatchingTable table, PolicyEvaluation evaluation, double gainLower,
                           double gainUpper, int iterations, boolean converged, double eta, long solveNanos, long cpuNanos) {

    /** {@code g^pi}, (14). */
    public double gain() {
        return evaluation.gain();
    }

    /** {@code Delta^pi}, (15). */
    public double overflowCost() {
        return evaluation.overflowCost();
    }

    public int sMax() {
        return smdp.sMax();
    }

    /** Whether the truncation is acceptable with tolerance {@code delta}: {@code Delta^pi < delta}. */
    public boolean acceptable(double delta) {
        return evaluation.overflowCost() < delta;
    }

    /** The paper's count of multiplications for these iterations as written: {@code n * B_max * s_max^2}. */
    public double paperMultiplications() {
        return (double) iterations * smdp.model().maxBatch() * smdp.sMax() * smdp.sMax();
    }

    public double cpuMillis() {
        return cpuNanos < 0 ? Double.NaN : cpuNanos / 1e6;
    }

    public double solveMillis() {
        return solveNanos / 1e6;
    }
}
