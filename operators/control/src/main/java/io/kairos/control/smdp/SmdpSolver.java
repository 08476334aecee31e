package io.kairos.control.smdp;

import io.kairos.core.scheduling.BatchingTable;

import java.util.Arrays;

/**
 * Solves the truncated batching SMDP by the paper's procedure: the discretisation into a
 * discrete-time MDP ((17)–(19)), relative value iteration ((21)) from {@code J_0 = 0} with
 * reference state 0, stopped when the span of {@code J_{n+1} - J_n} falls below {@code epsilon}
 * ((22)) or after {@code iter_max} iterations; and, in {@link #solveAccepted}, the acceptance test
 * {@code Delta^pi < delta} that raises {@code s_max} until it passes.
 *
 * <p>Where the time goes, and what it exploits. One iteration needs, for every state {@code s} and
 * batch {@code a}, the expected next value {@code F_a(s - a) = sum_k p_k[a] J(s - a + k)}, which as
 * the paper writes it costs {@code B_max s_max^2} multiplications per iteration. Here:
 * <ul>
 *   <li>the next state depends on {@code s} and {@code a} only through {@code d = s - a}, and
 *       every state past {@code s_max} is {@code S_o}: so {@code F_a} is a correlation of the value
 *       vector (continued with {@code J(S_o)} past {@code s_max}) with {@code p[a]};</li>
 *   <li>Poisson arrivals add up: arrivals during {@code tau(a+1)} are those during {@code tau(a)}
 *       plus those during {@code tau(a+1) - tau(a)}, so {@code F_{a+1} = q_a * F_a} with
 *       {@code q_a} the Poisson pmf of mean {@code lambda (tau(a+1) - tau(a))} ({@code lambda alpha}
 *       for a linear latency), a short kernel (13 terms at the paper's {@code rho = 0.9});</li>
 *   <li>the pmfs are precomputed once per solve and cut where the remaining tail is below
 *       {@link Settings#tailTolerance} (its mass goes onto the last term kept);</li>
 *   <li>the correlations run four outputs at a time on fused multiply-adds (see {@code correlate}).</li>
 * </ul>
 * So an iteration costs about {@code B_max s_max |q|} multiply-adds instead of
 * {@code B_max s_max^2}. The iterates are the paper's to within the cut tails.
 */
public final class SmdpSolver {
    private final Settings settings;

    /**
     * @param epsilon       the span stopping rule's tolerance (the paper: 0.01)
     * @param iterMax       the most iterations (the paper: 10,000)
     * @param etaShare      {@code eta} as a share of its bound (19), in (0, 1): a larger {@code eta}
     *                      converges faster; the bound itself is excluded
     * @param tailTolerance Poisson tail mass below which terms are cut
     */
    public record Settings(double epsilon, int iterMax, double etaShare, double tailTolerance) {
        /** The paper's stopping parameters. */
        public static final Settings PAPER = new Settings(0.01, 10_000, 0.99, 1e-12);

        public Settings {
            if (!(epsilon > 0)) throw new IllegalArgumentException("epsilon must be positive, got " + epsilon);
            if (iterMax < 1) throw new IllegalArgumentException("iter_max must be at least 1, got " + iterMax);
            if (!(etaShare > 0 && etaShare < 1)) throw new IllegalArgumentException("eta share must be in (0, 1), got " + etaShare);
            if (!(tailTolerance > 0 && tailTolerance < 1e-6)) throw new IllegalArgumentException("tail tolerance must be in (0, 1e-6), got " + tailTolerance);
        }

        public Settings withEpsilon(double e) {
            return new Settings(e, iterMax, etaShare, tailTolerance);
        }

        public Settings withIterMax(int n) {
            return new Settings(epsilon, n, etaShare, tailTolerance);
        }
    }

    public SmdpSolver(Settings settings) {
        this.settings = settings;
    }

    public SmdpSolver() {
        this(Settings.PAPER);
    }

    public Settings settings() {
        return settings;
    }

    /**
     * The bound (19) on {@code eta}: {@code min(1/lambda, min_a tau(a)/(1 - p_a[a]), tau(a)/sum_{i<=a} p_i[a])},
     * the largest step for which every self-transition of the discretised chain keeps a
     * non-negative probability.
     */
    public static double etaBound(BatchServiceModel model) {
        double lambda = model.arrivalRate();
        double bound = 1 / lambda;
        for (int a = 1; a <= model.maxBatch(); a++) {
            double tau = model.latencyMs(a);
            double[] p = PoissonCounts.pmf(lambda * tau, a);
            double upToA = 0;
            for (double x : p) upToA += x;
            bound = Math.min(bound, tau / (1 - p[a]));
            bound = Math.min(bound, tau / upToA);
        }
        return bound;
    }

