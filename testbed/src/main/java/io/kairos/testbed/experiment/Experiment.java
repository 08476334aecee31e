package io.kairos.testbed.experiment;

import io.kairos.core.scheduling.ConfiguredPolicy;
import io.kairos.core.scheduling.policy.TritonPolicy;
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
 * <p>To add one: implement this (see {@link LowSloExperiment}), list it in {@link Experiments#all} as a sweep,
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

    /** Every (point, policy, seed) of the sweep with its simulation; a tuned policy with its defaults (see {@link #runs(Settings, Map)}). */
    default List<Run> runs(Settings settings) {
        return runs(settings, Map.of());
    }

    /**
     * The measured runs: every (point, policy, seed) on the measured seeds; a policy with a grid
     * ({@link TritonGrid#settings(String)}), where tuning is on, with the setting {@code chosen}
     * for it at the point by the {@link #tuningRuns} (policy, then point values), or its defaults
     * where none was; {@code triton} untuned with Triton's defaults.
     */
    default List<Run> runs(Settings settings, Map<String, Map<List<String>, TritonGrid.Setting>> chosen) {
        List<Run> runs = new ArrayList<>();
        for (Point p : points()) {
            for (String policy : settings.policies()) {
                boolean triton = policy.equals(TritonPolicy.NAME);
                boolean grid = settings.tritonGrid() && !TritonGrid.settings(policy).isEmpty();
                TritonGrid.Setting variant = grid ? chosen.getOrDefault(policy, Map.of()).getOrDefault(p.values(), triton ? TritonGrid.DEFAULTS : TritonGrid.NONE)
                        : triton ? TritonGrid.UNTUNED : TritonGrid.NONE;
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
     * How long a tuning run simulates: the measured runs' duration, unless the experiment tunes on
     * a sample of its workload, as a user tunes on a sample of theirs.
     */
    default double tuningSeconds(Settings settings) {
        return settings.durationSeconds();
    }

    /**
     * The runs that tune a policy as its users do (Triton) or as Kairos' own knob is: every setting
     * of its grid ({@link TritonGrid#settings(String)}) at every point on
     * {@link Settings#TUNING_SEED} alone, none of the measured seeds; empty where tuning is off.
     */
    default List<Run> tuningRuns(Settings settings) {
        if (!settings.tritonGrid()) return List.of();
        List<Run> runs = new ArrayList<>();
        for (Point p : points()) {
            for (String policy : settings.policies()) {
                for (TritonGrid.Setting variant : TritonGrid.settings(policy)) {
                    Map<String, String> params = new HashMap<>(asPublished(policy));
                    params.putAll(variant.params());
                    Simulation sim = settings.apply(setup(p).policy(policy, params), Settings.TUNING_SEED)
                            .duration(Math.round(tuningSeconds(settings) * 1e6)).build();
                    runs.add(new Run(p, policy, variant.label(), Settings.TUNING_SEED, sim));
                }
            }
        }
        return runs;
    }

    /**
     * The group parameters a policy runs with in an experiment: the serving group's shedding (by
     * deadline, and early under overload) for every policy alike, {@code kairos} with the job's
     * defaults, except {@code triton}, which sheds nothing by deadline, as Triton runs: its only drop
     * is its queue timeout, which Triton leaves off by default and {@link TritonGrid} tunes.
     */
    static Map<String, String> asPublished(String policy) {
        if (policy.equals(TritonPolicy.NAME)) return Map.of(ConfiguredPolicy.SHED_EARLY, "false", ConfiguredPolicy.SHED, "false");
        return Map.of();
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
