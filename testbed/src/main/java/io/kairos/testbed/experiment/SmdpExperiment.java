package io.kairos.testbed.experiment;

import io.kairos.control.smdp.BatchServiceModel;
import io.kairos.core.scheduling.BatchingTable;
import io.kairos.control.smdp.CostWeights;
import io.kairos.control.smdp.PolicyEvaluation;
import io.kairos.control.smdp.SmdpSolution;
import io.kairos.control.smdp.SmdpSolver;
import io.kairos.control.smdp.StationaryAnalysis;
import io.kairos.control.smdp.TruncatedSmdp;
import io.kairos.tools.format.Numbers;
import me.tongfei.progressbar.ProgressBar;
import org.knowm.xchart.style.Styler;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.ToDoubleFunction;

/**
 * {@code experiment smdp}: the SMDP batching paper's numerical results, reproduced with the solver
 * and the stationary analysis, and Fig 5 measured again by the simulator: GoogLeNet on a Tesla P4,
 * {@code tau(b) = 0.3051 b + 1.052} ms, {@code zeta(b) = 19.90 b + 19.60} mJ, B_max 32.
 *
 * <ul>
 *   <li>Fig 4: the optimal tables for (w1, w2) = (1, 0), (1, 0.1), (1, 1), (1, 500) at rho 0.1..0.9
 *       ({@code fig4-policies.csv}, {@code .md}, {@code .png});</li>
 *   <li>Fig 5: the average cost against w2 in 0..20 for the SMDP table, work-conserving and static
 *       8/16/32 at several rho, from the stationary analysis and measured by the simulator running
 *       the scheduler's own policies ({@link SmdpSimulation}), with their relative gap
 *       ({@code fig5-cost.csv}, {@code fig5-cost.png}, {@code fig5-gap.png});</li>
 *   <li>Figs 6 and 7: the SMDP table's latency against power and against energy efficiency as w2
 *       sweeps 0..500, the baselines as points, analytic and simulated
 *       ({@code fig6-7-tradeoff.csv}, {@code fig6-latency-power.png}, {@code fig7-latency-efficiency.png});</li>
 *   <li>Fig 8 and Table I: g and Delta against s_max 32..250 for c_o in {10^4, 10^3, 100, 10, 0}
 *       at rho 0.9, w = (1, 1), epsilon 0.01, iter_max 10,000, and the least s_max with
 *       Delta < 0.001 ({@code fig8-truncation.csv}, {@code fig8-*.png}, {@code table1.csv}, {@code .md});</li>
 *   <li>{@code shape-check.txt}: the paper's claims against these numbers.</li>
 * </ul>
 * For Figs 4 and 5 the abstract cost is {@link SmdpSolver#overflowCostBound} and s_max rises in
 * steps of 8 until Delta < 0.001; baselines are evaluated at s_max 1,000 with c_o = 0, and an
 * unstable one (static 8 at rho >= 0.8) has no cost. Every table is simulated on seeds 1 to 3
 * per rho (the same arrivals for every policy on a seed) for {@value #SIM_REQUESTS} requests, ten
 * times as many for a queue that runs within 5 % of its capacity (static 16 at rho 0.9), whose
 * mean converges slowly; the CSV holds the seeds' medians and each point's gap on every seed.
 */
public final class SmdpExperiment {
    public static final String NAME = "smdp";
    public static final String DESCRIPTION = "the SMDP batching paper on GoogLeNet/P4: optimal tables (Fig 4), cost against the baselines, analytic and simulated (Fig 5), latency against power and efficiency (Figs 6, 7), truncation (Fig 8, Table I)";