    /**
     * An abstract cost {@code c_o} large enough that overflowing can never look cheaper than
     * serving: the average cost of the work-conserving table (evaluated with {@code c_o = 0}), an
     * upper bound on the optimal gain. With a {@code c_o} below the optimal gain minus
     * {@code w1 s_max / lambda}, waiting for ever in {@code S_o} wins the truncated model (the
     * paper's Fig 8 at {@code c_o = 0, 10}; at {@code w2 = 500} and low load, {@code c_o = 100}
     * would need {@code s_max} near 900). At the paper's rho 0.9, w = (1, 1) it gives about 70,
     * near the paper's best choice, 100.
     */
    public static double overflowCostBound(BatchServiceModel model, CostWeights weights, int sMax) {
        TruncatedSmdp free = new TruncatedSmdp(model, weights, sMax, 0);
        return StationaryAnalysis.evaluate(free, BatchingTable.workConserving(model.maxBatch(), sMax)).gain();
    }

    /** Solves one truncated SMDP. */
    public SmdpSolution solve(TruncatedSmdp smdp) {
        long started = System.nanoTime();
        long cpuStarted = cpuNanos();
        Iteration it = new Iteration(smdp, settings);
        it.run();
        BatchingTable table = new BatchingTable(it.policy);
        PolicyEvaluation evaluation = StationaryAnalysis.evaluate(smdp, table);
        long cpu = cpuStarted < 0 ? -1 : cpuNanos() - cpuStarted;
        return new SmdpSolution(smdp, table, evaluation, it.gainLower, it.gainUpper, it.iterations, it.converged, it.eta,
                System.nanoTime() - started, cpu);
    }

    private static long cpuNanos() {
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        return threads.isCurrentThreadCpuTimeSupported() ? threads.getCurrentThreadCpuTime() : -1;
    }

    /**
     * Solves with {@code s_max = from, from + step, ...} until the solution's truncation is
     * acceptable, {@code Delta^pi < delta}, or {@code s_max} would pass {@code limit}; returns the
     * first acceptable solution, else the last one (which {@link Accepted#accepted} says).
     */
    public Accepted solveAccepted(BatchServiceModel model, CostWeights weights, double overflowCost, double delta,
                                  int from, int step, int limit) {
        if (!(delta > 0)) throw new IllegalArgumentException("delta must be positive, got " + delta);
        if (step < 1) throw new IllegalArgumentException("s_max step must be at least 1, got " + step);
        if (from < model.maxBatch()) throw new IllegalArgumentException("s_max must start at B_max = " + model.maxBatch() + " or above, got " + from);
        if (limit < from) throw new IllegalArgumentException("s_max limit " + limit + " is below the start " + from);
        long started = System.nanoTime();
        SmdpSolution last = null;
        int tried = 0;
        for (int sMax = from; sMax <= limit; sMax += step) {
            last = solve(new TruncatedSmdp(model, weights, sMax, overflowCost));
            tried++;
            if (last.acceptable(delta)) return new Accepted(last, true, tried, System.nanoTime() - started);
        }
        return new Accepted(last, false, tried, System.nanoTime() - started);
    }

    /** {@link #solveAccepted} from {@code B_max} in steps of 1 up to {@code limit}. */
    public Accepted solveAccepted(BatchServiceModel model, CostWeights weights, double overflowCost, double delta, int limit) {
        return solveAccepted(model, weights, overflowCost, delta, model.maxBatch(), 1, limit);
    }

    /** The outcome of the acceptance test: the solution, whether it passed, how many {@code s_max} were solved, in how long. */
    public record Accepted(SmdpSolution solution, boolean accepted, int solves, long nanos) {}

    /** The state of one run of relative value iteration. */
    private static final class Iteration {
        final int sMax;
        final int bMax;
        final int o;
        final double lambda;
        final double eta;
        final double w1;
        final double overflowCost;
        final double epsilon;
        final int iterMax;
        /** {@code w2 zeta(a) / tau(a) + w1 tau(a) / 2}: the state-free part of {@code c~(s, a)}. */
        final double[] batchCost;
        /** {@code eta / tau(a)}. */
        final double[] step;
        /** Arrivals during {@code tau(1)}, and during {@code tau(a+1) - tau(a)} at index a. */
        final double[] first;
        final double[][] kernel;
        /** The highest {@code d} at which {@code F_a} is read. */
        final int[] reach;
        final int pad;
        double[] j;
        double[] next;
        final double[][] f;
        final int[] policy;
        int iterations;
        boolean converged;
        double gainLower = Double.NaN;
        double gainUpper = Double.NaN;

