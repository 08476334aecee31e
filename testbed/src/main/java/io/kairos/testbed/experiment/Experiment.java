package io.kairos.testbed.experiment;

import io.kairos.core.scheduling.ConfiguredPolicy;
import io.kairos.core.scheduling.policy.DynamicBatcherPolicy;
import io.kairos.sim.Simulation;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A policy experiment: a sweep of points (a workload, a setup), each simulated with every policy
 * and several seeds, then drawn. An implementation says what its points are and how to set one up;
 * {@link ExperimentRunner} runs them on a thread pool, writes {@code results.csv}, prints the
 * attainment table and asks the experiment for its figures and for the claims it checks.
 *
 * <p>To add one: implement this (see {@link LowSloExperiment}), register it in {@link Experiments},
 * and draw its figures with {@link Figures}.
 */
public interface Experiment {

    /** The name on the command line and of the output folder, e.g. {@code low-slo}. */
    String name();

    /** One line for {@code --help} and the start of a run. */
    String description();

    /** Duration, warm-up, seeds, policies and invocation when the command line leaves them out. */
    Settings defaults();

    /** The columns that name a point, e.g. {@code models, rate, slo_ms}; the CSV adds invocation and seed. */
    List<String> pointColumns();

    /** The points of the sweep, each with its values in {@link #pointColumns} order. */
    List<Point> points();

    /**
     * A builder for one point with its devices and load set; the runner adds the policy, duration,
     * warm-up, invocation and seed. Called once per run, so that runs share nothing mutable.
     */
    Simulation.Builder setup(Point point);

    /** The point column whose values go across the printed table (the others go down, with the policy). */
    default String tableColumn() {
        List<String> columns = pointColumns();
        return columns.get(columns.size() - 1);
    }

    /** Every (point, policy, seed) of the sweep with its simulation; triton, where its grid is on, with Triton's defaults (see {@link #runs(Settings, Map)}). */
    default List<Run> runs(Settings settings) {
        return runs(settings, Map.of());
    }

    /**
     * The measured runs: every (point, policy, seed) on the measured seeds, {@code triton} (where
     * its grid is on) with the setting {@code chosen} for the point by the {@link #tuningRuns}, or
     * Triton's defaults where none was.
     */
    default List<Run> runs(Settings settings, Map<List<String>, TritonGrid.Setting> chosen) {
        List<Run> runs = new ArrayList<>();
        for (Point p : points()) {
            for (String policy : settings.policies()) {
                boolean grid = settings.tritonGrid() && policy.equals(DynamicBatcherPolicy.NAME);
                TritonGrid.Setting variant = grid ? chosen.getOrDefault(p.values(), TritonGrid.DEFAULTS)
                        : policy.equals(DynamicBatcherPolicy.NAME) ? TritonGrid.UNTUNED : TritonGrid.NONE;
                Map<String, String> params = new HashMap<>(asPublished(policy));
                params.putAll(variant.params());
                for (long seed : settings.seedValues()) {
                    Simulation sim = settings.apply(setup(p).policy(policy, params), seed).build();
                    runs.add(new Run(p, policy, variant.label(), seed, sim));
                }
            }
        }
        return runs;
    }

    /**
     * The runs that tune Triton as its users do: every setting of {@link TritonGrid} at every
     * point on {@link Settings#TUNING_SEED} alone, none of the measured seeds; empty where the
     * grid is off or {@code triton} is not run.
     */
    default List<Run> tuningRuns(Settings settings) {
        if (!settings.tritonGrid() || !settings.policies().contains(DynamicBatcherPolicy.NAME)) return List.of();
        List<Run> runs = new ArrayList<>();
        for (Point p : points()) {
            for (TritonGrid.Setting variant : TritonGrid.settings()) {
                Map<String, String> params = new HashMap<>(asPublished(DynamicBatcherPolicy.NAME));
                params.putAll(variant.params());
                Simulation sim = settings.apply(setup(p).policy(DynamicBatcherPolicy.NAME, params), Settings.TUNING_SEED).build();
                runs.add(new Run(p, DynamicBatcherPolicy.NAME, variant.label(), Settings.TUNING_SEED, sim));
            }
        }
        return runs;
    }

    /**
     * The group parameters a policy runs with in an experiment: the other systems' policies as their
     * papers describe them, so without the serving group's early shedding under overload
     * ({@code shed_early}, a Kairos mechanism that keeps batches full past capacity and would lift
     * every baseline's goodput there), and Triton without any shedding by deadline, as Triton runs
     * (its only drop is its queue timeout, which Triton leaves off by default and {@link TritonGrid}
     * tunes); {@code kairos} with everything the job does by default.
     */
    static Map<String, String> asPublished(String policy) {
        if (policy.equals("kairos")) return Map.of();
        // Triton sheds nothing by deadline: its queue policy (a timeout, none by default) is its only drop.
        if (policy.equals(DynamicBatcherPolicy.NAME)) return Map.of(ConfiguredPolicy.SHED_EARLY, "false", ConfiguredPolicy.SHED, "false");
        return Map.of(ConfiguredPolicy.SHED_EARLY, "false");
    }

    /**
     * Columns the experiment measures itself in each run, beyond the report's: what its
     * {@link #probe} hears of every request's fate and every load (none by default).
     */
    default List<String> probeColumns() {
        return List.of();
    }

    /** A fresh probe for one run of {@code point}; null when the experiment has no {@link #probeColumns}. */
    default Probe probe(Point point) {
        return null;
    }

    /** Hears one run as it goes, and gives its {@link #probeColumns} values when it is over. */
    interface Probe extends io.kairos.sim.FateListener {
        List<String> values();
    }

    /** Draws the figures from the results into {@code dir}; returns the files written. */
    List<Path> drawFigures(ResultTable results, Path dir) throws IOException;

    /** What a paper reports that these results can confirm or refute; none by default. */
    default List<Claim> check(ResultTable results) {
        return List.of();
    }

    /** The values of one point of the sweep, in {@link #pointColumns} order. */
    record Point(List<String> values) {
        public Point {
            values = List.copyOf(values);
        }

        public static Point of(Object... values) {
            List<String> v = new ArrayList<>();
            for (Object o : values) v.add(String.valueOf(o));
            return new Point(v);
        }

        public String get(int i) {
            return values.get(i);
        }

        @Override
        public String toString() {
            return String.join("/", values);
        }
    }

    /** One simulation of the sweep; {@code setting} names its {@link TritonGrid} setting, empty for none. */
    record Run(Point point, String policy, String setting, long seed, Simulation simulation) {}

    /** A claim checked against the results: whether it holds, and the numbers that say so. */
    record Claim(String statement, Verdict verdict, String evidence) {
        public enum Verdict { PASS, FAIL, SKIP }

        @Override
        public String toString() {
            return verdict + "  " + statement + ": " + evidence;
        }
    }
}