    static final BatchServiceModel P4 = BatchServiceModel.linear(1, 0.3051, 1.052, 19.90, 19.60, 32);
    static final double DELTA = 0.001;
    static final double[] FIG4_RHO = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9};
    static final double[] FIG4_W2 = {0, 0.1, 1, 500};
    static final int FIG4_STATES = 64;
    static final double[] FIG5_RHO = {0.1, 0.5, 0.7, 0.9};
    static final int BASELINE_SMAX = 1_000;
    static final List<String> BASELINES = List.of("work-conserving", "static-8", "static-16", "static-32");
    /** Figs 6 and 7: the SMDP curve's weights, from latency alone to (nearly) energy alone. */
    static final double[] FIG6_W2 = {0, 0.05, 0.1, 0.2, 0.5, 1, 2, 3, 5, 7, 10, 15, 20, 30, 50, 100, 200, 500};
    static final long SIM_REQUESTS = 4_000_000;
    /** The seed of the simulations beyond the paper. */
    static final long SIM_SEED = 1;
    /** Fig 5's simulations: each table on each of these seeds. */
    static final List<Long> SIM_SEEDS = List.of(1L, 2L, 3L);
    /** The simulated and the analytic average cost agree within this share at every point of Fig 5. */
    static final double SIM_TOLERANCE = Targets.of("smdp", "fig5-sim");
    static final double[] FIG8_CO = {10_000, 1_000, 100, 10, 0};
    static final int FIG8_FROM = 32;
    static final int FIG8_TO = 250;

    /** Table I of the paper: c_o, min s_max, iterations, Delta, g. */
    static final double[][] PAPER_TABLE1 = {
            {10_000, 89, 1847, 9.36e-4, 66.1384},
            {1_000, 78, 1635, 9.78e-4, 66.1383},
            {100, 70, 1483, 8.36e-4, 66.1377},
            {10, 161, 10_000, 6.14e-12, 66.1374},
            {0, 192, 10_000, 1.30e-14, 66.1374}};

    static final String FIG4_CSV = "fig4-policies.csv";
    static final String FIG5_CSV = "fig5-cost.csv";
    static final String FIG6_CSV = "fig6-7-tradeoff.csv";
    static final String FIG8_CSV = "fig8-truncation.csv";
    static final String TABLE1_CSV = "table1.csv";

    private final int threads;
    private final boolean progress;
    private final PrintWriter out;

    public SmdpExperiment(int threads, boolean progress, PrintWriter out) {
        this.threads = threads;
        this.progress = progress;
        this.out = out;
    }

    /** Solves everything, simulates Fig 5's tables, writes the CSVs into {@code dir}, then reports from them. */
    public List<Experiment.Claim> run(Path dir) throws IOException, InterruptedException {
        out.printf(Locale.ROOT, "%s: %s%n", NAME, DESCRIPTION);
        Files.createDirectories(dir);
        long started = System.nanoTime();
        SmdpSolver solver = new SmdpSolver();

        List<Callable<Object>> solves = new ArrayList<>();
        for (double w2 : FIG4_W2) {
            for (double rho : FIG4_RHO) solves.add(() -> fig4Rows(solver, rho, w2));
        }
        int fig5From = solves.size();
        for (double rho : FIG5_RHO) {
            for (int w2 = 0; w2 <= 20; w2++) {
                double w = w2;
                solves.add(() -> fig5Point(solver, rho, w));
            }
        }
        int fig6From = solves.size();
        for (double rho : FIG5_RHO) {
            for (double w2 : FIG6_W2) solves.add(() -> new Point(rho, w2, accepted(solver, P4.atLoad(rho), CostWeights.of(1, w2)), Map.of()));
        }
        int fig8From = solves.size();
        for (double co : FIG8_CO) {
            for (int sMax = FIG8_FROM; sMax <= FIG8_TO; sMax++) {
                int s = sMax;
                solves.add(() -> List.of(fig8Row(solver, co, s)));
            }
        }
        List<Object> solved = execute(NAME + " solve", solves);
        double solveSeconds = (System.nanoTime() - started) / 1e9;
        List<List<String>> fig4Rows = rows(solved.subList(0, fig5From));
        List<Point> fig5 = points(solved.subList(fig5From, fig6From));
        List<Point> fig6 = points(solved.subList(fig6From, fig8From));

        // Each distinct table once per rho, the baselines that keep up with the arrivals, all on the same arrivals.
        Set<SimKey> keys = new LinkedHashSet<>();
        for (Point p : fig5) {
            if (p.w2 != 0) continue;
            for (String b : BASELINES) {
                if (p.baselines.get(b).stable()) keys.add(new SimKey(p.rho, b, null));
            }
        }
        for (List<Point> points : List.of(fig5, fig6)) {
            for (Point p : points) keys.add(new SimKey(p.rho, SMDP, p.solution.table()));
        }
        List<Callable<Object>> sims = new ArrayList<>();
        for (SimKey k : keys) {
            for (long seed : SIM_SEEDS) sims.add(simulation(k.rho, k.policy, k.table, seed));
        }
        long simStarted = System.nanoTime();
        List<Object> measured = execute(NAME + " simulate", sims);
        double simSeconds = (System.nanoTime() - simStarted) / 1e9;
        Map<SimKey, List<SmdpSimulation.Measured>> sim = new LinkedHashMap<>();
        int i = 0;
        for (SimKey k : keys) {
            List<SmdpSimulation.Measured> seeds = new ArrayList<>();
            for (int n = 0; n < SIM_SEEDS.size(); n++) seeds.add((SmdpSimulation.Measured) measured.get(i++));
            sim.put(k, seeds);
        }

        long beyondStarted = System.nanoTime();
        List<Callable<Object>> beyond = new ArrayList<>(SmdpBeyondPaper.multimodel(solver));
        int paretoFrom = beyond.size();
        beyond.addAll(SmdpBeyondPaper.pareto(solver));
        List<Object> beyondRows = execute(NAME + " beyond", beyond);
        double beyondSeconds = (System.nanoTime() - beyondStarted) / 1e9;
        write(dir.resolve(SmdpBeyondPaper.MULTIMODEL_CSV), SmdpBeyondPaper.MULTIMODEL_COLUMNS, rows(beyondRows.subList(0, paretoFrom)));
        List<List<String>> paretoRows = new ArrayList<>();
        for (Object r : beyondRows.subList(paretoFrom, beyondRows.size())) {
            @SuppressWarnings("unchecked")
            List<String> row = (List<String>) r;
            paretoRows.add(row);
        }
        write(dir.resolve(SmdpBeyondPaper.PARETO_CSV), SmdpBeyondPaper.PARETO_COLUMNS, SmdpBeyondPaper.markFronts(paretoRows));

        write(dir.resolve(FIG4_CSV), List.of("w1", "w2", "rho", "s_max", "c_o", "state", "action"), fig4Rows);
        write(dir.resolve(FIG5_CSV), FIG5_COLUMNS, fig5Rows(fig5, sim));
        write(dir.resolve(FIG6_CSV), FIG6_COLUMNS, fig6Rows(fig6, fig5, sim));
        ResultTable fig8Table = write(dir.resolve(FIG8_CSV),
                List.of("c_o", "s_max", "g", "delta", "iterations", "converged", "solve_ms", "cpu_ms"), rows(solved.subList(fig8From, solved.size())));
        write(dir.resolve(TABLE1_CSV), List.of("c_o", "min_s_max", "iterations", "space", "paper_multiplications",
                "multiply_adds", "delta", "g", "solve_ms", "cpu_ms",
                "paper_min_s_max", "paper_iterations", "paper_delta", "paper_g"), table1(fig8Table));
        long simulated = sim.values().stream().flatMap(List::stream).mapToLong(SmdpSimulation.Measured::requests).sum();
        out.printf(Locale.ROOT, "%d solves in %.1f s, %d simulations (%.0f M requests) in %.1f s, %d beyond the paper in %.1f s of wall time, %d thread%s%n",
                solves.size(), solveSeconds, sims.size(), simulated / 1e6, simSeconds, beyond.size(), beyondSeconds, threads, threads == 1 ? "" : "s");
        return report(dir);
    }

    static final String SMDP = "smdp";
    static final List<String> FIG5_COLUMNS = List.of("rho", "w2", "policy", "cost", "latency_ms", "power_w", "requests_per_j", "delta", "s_max",
            "sim_cost", "sim_latency_ms", "sim_power_w", "sim_requests_per_j", "sim_requests", "gap", "sim_seeds", "gap_low", "gap_high");
    static final List<String> FIG6_COLUMNS = List.of("rho", "policy", "w2", "latency_ms", "power_w", "requests_per_j",
            "sim_latency_ms", "sim_power_w", "sim_requests_per_j");

    /** A solved point: the SMDP table for (rho, w2) and, for Fig 5, the baselines evaluated at the same weights. */
    private record Point(double rho, double w2, SmdpSolution solution, Map<String, PolicyEvaluation> baselines) {}

    /** One simulation: a rho and a baseline by name, or the SMDP policy with a table. */
    private record SimKey(double rho, String policy, BatchingTable table) {}

    private static Point fig5Point(SmdpSolver solver, double rho, double w2) {
        BatchServiceModel model = P4.atLoad(rho);
        CostWeights w = CostWeights.of(1, w2);
        TruncatedSmdp wide = new TruncatedSmdp(model, w, BASELINE_SMAX, 0);
        Map<String, PolicyEvaluation> baselines = new LinkedHashMap<>();
        for (String b : BASELINES) baselines.put(b, StationaryAnalysis.evaluate(wide, baselineTable(b)));
        return new Point(rho, w2, accepted(solver, model, w), baselines);
    }

    static BatchingTable baselineTable(String name) {
        return name.equals("work-conserving") ? BatchingTable.workConserving(32, BASELINE_SMAX)
                : BatchingTable.staticBatch(Integer.parseInt(name.substring("static-".length())), BASELINE_SMAX);
    }

    /**
     * A simulation of {@code policy} at {@code rho}: {@value #SIM_REQUESTS} requests, ten times as
     * many when the batch it serves under load leaves less than 5 % of headroom (its mean
     * converges slowly near saturation).
     */
    private static Callable<Object> simulation(double rho, String policy, BatchingTable table, long seed) {
        BatchServiceModel model = P4.atLoad(rho);
        int underLoad = table != null ? table.batchSize(Long.MAX_VALUE) : baselineTable(policy).batchSize(Long.MAX_VALUE);
        long requests = model.arrivalRate() / model.throughput(underLoad) > 0.95 ? 10 * SIM_REQUESTS : SIM_REQUESTS;
        return () -> SmdpSimulation.run(P4, rho, policy, table, requests, seed);
    }

    private static List<List<String>> fig5Rows(List<Point> points, Map<SimKey, List<SmdpSimulation.Measured>> sim) {
        List<List<String>> rows = new ArrayList<>();
        for (Point p : points) {
            rows.add(fig5Row(p, SMDP, p.solution.evaluation(), p.solution.sMax(), sim.get(new SimKey(p.rho, SMDP, p.solution.table()))));
            for (String b : BASELINES) rows.add(fig5Row(p, b, p.baselines.get(b), BASELINE_SMAX, sim.get(new SimKey(p.rho, b, null))));
        }
        return rows;
    }

    /**
     * A point of Fig 5: the analysis, and the simulations' medians over the seeds with the gap of
     * the median cost and the lowest and highest gap of any one seed (a seed's run must agree on
     * its own, not only the median).
     */
    private static List<String> fig5Row(Point p, String policy, PolicyEvaluation e, int sMax, List<SmdpSimulation.Measured> ms) {
        boolean ok = accepted(e);
        List<String> row = new ArrayList<>(List.of(Numbers.significant(p.rho), Numbers.significant(p.w2), policy, ok ? Numbers.significant(e.gain()) : "", ok ? Numbers.significant(e.meanLatencyMs()) : "",
                ok ? Numbers.significant(e.meanPowerW()) : "", ok ? Numbers.significant(e.requestsPerJoule()) : "", Numbers.significant(e.overflowCost()), Integer.toString(sMax)));
        if (ms == null) {
            row.addAll(List.of("", "", "", "", "", "", "", "", ""));
        } else {
            List<Double> costs = ms.stream().map(m -> m.cost(1, p.w2)).toList();
            double cost = ResultTable.median(costs);
            double low = Collections.min(costs);
            double high = Collections.max(costs);
            row.addAll(List.of(Numbers.significant(cost), Numbers.significant(median(ms, SmdpSimulation.Measured::latencyMs)), Numbers.significant(median(ms, SmdpSimulation.Measured::powerW)),
                    Numbers.significant(median(ms, SmdpSimulation.Measured::requestsPerJoule)), Long.toString(ms.get(0).requests()),
                    ok ? Numbers.significant(cost / e.gain() - 1) : "", Integer.toString(ms.size()),
                    ok ? Numbers.significant(low / e.gain() - 1) : "", ok ? Numbers.significant(high / e.gain() - 1) : ""));
        }
        return row;
    }

    /** The seeds' median of one measure. */
    private static double median(List<SmdpSimulation.Measured> ms, ToDoubleFunction<SmdpSimulation.Measured> metric) {
        return ResultTable.median(ms.stream().mapToDouble(metric).boxed().toList());
    }

    /** Whether the analysis of a table describes the queue: it keeps up, and the overflow state hardly counts. */
    private static boolean accepted(PolicyEvaluation e) {
        return e.stable() && e.overflowCost() < DELTA;
    }

    private static List<List<String>> fig6Rows(List<Point> curve, List<Point> fig5, Map<SimKey, List<SmdpSimulation.Measured>> sim) {
        List<List<String>> rows = new ArrayList<>();
        for (Point p : curve) {
            rows.add(fig6Row(p.rho, SMDP, Numbers.significant(p.w2), p.solution.evaluation(), sim.get(new SimKey(p.rho, SMDP, p.solution.table()))));
        }
        for (Point p : fig5) {
            if (p.w2 != 0) continue;
            for (String b : BASELINES) rows.add(fig6Row(p.rho, b, "", p.baselines.get(b), sim.get(new SimKey(p.rho, b, null))));
        }
        return rows;
    }

    /** A point of Figs 6 and 7: the analysis, and the simulations' medians over the seeds. */
    private static List<String> fig6Row(double rho, String policy, String w2, PolicyEvaluation e, List<SmdpSimulation.Measured> ms) {
        boolean ok = accepted(e);
        return List.of(Numbers.significant(rho), policy, w2, ok ? Numbers.significant(e.meanLatencyMs()) : "", ok ? Numbers.significant(e.meanPowerW()) : "", ok ? Numbers.significant(e.requestsPerJoule()) : "",
                ms == null ? "" : Numbers.significant(median(ms, SmdpSimulation.Measured::latencyMs)), ms == null ? "" : Numbers.significant(median(ms, SmdpSimulation.Measured::powerW)),
                ms == null ? "" : Numbers.significant(median(ms, SmdpSimulation.Measured::requestsPerJoule)));
    }

    @SuppressWarnings("unchecked")
    private static List<List<String>> rows(List<Object> results) {
        List<List<String>> rows = new ArrayList<>();
        for (Object r : results) rows.addAll((List<List<String>>) r);
        return rows;
    }

    private static List<Point> points(List<Object> results) {
        List<Point> points = new ArrayList<>();
        for (Object r : results) points.add((Point) r);
        return points;
    }

    /** Prints Table I and the shape check and draws the figures from the CSVs in {@code dir}. */
    public List<Experiment.Claim> report(Path dir) throws IOException {
        ResultTable fig4 = ResultTable.read(dir.resolve(FIG4_CSV));
        ResultTable fig5 = ResultTable.read(dir.resolve(FIG5_CSV));
        ResultTable fig6 = ResultTable.read(dir.resolve(FIG6_CSV));
        ResultTable multimodel = ResultTable.read(dir.resolve(SmdpBeyondPaper.MULTIMODEL_CSV));
        ResultTable pareto = ResultTable.read(dir.resolve(SmdpBeyondPaper.PARETO_CSV));
        String mm = multimodelMarkdown(multimodel);
        Files.writeString(dir.resolve("multimodel.md"), mm);
        out.printf("%nTwo models on one device, each with its own table (cost = latency + w2 power)%n%s", mm);
        ResultTable fig8 = ResultTable.read(dir.resolve(FIG8_CSV));
        ResultTable table1 = ResultTable.read(dir.resolve(TABLE1_CSV));
        String policies = policyTables(fig4);
        Files.writeString(dir.resolve("fig4-policies.md"), policies);
        String t1 = table1Markdown(table1);
        Files.writeString(dir.resolve("table1.md"), t1);
        out.printf("%nTable I (delta = %s): this run against the paper%n%s", DELTA, t1);

        List<Experiment.Claim> claims = SmdpShapeCheck.check(fig4, fig5, fig6, table1);
        StringBuilder s = new StringBuilder();
        for (Experiment.Claim c : claims) s.append(c).append('\n');
        out.printf("%nshape check%n%s", s);
        Files.writeString(dir.resolve(ExperimentRunner.SHAPE_CHECK), s);

        List<Path> figures = new ArrayList<>();
        figures.add(Figures.lines("state", "action").numericX().series("rho").panels("w2", null)
                .panelTitle(p -> "(w1, w2) = (1, " + p.get("w2") + ")").xAxis("requests in the system s").yAxis("batch served (0: wait)", 0.0, 33.0)
                .size(720, 300).save(fig4, dir.resolve("fig4-policies.png")));
        figures.add(SmdpFigures.of(fig5, "w2", "cost").simulated("w2", "sim_cost")
                .titled("Fig 5: average cost", "w2 (w1 = 1)", "w1 latency (ms) + w2 power (W)").legend(Styler.LegendPosition.InsideNW)
                .save(dir.resolve("fig5-cost.png")));
        figures.add(SmdpFigures.of(fig5, "w2", "gap").titled("Fig 5: simulated against analytic", "w2 (w1 = 1)", "simulated / analytic cost - 1 (%)")
                .y(100, -2.0, 2.0).legend(Styler.LegendPosition.InsideSE).save(dir.resolve("fig5-gap.png")));
        figures.add(SmdpFigures.of(fig6, "latency_ms", "power_w").simulated("sim_latency_ms", "sim_power_w")
                .titled("Fig 6: latency vs power", "mean latency (ms)", "mean power (W)").legend(Styler.LegendPosition.InsideNE)
                .save(dir.resolve("fig6-latency-power.png")));
        figures.add(SmdpFigures.of(fig6, "latency_ms", "requests_per_j").simulated("sim_latency_ms", "sim_requests_per_j")
                .titled("Fig 7: latency vs efficiency", "mean latency (ms)", "energy efficiency (requests/J)").legend(Styler.LegendPosition.InsideSE)
                .save(dir.resolve("fig7-latency-efficiency.png")));
        figures.add(SmdpFigures.of(pareto, "energy_per_request_mj", "slo_attainment").panels("arrivals", "slo_ms")
                .titled("energy vs attainment", "energy per request (mJ)", "SLO attainment (%)").y(100, null, 100.0)
                .legend(Styler.LegendPosition.InsideSE).save(dir.resolve("pareto-attainment.png")));
        figures.add(SmdpFigures.of(pareto, "energy_per_request_mj", "mean_latency_ms").panels("arrivals", "slo_ms")
                .titled("energy vs latency", "energy per request (mJ)", "mean latency of served requests (ms)")
                .legend(Styler.LegendPosition.InsideNE).save(dir.resolve("pareto-latency.png")));
        figures.add(Figures.lines("s_max", "g").numericX().series("c_o").xAxis("s_max").yAxis("g (average cost per ms)", 65.0, 75.0)
                .size(720, 420).save(fig8, dir.resolve("fig8-gain.png")));
        figures.add(Figures.lines("s_max", "delta").numericX().logY().zeroIsGap().series("c_o").xAxis("s_max").yAxis("Delta (cost of S_o per ms)", null, null)
                .size(720, 420).save(fig8, dir.resolve("fig8-delta.png")));
        List<String> written = new ArrayList<>(List.of(FIG4_CSV, "fig4-policies.md", FIG5_CSV, FIG6_CSV, SmdpBeyondPaper.MULTIMODEL_CSV, "multimodel.md", SmdpBeyondPaper.PARETO_CSV, FIG8_CSV, TABLE1_CSV, "table1.md", ExperimentRunner.SHAPE_CHECK));
        for (Path f : figures) written.add(f.getFileName().toString());
        out.printf("%nwrote %s to %s%n", String.join(", ", written), dir);
        out.flush();
        return claims;
    }

    private static List<List<String>> fig4Rows(SmdpSolver solver, double rho, double w2) {
        SmdpSolution sol = accepted(solver, P4.atLoad(rho), CostWeights.of(1, w2));
        List<List<String>> rows = new ArrayList<>();
        for (int s = 0; s <= FIG4_STATES; s++) {
            rows.add(List.of("1", Numbers.significant(w2), Numbers.significant(rho), Integer.toString(sol.sMax()), Numbers.significant(sol.smdp().overflowCost()),
                    Integer.toString(s), Integer.toString(sol.table().batchSize(s))));
        }
        return rows;
    }

    private static List<String> fig8Row(SmdpSolver solver, double co, int sMax) {
        SmdpSolution sol = solver.solve(new TruncatedSmdp(P4.atLoad(0.9), CostWeights.of(1, 1), sMax, co));
        return List.of(Numbers.significant(co), Integer.toString(sMax), Numbers.significant(sol.gain()), Numbers.significant(sol.overflowCost()), Integer.toString(sol.iterations()),
                Boolean.toString(sol.converged()), Numbers.significant(sol.solveMillis()), Numbers.significant(sol.cpuMillis()));
    }

    /** The accepted solution for Figs 4 and 5: c_o from the work-conserving bound, s_max up in steps of 8. */
    static SmdpSolution accepted(SmdpSolver solver, BatchServiceModel model, CostWeights w) {
        double co = SmdpSolver.overflowCostBound(model, w, 64);
        return solver.solveAccepted(model, w, co, DELTA, 32, 8, 2_000).solution();
    }

    /** Table I from the s_max scan: for each c_o the first s_max with Delta < delta, as the acceptance test would find it. */
    private static List<List<String>> table1(ResultTable fig8) {
        List<List<String>> rows = new ArrayList<>();
        int co = fig8.index("c_o"), sm = fig8.index("s_max"), g = fig8.index("g"), d = fig8.index("delta"), it = fig8.index("iterations"),
                ms = fig8.index("solve_ms"), cpu = fig8.index("cpu_ms");
        for (double[] paper : PAPER_TABLE1) {
            String c = Numbers.significant(paper[0]);
            List<String> first = null;
            for (List<String> row : fig8.rows()) {
                if (row.get(co).equals(c) && Double.parseDouble(row.get(d)) < DELTA) {
                    first = row;
                    break;
                }
            }
            if (first == null) {
                rows.add(List.of(c, "", "", "", "", "", "", "", "", "", Numbers.significant(paper[1]), Numbers.significant(paper[2]), Numbers.significant(paper[3]), Numbers.significant(paper[4])));
                continue;
            }
            int sMax = Integer.parseInt(first.get(sm));
            int iterations = Integer.parseInt(first.get(it));
            double paperOps = (double) iterations * 32 * sMax * sMax;
            rows.add(List.of(c, first.get(sm), first.get(it), Integer.toString(32 * sMax), Numbers.significant(paperOps),
                    Numbers.significant((double) iterations * multiplyAddsPerIteration(sMax)), first.get(d), first.get(g), first.get(ms), first.get(cpu),
                    Numbers.significant(paper[1]), Numbers.significant(paper[2]), Numbers.significant(paper[3]), Numbers.significant(paper[4])));
        }
        return rows;
    }

    /**
     * What one iteration of the solver costs at rho 0.9 (see {@code SmdpSolver}): the first pmf
     * and the 31 kernels, each correlated over the states that read it, plus one multiply-add per
     * state and batch for the minimisation.
     */
    static double multiplyAddsPerIteration(int sMax) {
        BatchServiceModel m = P4.atLoad(0.9);
        double lambda = m.arrivalRate();
        double ops = 0;
        // The same cut as the solver's (tail below 1e-12): counted by the pmf's length.
        ops += (sMax + 1) * taps(lambda * m.latencyMs(1));
        for (int a = 1; a < 32; a++) ops += (sMax + 1) * taps(lambda * (m.latencyMs(a + 1) - m.latencyMs(a)));
        ops += 32.0 * (sMax + 1);
        return ops;
    }

    private static int taps(double mean) {
        double p = Math.exp(-mean);
        double sum = p;
        int k = 0;
        while (k < mean || 1 - sum > 1e-12) {
            k++;
            p *= mean / k;
            sum += p;
        }
        return k + 1;
    }

    private String policyTables(ResultTable fig4) {
        StringBuilder s = new StringBuilder("# Fig 4: optimal tables, GoogLeNet on a Tesla P4, B_max 32\n\n");
        s.append("Each row is a load rho; column s is the batch served with s requests in the system (. = wait).\n");
        for (String w2 : fig4.distinct("w2")) {
            s.append("\n## (w1, w2) = (1, ").append(w2).append(")\n\n```\nrho  ");
            for (int st = 0; st <= 40; st++) s.append(String.format(Locale.ROOT, "%3d", st));
            s.append('\n');
            for (String rho : fig4.distinct("rho")) {
                s.append(String.format(Locale.ROOT, "%-4s ", rho));
                for (int st = 0; st <= 40; st++) {
                    double a = fig4.median("action", Map.of("w2", w2, "rho", rho, "state", Integer.toString(st)));
                    s.append(a == 0 ? "  ." : String.format(Locale.ROOT, "%3d", (int) a));
                }
                s.append('\n');
            }
            s.append("```\n");
        }
        return s.toString();
    }

    private static String multimodelMarkdown(ResultTable t) {
        StringBuilder s = new StringBuilder("| w2 | policy | model | requests/s | latency ms | power W | mJ per request | mean batch | cost |\n");
        s.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
        for (List<String> r : t.rows()) {
            Map<String, String> v = new LinkedHashMap<>();
            for (int i = 0; i < r.size(); i++) v.put(t.columns().get(i), r.get(i));
            s.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |%n", v.get("w2"), v.get("policy"), v.get("model"),
                    fixed(v.get("rate_per_s"), 0), fixed(v.get("latency_ms"), 3), fixed(v.get("power_w"), 2), fixed(v.get("energy_per_request_mj"), 2),
                    fixed(v.get("mean_batch"), 2), fixed(v.get("cost"), 2)));
        }
        return s.toString();
    }

    private static String table1Markdown(ResultTable t) {
        StringBuilder s = new StringBuilder("| c_o | min s_max | iterations | space | time as written | multiply-adds here | Delta | g | solve ms (cpu) | paper: s_max / iterations / Delta / g |\n");
        s.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
        for (List<String> r : t.rows()) {
            Map<String, String> v = new LinkedHashMap<>();
            for (int i = 0; i < r.size(); i++) v.put(t.columns().get(i), r.get(i));
            s.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %s | %s | %s (%s) | %s / %s / %s / %s |%n",
                    v.get("c_o"), v.get("min_s_max"), v.get("iterations"), v.get("space"), sci(v.get("paper_multiplications")),
                    sci(v.get("multiply_adds")), sci(v.get("delta")), fixed(v.get("g"), 4), fixed(v.get("solve_ms"), 1), fixed(v.get("cpu_ms"), 1),
                    v.get("paper_min_s_max"), v.get("paper_iterations"), sci(v.get("paper_delta")), v.get("paper_g")));
        }
        return s.toString();
    }

    private static String sci(String v) {
        return v == null || v.isEmpty() ? "" : String.format(Locale.ROOT, "%.3g", Double.parseDouble(v));
    }

    private static String fixed(String v, int digits) {
        return v == null || v.isEmpty() ? "" : String.format(Locale.ROOT, "%." + digits + "f", Double.parseDouble(v));
    }

    /** Runs the tasks on the pool, with a progress bar; their results in the order given. */
    private List<Object> execute(String task, List<Callable<Object>> tasks) throws InterruptedException {
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "smdp");
            t.setDaemon(true);
            return t;
        });
        try (ProgressBar bar = progress ? new ProgressBarBuilder().setTaskName(task).setInitialMax(tasks.size())
                .setStyle(ProgressBarStyle.ASCII).setUpdateIntervalMillis(250).build() : null) {
            List<Future<Object>> futures = new ArrayList<>();
            for (Callable<Object> c : tasks) {
                futures.add(pool.submit(() -> {
                    Object result = c.call();
                    if (bar != null) bar.step();
                    return result;
                }));
            }
            List<Object> results = new ArrayList<>();
            for (Future<Object> f : futures) {
                try {
                    results.add(f.get());
                } catch (ExecutionException e) {
                    throw new IllegalStateException(task + " failed: " + e.getCause(), e.getCause());
                }
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }

    private static ResultTable write(Path csv, List<String> columns, List<List<String>> rows) throws IOException {
        ResultTable t = new ResultTable(columns);
        for (List<String> r : rows) t.add(r);
        t.write(csv);
        return t;
    }
}
