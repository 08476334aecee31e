package io.kairos.testbed.experiment;

import io.kairos.sim.SimulationReport;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs an experiment's simulations on a pool of threads and writes what came out. Simulations are
 * single-threaded and share nothing, so the pool is the only place with concurrency; the rows are
 * kept in the order of {@link Experiment#runs}, not the order the runs finished in, so that the
 * same settings give the same CSV (the wall-clock column aside).
 *
 * <p>Into the output folder: {@code results.csv} (one row per run), {@code attainment.md} (the
 * table printed at the end), the experiment's figures, and {@code shape-check.txt} when the
 * experiment checks claims.
 */
public final class ExperimentRunner {
    public static final String RESULTS = "results.csv";
    public static final String TABLE = "attainment.md";
    public static final String SHAPE_CHECK = "shape-check.txt";

    private final int threads;
    private final boolean progress;
    private final PrintWriter out;

    public ExperimentRunner(int threads, boolean progress, PrintWriter out) {
        if (threads < 1) throw new IllegalArgumentException("threads must be at least 1, got " + threads);
        this.threads = threads;
        this.progress = progress;
        this.out = out;
    }

    /** The CSV header: the experiment's point columns, invocation, seed, the run's {@link TritonGrid} setting, then the report's columns. */
    public static List<String> columns(Experiment experiment) {
        List<String> columns = new ArrayList<>(experiment.pointColumns());
        columns.add("invocation");
        columns.add("seed");
        columns.add(TritonGrid.COLUMN);
        columns.addAll(SimulationReport.CSV_COLUMNS);
        columns.addAll(experiment.probeColumns());
        return columns;
    }

    /** Runs every run of {@code experiment}, writes {@code results.csv} into {@code dir}, and reports. */
    public Outcome run(Experiment experiment, Settings settings, Path dir) throws IOException, InterruptedException {
        List<Experiment.Run> tuning = experiment.tuningRuns(settings);
        out.printf(Locale.ROOT, "%s: %s%n", experiment.name(), experiment.description());
        out.printf(Locale.ROOT, "%d runs (%d points x %d policies x %d seed%s%s), %s s simulated each (%s s warm-up), invocation %s, %d thread%s%n",
                experiment.points().size() * settings.policies().size() * settings.seeds() + tuning.size(), experiment.points().size(), settings.policies().size(),
                settings.seeds(), settings.seeds() == 1 ? "" : "s",
                tuning.isEmpty() ? "" : "; " + tuning.size() + " tuning runs on seed " + Settings.TUNING_SEED
                        + (experiment.tuningSeconds(settings) == settings.durationSeconds() ? "" : " of " + Settings.plain(experiment.tuningSeconds(settings)) + " s"),
                Settings.plain(settings.durationSeconds()), Settings.plain(settings.warmupSeconds()), settings.invocationLabel(),
                threads, threads == 1 ? "" : "s");
        long started = System.nanoTime();
        Files.createDirectories(dir);
        Map<String, Map<List<String>, TritonGrid.Setting>> chosen = new HashMap<>();
        if (!tuning.isEmpty()) {
            ResultTable grid = simulate(experiment, settings, tuning, experiment.name() + " tuning");
            // Every setting's tuning rows for the record; the measured seeds run the best at each point.
            grid.write(dir.resolve(TritonGrid.CSV));
            for (String policy : grid.distinct("policy")) {
                Map<List<String>, TritonGrid.Setting> best = new HashMap<>();
                TritonGrid.choose(grid, experiment.pointColumns(), policy).forEach((point, label) -> best.put(point, TritonGrid.setting(policy, label)));
                chosen.put(policy, best);
                out.printf(Locale.ROOT, "%s: at each point the best of %d settings on seed %d (all in %s), run on the measured seeds%n",
                        policy, TritonGrid.settings(policy).size(), Settings.TUNING_SEED, TritonGrid.CSV);
            }
        }
        List<Experiment.Run> runs = experiment.runs(settings, chosen);
        ResultTable results = simulate(experiment, settings, runs, experiment.name());
        double wallSeconds = (System.nanoTime() - started) / 1e9;
        results.write(dir.resolve(RESULTS));
        out.printf(Locale.ROOT, "%d runs in %.1f s of wall time%n", runs.size() + tuning.size(), wallSeconds);
        return report(experiment, results, dir, wallSeconds);
    }

    /** Simulates {@code runs} and gives their rows. */
    private ResultTable simulate(Experiment experiment, Settings settings, List<Experiment.Run> runs, String task) throws InterruptedException {
        List<Experiment.Probe> probes = new ArrayList<>();
        for (Experiment.Run run : runs) probes.add(experiment.probe(run.point()));
        List<SimulationReport> reports = execute(task, runs, probes);
        ResultTable results = new ResultTable(columns(experiment));
        for (int i = 0; i < runs.size(); i++) {
            Experiment.Run run = runs.get(i);
            List<String> row = new ArrayList<>(run.point().values());
            row.add(settings.invocationLabel());
            row.add(Long.toString(run.seed()));
            row.add(run.setting());
            row.addAll(reports.get(i).csvValues());
            if (probes.get(i) != null) row.addAll(probes.get(i).values());
            results.add(row);
        }
        return results;
    }

    /** Prints the attainment table and the claims, and draws the figures, from results already there. */
    public Outcome report(Experiment experiment, ResultTable results, Path dir, double wallSeconds) throws IOException {
        Files.createDirectories(dir);
        SummaryTable table = SummaryTable.of(experiment, results, "slo_attainment", 100, 2);
        out.printf("%nSLO attainment %%, median over seeds%n");
        out.print(table.text());
        Files.writeString(dir.resolve(TABLE), table.markdown());

        List<Experiment.Claim> claims = experiment.check(results);
        if (!claims.isEmpty()) {
            StringBuilder s = new StringBuilder();
            for (Experiment.Claim c : claims) s.append(c).append('\n');
            out.printf("%nshape check%n");
            out.print(s);
            Files.writeString(dir.resolve(SHAPE_CHECK), s);
        }
        List<Path> figures = experiment.drawFigures(results, dir);
        List<String> written = new ArrayList<>(List.of(RESULTS, TABLE));
        if (!claims.isEmpty()) written.add(SHAPE_CHECK);
        for (Path f : figures) written.add(f.getFileName().toString());
        out.printf("%nwrote %s to %s%n", String.join(", ", written), dir);
        out.flush();
        return new Outcome(results, claims, figures, wallSeconds);
    }

    /** The runs' reports in the runs' order, simulated on the pool with a progress bar. */
    List<SimulationReport> execute(String name, List<Experiment.Run> runs) throws InterruptedException {
        return execute(name, runs, java.util.Collections.nCopies(runs.size(), null));
    }

    /** The same, each run heard by its probe (null: none). */
    List<SimulationReport> execute(String name, List<Experiment.Run> runs, List<Experiment.Probe> probes) throws InterruptedException {
        AtomicInteger threadNumber = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "experiment-" + threadNumber.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        try (ProgressBar bar = progress ? new ProgressBarBuilder().setTaskName(name).setInitialMax(runs.size())
                .setStyle(ProgressBarStyle.ASCII).setUpdateIntervalMillis(250).build() : null) {
            List<Future<SimulationReport>> futures = new ArrayList<>();
            for (int i = 0; i < runs.size(); i++) {
                Experiment.Run run = runs.get(i);
                Experiment.Probe probe = probes.get(i);
                futures.add(pool.submit(() -> {
                    SimulationReport report = probe == null ? run.simulation().run() : run.simulation().run(probe);
                    if (bar != null) {
                        bar.step();
                        bar.setExtraMessage(run.point() + " " + run.policy() + (run.setting().isEmpty() ? "" : " " + run.setting()));
                    }
                    return report;
                }));
            }
            List<SimulationReport> reports = new ArrayList<>();
            for (int i = 0; i < futures.size(); i++) {
                try {
                    reports.add(futures.get(i).get());
                } catch (ExecutionException e) {
                    Experiment.Run run = runs.get(i);
                    throw new IllegalStateException("run " + run.point() + " " + run.policy() + " seed " + run.seed()
                            + " failed: " + e.getCause(), e.getCause());
                }
            }
            return reports;
        } finally {
            pool.shutdownNow();
        }
    }

    /** What a run of an experiment gave: the rows, the checked claims, the figures, and how long the simulations took. */
    public record Outcome(ResultTable results, List<Experiment.Claim> claims, List<Path> figures, double wallSeconds) {}
}
