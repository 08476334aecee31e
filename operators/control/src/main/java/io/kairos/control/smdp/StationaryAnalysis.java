package io.kairos.control.smdp;

import io.kairos.core.scheduling.BatchingTable;

/**
 * Evaluates a batching table on a truncated SMDP exactly: the stationary distribution of the
 * embedded chain (one step per decision) under the table, and from it the time averages (the
 * paper's (14), (15)). The same numbers for the solver's table and for any baseline, so that they
 * compare like with like.
 *
 * <p>The distribution comes from the Grassmann–Taksar–Heyman reduction: states are eliminated from
 * the top with sums of non-negative terms only, so that even a probability of {@code 1e-14} in the
 * overflow state keeps its digits (a plain linear solve would lose it against 1). A decision lowers
 * the count by at most {@code B_max}, so a row has nothing below {@code s - B_max - 1}, which the
 * elimination keeps: it costs {@code O(s_max^2 B_max)}, not {@code O(s_max^3)}.
 */
public final class StationaryAnalysis {
    private StationaryAnalysis() {}

    /** The stationary distribution over states {@code 0..s_max, S_o} of the embedded chain under {@code table}. */
    public static double[] distribution(TruncatedSmdp smdp, BatchingTable table) {
        if (table.sMax() != smdp.sMax()) throw new IllegalArgumentException("table has s_max " + table.sMax() + ", the model " + smdp.sMax());
        int n = smdp.states();
        double[] pi = new double[n];
        double[][] p = new double[n][];
        for (int s = 0; s < n; s++) p[s] = smdp.transitionRow(s, table.action(s));
        int band = smdp.model().maxBatch() + 1;
        // Eliminate from the top down to `bottom`: a state from which the (reduced) chain never goes
        // lower closes the states at and above it, so everything below is transient (never
        // returned to) and the recurrent states lie above. Waiting in S_o is the plainest case.
        int bottom = 0;
        for (int k = n - 1; k >= 1; k--) {
            int lo = Math.max(0, k - band);
            double[] rowK = p[k];
            double out = 0;
            for (int j = lo; j < k; j++) out += rowK[j];
            if (!(out > 0)) {
                bottom = k;
                break;
            }
            for (int i = 0; i < k; i++) {
                double[] rowI = p[i];
                double toK = rowI[k] / out;
                rowI[k] = toK;
                if (toK == 0) continue;
                for (int j = lo; j < k; j++) rowI[j] += toK * rowK[j];
            }
        }
        pi[bottom] = 1;
        double total = 1;
        for (int k = bottom + 1; k < n; k++) {
            double x = 0;
            for (int i = bottom; i < k; i++) x += pi[i] * p[i][k];
            pi[k] = x;
            total += x;
        }
        for (int k = bottom; k < n; k++) pi[k] /= total;
        return pi;
    }

    public static PolicyEvaluation evaluate(TruncatedSmdp smdp, BatchingTable table) {
        double[] pi = distribution(smdp, table);
        BatchServiceModel model = smdp.model();
        int o = smdp.overflowState();
        double time = 0, cost = 0, hold = 0, energy = 0, served = 0, batches = 0;
        for (int s = 0; s < pi.length; s++) {
            if (pi[s] == 0) continue;
            int a = table.action(s);
            time += pi[s] * smdp.sojourn(s, a);
            cost += pi[s] * smdp.cost(s, a);
            hold += pi[s] * smdp.holding(s, a);
            if (a > 0) {
                energy += pi[s] * model.energyMj(a);
                served += pi[s] * a;
                batches += pi[s];
            }
        }
        double overflowCost = pi[o] * smdp.cost(o, table.action(o)) / time;
        int beyond = table.batchSize(smdp.sMax() + 1L);
        boolean stable = beyond > 0 && model.throughput(beyond) > model.arrivalRate();
        double meanInSystem = hold / time;
        return new PolicyEvaluation(cost / time, overflowCost, pi[o], meanInSystem / model.arrivalRate(),
                energy / time, served / time, batches > 0 ? served / batches : 0, stable);
    }
}
