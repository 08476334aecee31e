package io.kairos.testbed.experiment;

import io.kairos.control.smdp.BatchServiceModel;
import io.kairos.control.smdp.CostWeights;
import io.kairos.control.smdp.SmdpSolution;
import io.kairos.control.smdp.SmdpSolver;
import io.kairos.core.model.EnergyProfile;
import io.kairos.core.plan.ServingPlan;
import io.kairos.core.request.Request;
import io.kairos.core.result.ResultStatus;
import io.kairos.core.scheduling.policy.SmdpPolicy;
import io.kairos.sim.FateListener;
import io.kairos.sim.Simulation;
import io.kairos.tools.format.Numbers;
import io.kairos.workload.Workload;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * {@code experiment smdp-guard}: what the {@code smdp} policy's deadline guard costs the SMDP
 * objective, and what it buys in deadlines met. GoogLeNet on a Tesla P4 as in the paper
 * ({@code tau(b) = 0.3051 b + 1.052} ms, {@code zeta(b) = 19.90 b + 19.60} mJ, every batch size
 * 1..32), one device, Poisson arrivals at {@code rho = lambda / mu[32]}; for each load and weight
 * the solver's optimal table, then the simulator running the {@code smdp} policy with that table,
 * the guard on and off, every request served (no shedding) with deadline {@code arrival + SLO}.
 *
 * <p>Per run: the measured cost {@code w1 * mean latency (ms) + w2 * mean power (W)} (latency from
 * arrival to batch end, power as the batches' energy over the measured time), against the
 * solver's own {@code g}; and SLO attainment. Without an SLO the guard never fires, and the
 * measured cost checks the simulator against {@code g}.
 */
public final class SmdpGuardExperiment {
    public static final String NAME = "smdp-guard";
    public static final String DESCRIPTION = "what the smdp policy's deadline guard costs the SMDP objective (GoogLeNet/P4, Poisson, simulated against the solver's g)";

    static final double[] RHO = {0.1, 0.5, 0.9};
    static final double[] W2 = {1, 10};
    /** SLOs in ms; 0: none (the paper's setting). */
    static final double[] SLO_MS = {0, 50, 20, 10};
    static final String CSV = "guard.csv";
    static final String SUMMARY = "guard.md";

    // The paper's queue as SmdpSimulation sets it up (GoogLeNet on a P4, every batch size 1..32), with deadlines.
    private static final String MODEL = SmdpSimulation.MODEL;
    private static final EnergyProfile ENERGY = SmdpSimulation.CATALOG.get(MODEL).energy();

    private final double durationSeconds;
    private final double warmupSeconds;
    private final int seeds;
    private final int threads;
    private final PrintWriter out;

    public SmdpGuardExperiment(double durationSeconds, double warmupSeconds, int seeds, int threads, PrintWriter out) {
        this.durationSeconds = durationSeconds;
        this.warmupSeconds = warmupSeconds;
        this.seeds = seeds;
        this.threads = threads;
        this.out = out;
    }

    /** One run's figures. */
    record Measured(double costW, double latencyMs, double powerW, double attainment, double meanBatch, long requests) {}

    /** Solves, simulates, writes {@value #CSV} and {@value #SUMMARY} into {@code dir}, prints the summary. */
    public void run(Path dir) throws IOException, InterruptedException {
        out.printf(Locale.ROOT, "%s: %s%n", NAME, DESCRIPTION);
        Files.createDirectories(dir);
        long started = System.nanoTime();
        SmdpSolver solver = new SmdpSolver();
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, NAME);
            t.setDaemon(true);
            return t;
        });
        List<String> columns = List.of("rho", "w1", "w2", "slo_ms", "guard", "seed", "cost", "latency_ms", "power_w", "attainment",
                "mean_batch", "requests", "g", "g_latency_ms", "g_power_w", "control_limit");
        List<Future<List<String>>> runs = new ArrayList<>();
        try {
            for (double rho : RHO) {
                for (double w2 : W2) {
                    BatchServiceModel model = SmdpExperiment.P4.atLoad(rho);
                    CostWeights w = CostWeights.of(1, w2);
                    double co = SmdpSolver.overflowCostBound(model, w, 64);
                    SmdpSolution solution = solver.solveAccepted(model, w, co, 0.001, SmdpSimulation.MAX_BATCH, 8, 2_000).solution();
                    for (double slo : SLO_MS) {
                        for (boolean guard : slo == 0 ? new boolean[]{false} : new boolean[]{true, false}) {
                            for (int seed = 1; seed <= seeds; seed++) {
                                int s = seed;
                                runs.add(pool.submit(() -> {
                                    Measured m = simulate(model, w, solution, slo, guard, s);
                                    return List.of(Numbers.significant(rho), "1", Numbers.significant(w2), Numbers.significant(slo), Boolean.toString(guard), Integer.toString(s),
                                            Numbers.significant(m.costW()), Numbers.significant(m.latencyMs()), Numbers.significant(m.powerW()), Numbers.significant(m.attainment()), Numbers.significant(m.meanBatch()),
                                            Long.toString(m.requests()), Numbers.significant(solution.gain()), Numbers.significant(solution.evaluation().meanLatencyMs()),
                                            Numbers.significant(solution.evaluation().meanPowerW()), Integer.toString(solution.table().controlLimit()));
                                }));
                            }
                        }
                    }
                }
            }
            ResultTable table = new ResultTable(columns);
            for (Future<List<String>> f : runs) {
                try {
                    table.add(f.get());
                } catch (ExecutionException e) {
                    throw new IllegalStateException("a run failed: " + e.getCause(), e.getCause());
                }
            }
            table.write(dir.resolve(CSV));
        } finally {
            pool.shutdownNow();
        }
        String summary = summary(ResultTable.read(dir.resolve(CSV)));
        Files.writeString(dir.resolve(SUMMARY), summary);
        out.print(summary);
        out.printf(Locale.ROOT, "%d runs in %.1f s of wall time; %s, %s%n", runs.size(), (System.nanoTime() - started) / 1e9,
                dir.resolve(CSV), dir.resolve(SUMMARY));
    }

    /** One run: the table on one simulated P4, the guard on or off, every request served. */
    Measured simulate(BatchServiceModel model, CostWeights w, SmdpSolution solution, double sloMs, boolean guard, long seed) {
        double ratePerSecond = model.arrivalRate() * 1000;
        double slo = sloMs == 0 ? 1e9 : sloMs; // no SLO: a deadline no run reaches
        ServingPlan plan = SmdpSimulation.plan(SmdpPolicy.NAME,
                Map.of("shed", "false", SmdpPolicy.DEADLINE_GUARD, Boolean.toString(guard)), Map.of(MODEL, solution.table()));
        long duration = Math.round(durationSeconds * 1e6);
        long warmup = Math.round(warmupSeconds * 1e6);
        Simulation sim = Simulation.builder(SmdpSimulation.CATALOG).plan(plan)
                .workload(Workload.parse(MODEL + ":" + ratePerSecond + ":" + slo))
                .duration(duration).warmup(warmup).learnLatency(null).seed(seed).build();
        double[] sums = new double[4]; // latency (us), energy (mJ), batch size, within the SLO
        long[] n = new long[1];
        long sloMicros = Math.round(slo * 1000);
        FateListener listener = (Request r, ResultStatus status, long end, int batchSize) -> {
            if (r.arrivalMicros() < warmup || r.arrivalMicros() >= duration || batchSize == 0) return;
            long latency = end - r.arrivalMicros();
            sums[0] += latency;
            sums[1] += ENERGY.millijoules(batchSize) / batchSize;
            sums[2] += batchSize;
            if (latency <= sloMicros) sums[3]++;
            n[0]++;
        };
        sim.run(listener);
        long count = n[0];
        double latencyMs = sums[0] / count / 1000;
        double perMs = count / ((duration - warmup) / 1000.0);
        double powerW = sums[1] / count * perMs;
        return new Measured(w.latency() * latencyMs + w.power() * powerW, latencyMs, powerW, sums[3] / count, sums[2] / count, count);
    }

    /** Means over seeds, one line per load, weight and SLO: the guard on beside off, and the gap to g. */
    static String summary(ResultTable t) {
        StringBuilder s = new StringBuilder();
        s.append("| rho | w2 | SLO ms | g (solver) | cost, no guard | cost, guard | guard's cost | latency ms no guard / guard | power W no guard / guard | SLO met, no guard / guard |\n");
        s.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
        Map<String, double[]> means = new LinkedHashMap<>();
        for (List<String> row : t.rows()) {
            String key = row.get(t.index("rho")) + "|" + row.get(t.index("w2")) + "|" + row.get(t.index("slo_ms")) + "|" + row.get(t.index("guard"));
            double[] m = means.computeIfAbsent(key, k -> new double[6]);
            m[0] += Double.parseDouble(row.get(t.index("cost")));
            m[1] += Double.parseDouble(row.get(t.index("latency_ms")));
            m[2] += Double.parseDouble(row.get(t.index("power_w")));
            m[3] += Double.parseDouble(row.get(t.index("attainment")));
            m[4] = Double.parseDouble(row.get(t.index("g")));
            m[5]++;
        }
        for (Map.Entry<String, double[]> e : means.entrySet()) {
            String[] k = e.getKey().split("\\|");
            if (k[3].equals("true")) continue;
            double[] off = e.getValue();
            double[] on = means.get(k[0] + "|" + k[1] + "|" + k[2] + "|true");
            double n = off[5];
            boolean noSlo = k[2].equals("0");
            String guardCost = on == null ? "-" : pct(on[0] / on[5] / (off[0] / n) - 1);
            s.append(String.format(Locale.ROOT, "| %s | %s | %s | %.3f | %.3f (%s vs g) | %s | %s | %.2f / %s | %.2f / %s | %s / %s |%n",
                    k[0], k[1], noSlo ? "none" : k[2], off[4], off[0] / n, pct(off[0] / n / off[4] - 1),
                    on == null ? "-" : String.format(Locale.ROOT, "%.3f", on[0] / on[5]), guardCost,
                    off[1] / n, on == null ? "-" : String.format(Locale.ROOT, "%.2f", on[1] / on[5]),
                    off[2] / n, on == null ? "-" : String.format(Locale.ROOT, "%.2f", on[2] / on[5]),
                    noSlo ? "-" : share(off[3] / n), on == null ? "-" : share(on[3] / on[5])));
        }
        return s.toString();
    }

    /** A change, signed: {@code +1.2 %}. */
    private static String pct(double change) {
        return String.format(Locale.ROOT, "%+.1f %%", Math.abs(change) < 0.0005 ? 0.0 : change * 100);
    }

    private static String share(double share) {
        return String.format(Locale.ROOT, "%.1f %%", share * 100);
    }
}