        Iteration(TruncatedSmdp smdp, Settings settings) {
            BatchServiceModel m = smdp.model();
            sMax = smdp.sMax();
            bMax = m.maxBatch();
            o = smdp.overflowState();
            lambda = m.arrivalRate();
            eta = settings.etaShare() * etaBound(m);
            w1 = smdp.weights().latency();
            double w2 = smdp.weights().power();
            overflowCost = smdp.overflowCost();
            epsilon = settings.epsilon();
            iterMax = settings.iterMax();
            batchCost = new double[bMax + 1];
            step = new double[bMax + 1];
            for (int a = 1; a <= bMax; a++) {
                double tau = m.latencyMs(a);
                batchCost[a] = (w2 > 0 ? w2 * m.energyMj(a) / tau : 0) + w1 * tau / 2;
                step[a] = eta / tau;
            }
            first = PoissonCounts.truncated(lambda * m.latencyMs(1), settings.tailTolerance());
            kernel = new double[bMax][];
            int longest = first.length;
            for (int a = 1; a < bMax; a++) {
                kernel[a] = PoissonCounts.truncated(lambda * (m.latencyMs(a + 1) - m.latencyMs(a)), settings.tailTolerance());
                longest = Math.max(longest, kernel[a].length);
            }
            reach = new int[bMax + 1];
            reach[bMax] = sMax - bMax;
            for (int a = bMax - 1; a >= 1; a--) {
                // Its own states read F_a up to s_max - a; F_{a+1} reads it one kernel further.
                reach[a] = Math.min(sMax, Math.max(sMax - a, reach[a + 1] + kernel[a].length - 1));
            }
            pad = longest;
            // Past s_max every index is S_o: the value vectors and F_a carry J(S_o) in a padding.
            j = new double[o + 1 + pad];
            next = new double[o + 1 + pad];
            f = new double[bMax + 1][sMax + 1 + pad];
            policy = new int[o + 1];
        }

        void run() {
            double[] j = this.j;
            double[] next = this.next;
            while (iterations < iterMax) {
                expectations(j);
                double reference = j[0];
                double lo = Double.POSITIVE_INFINITY;
                double hi = Double.NEGATIVE_INFINITY;
                for (int s = 0; s <= o; s++) {
                    double v = bellman(s, j);
                    next[s] = v - reference;
                    double diff = next[s] - j[s];
                    if (diff < lo) lo = diff;
                    if (diff > hi) hi = diff;
                }
                iterations++;
                double[] t = j;
                j = next;
                next = t;
                gainLower = lo + reference;
                gainUpper = hi + reference;
                if (hi - lo < epsilon) {
                    converged = true;
                    break;
                }
            }
            this.j = j;
            this.next = next;
        }

        /** {@code F_a(d)} for every batch {@code a} and every {@code d} the states read. */
        private void expectations(double[] j) {
            double jo = j[o];
            Arrays.fill(j, o + 1, j.length, jo);
            double[] f1 = f[1];
            correlate(first, j, f1, reach[1]);
            Arrays.fill(f1, sMax + 1, f1.length, jo);
            for (int a = 1; a < bMax; a++) {
                double[] in = f[a];
                double[] out = f[a + 1];
                correlate(kernel[a], in, out, reach[a + 1]);
                Arrays.fill(out, sMax + 1, out.length, jo);
            }
        }

        /**
         * {@code out[d] = sum_k w[k] in[d + k]} for d in 0..hi. Four outputs at a time, each its
         * own accumulator: four independent fused multiply-add chains keep the FMA units busy
         * where one chain would wait on each add's latency (twice the speed of an axpy per weight,
         * which the JIT vectorises but runs over short rows).
         */
        private static void correlate(double[] w, double[] in, double[] out, int hi) {
            int taps = w.length;
            int d = 0;
            for (; d + 3 <= hi; d += 4) {
                double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
                for (int k = 0; k < taps; k++) {
                    double wk = w[k];
                    int i = d + k;
                    s0 = Math.fma(wk, in[i], s0);
                    s1 = Math.fma(wk, in[i + 1], s1);
                    s2 = Math.fma(wk, in[i + 2], s2);
                    s3 = Math.fma(wk, in[i + 3], s3);
                }
                out[d] = s0;
                out[d + 1] = s1;
                out[d + 2] = s2;
                out[d + 3] = s3;
            }
            for (; d <= hi; d++) {
                double sum = 0;
                for (int k = 0; k < taps; k++) sum = Math.fma(w[k], in[d + k], sum);
                out[d] = sum;
            }
        }

        /** The right-hand side of (21) before the reference value is subtracted; records the minimiser. */
        private double bellman(int s, double[] j) {
            int n = Math.min(s, sMax);
            double js = j[s];
            double holding = w1 * n / lambda + (s == o ? overflowCost : 0);
            // Waiting: to s + 1 (S_o from s_max; S_o stays), after 1/lambda on average.
            double best = holding + js + (s == o ? 0 : eta * lambda * (j[s + 1] - js));
            int arg = 0;
            int top = Math.min(n, bMax);
            double base = holding + js;
            for (int a = 1; a <= top; a++) {
                double v = base + batchCost[a] + step[a] * (f[a][n - a] - js);
                if (v < best) {
                    best = v;
                    arg = a;
                }
            }
            policy[s] = arg;
            return best;
        }
    }
}
