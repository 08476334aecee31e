package io.kairos.testbed.experiment;

import io.kairos.control.inferline.InferLinePlanner;
import io.kairos.control.inferline.PipelineDecisions;
import io.kairos.control.tuner.ReplicaPlacement;
import io.kairos.control.tuner.TunerSettings;
import io.kairos.core.device.DeviceSlots;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.pipeline.PipelineSpec;
import io.kairos.sim.Controller;
import io.kairos.sim.TimedDecision;
import io.kairos.sim.pipeline.PipelineConfig;
import io.kairos.sim.pipeline.PipelineEstimate;
import io.kairos.sim.pipeline.PipelineEstimator;
import io.kairos.sim.pipeline.StageConfig;
import io.kairos.tools.format.Numbers;
import io.kairos.tools.progress.ProgressLine;
import io.kairos.workload.ArrivalTrace;
import me.tongfei.progressbar.ProgressBar;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * {@code experiment tuner}: InferLine's tuner (Figs 11 and 12) on the image-processing pipeline
 * (a CPU preprocess, then ResNet152), simulated with the job's scheduler, on a pool of
 * {@value #POOL} devices. Each scenario's trace is Poisson arrivals at a rate that changes over
 * time: 150 requests/s for the first {@value #START_S} s, then
 * <ul>
 *   <li><b>a ramp</b> to 250 requests/s at {@link #RAMPS} requests/s per second, {@value #HOLD_S} s
 *       at 250, the same ramp down and 150 to the end (Fig 11);</li>
 *   <li><b>an oscillation</b> between 150 and 250 requests/s, a sine of period {@value #PERIOD_S} s,
 *       after the start (Fig 12).</li>
 * </ul>
 * The systems, each on the same trace and pool:
 * <ul>
 *   <li><b>Planner-Base</b>: InferLine's planner on the first {@value #START_S} s, no tuner;</li>
 *   <li><b>Planner-Oracle</b>: the planner on the whole trace, no tuner;</li>
 *   <li><b>Planner+Tuner</b>: Planner-Base's configuration with the tuner ({@link io.kairos.control.tuner.Tuner}) fed the
 *       trace's arrivals, its placements replayed in the simulation at the ticks that made them;
 *       and the same with windows of 1 and 5 minutes besides ({@link TunerSettings#LONG_WINDOWS});</li>
 *   <li><b>Static-Peak</b>: Planner-Base's configuration with, all the time, the most replicas
 *       per stage the tuner ever held: static provisioning for the peak;</li>
 *   <li><b>Ray Serve</b> and <b>Knative KPA</b>: Planner-Base's configuration scaled by emulations
 *       of those autoscalers ({@link StageAutoscaler}) in the simulation's loop.</li>
 * </ul>
 * Cost is device-seconds (a device holding a replica for a second; a device of the pool holding
 * nothing costs nothing) and dollars at the catalog's prices; misses are requests whose end-to-end
 * latency exceeds the pipeline's P99 SLO (150 ms). Decisions take effect when made (no model load
 * time, for every system alike). Writes {@value #TIMELINE_CSV} (per {@value #BIN_S}-s bin),
 * {@value #SYSTEMS_CSV}, the figures and {@value #SUMMARY} with the shapes checked.
 */
public final class TunerExperiment {
    public static final String NAME = "tuner";
    public static final String DESCRIPTION = "InferLine's tuner against its planner alone, static peak provisioning, and Ray Serve's and Knative's autoscalers "
            + "on ramps from 150 to 250 requests/s and an oscillating load (Figs 11-12)";
    static final String PIPELINE = "image-processing";
    static final String POOL = "cpu:4,gpu-k80:24,gpu-v100:8";
    static final double LOW = 150;
    static final double HIGH = 250;
    static final double[] RAMPS = {1, 5, 25};
    static final int START_S = 120;
    static final int HOLD_S = 150;
    static final int PERIOD_S = 120;
    static final int BIN_S = 10;
    static final String TIMELINE_CSV = "timeline.csv";
    static final String SYSTEMS_CSV = "systems.csv";
    static final String AUTOSCALER_GRID_CSV = "autoscaler-grid.csv";
    static final String SUMMARY = "summary.md";
    static final String TUNER = "Planner+Tuner";
    static final String TUNER_LONG = "Planner+Tuner (windows to 5 min)";
    static final List<String> SYSTEMS = List.of("Planner-Oracle", "Planner-Base", TUNER, TUNER_LONG, "Static-Peak", "Ray Serve", "Knative KPA");

    private final double traceSeconds;
    private final int seeds;
    private final int threads;
    private final boolean progress;
    private final PrintWriter out;
    private final ModelCatalog catalog = ModelCatalog.parse(InferLineExperiment.resource("models.json"), "inferline/models.json");
    private final PipelineSpec pipeline = InferLineExperiment.pipeline(PIPELINE);
    private final TunerReplay replay = new TunerReplay(catalog, pipeline);

    public TunerExperiment(double traceSeconds, int seeds, int threads, boolean progress, PrintWriter out) {
        this.traceSeconds = traceSeconds;
        this.seeds = seeds;
        this.threads = threads;
        this.progress = progress;
        this.out = out;
    }

    /** A load over time: a ramp at {@code rampPerSecond} (requests/s per second), or an oscillation when it is 0. */
    record Scenario(String name, double rampPerSecond) {
        boolean oscillates() {
            return rampPerSecond == 0;
        }

        /** The arrival rate at {@code t} seconds. */
        double rate(double t) {
            if (t < START_S) return LOW;
            double after = t - START_S;
            if (oscillates()) return (LOW + HIGH) / 2 - (HIGH - LOW) / 2 * Math.cos(2 * Math.PI * after / PERIOD_S);
            double ramp = (HIGH - LOW) / rampPerSecond;
            if (after < ramp) return LOW + rampPerSecond * after;
            after -= ramp;
            if (after < HOLD_S) return HIGH;
            after -= HOLD_S;
            if (after < ramp) return HIGH - rampPerSecond * after;
            return LOW;
        }

        /** When the load holds at its peak, seconds: [start, end). */
        double[] hold() {
            double ramp = (HIGH - LOW) / rampPerSecond;
            return new double[]{START_S + ramp, START_S + ramp + HOLD_S};
        }
    }

    static List<Scenario> scenarios() {
        List<Scenario> s = new ArrayList<>();
        for (double r : RAMPS) s.add(new Scenario("ramp " + Numbers.significant(r) + "/s²", r));
        s.add(new Scenario("oscillating", 0));
        return s;
    }

    /** Poisson arrivals at the scenario's rate over time, drawn by thinning a process at {@link #HIGH}. */
    static ArrivalTrace trace(Scenario scenario, double seconds, long seed) {
        return thinned(scenario::rate, HIGH, seconds, seed);
    }

    /**
     * Poisson arrivals at {@code rate(t)} requests/s ({@code t} in seconds), drawn by thinning a
     * process at {@code most}, which no {@code rate(t)} may exceed; an arrival at time 0 keeps the
     * trace's clock at 0.
     */
    static ArrivalTrace thinned(java.util.function.DoubleUnaryOperator rate, double most, double seconds, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        long[] times = new long[(int) (most * seconds * 1.2) + 16];
        int n = 0;
        double t = 0;
        while (true) {
            t += -Math.log(1 - random.nextDouble()) / most;
            if (t >= seconds) break;
            if (random.nextDouble() * most < rate.applyAsDouble(t)) {
                if (n == times.length) times = Arrays.copyOf(times, n * 2);
                times[n++] = Math.round(t * 1e6);
            }
        }
        // ArrivalTrace.of starts at the first arrival: keep time 0 at 0 by an arrival there.
        long[] all = new long[n + 1];
        System.arraycopy(times, 0, all, 1, n);
        return ArrivalTrace.of(all);
    }

    /** One system's run on one scenario: its latencies, replicas over time and plan. */
    record Outcome(Scenario scenario, long seed, String system, PipelineConfig config, ArrivalTrace trace, int[] latencies,
                   Map<String, int[]> replicasPerSecond, int changes, int reversals, String setting) {
        Outcome(Scenario scenario, long seed, String system, PipelineConfig config, ArrivalTrace trace, int[] latencies,
                Map<String, int[]> replicasPerSecond, int changes, int reversals) {
            this(scenario, seed, system, config, trace, latencies, replicasPerSecond, changes, reversals, "");
        }
    }

    public void run(Path dir) throws IOException, InterruptedException {
        out.printf(Locale.ROOT, "%s: %s; traces of %s s, pool %s%n", NAME, DESCRIPTION, Numbers.significant(traceSeconds), POOL);
        Files.createDirectories(dir);
        long started = System.nanoTime();
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread th = new Thread(r, NAME);
            th.setDaemon(true);
            return th;
        });
        List<Outcome> outcomes = new ArrayList<>();
        List<Scenario> scenarios = scenarios();
        Map<String, Autoscalers> tuned = tuneAutoscalers(scenarios, pool, dir);
        try (ProgressBar bar = progress ? ProgressLine.bar(NAME, (long) scenarios.size() * seeds * SYSTEMS.size(), s -> List.of(ProgressLine.count(s, "runs"))) : null) {
            List<Future<List<Outcome>>> futures = new ArrayList<>();
            for (Scenario sc : scenarios) {
                for (long seed = 1; seed <= seeds; seed++) {
                    long s = seed;
                    futures.add(pool.submit(() -> runScenario(sc, s, tuned.get(sc.name()), bar)));
                }
            }
            for (Future<List<Outcome>> f : futures) outcomes.addAll(get(f));
        } finally {
            pool.shutdownNow();
        }
        timeline(outcomes).write(dir.resolve(TIMELINE_CSV));
        systems(outcomes).write(dir.resolve(SYSTEMS_CSV));
        report(dir);
        out.printf(Locale.ROOT, "%d runs in %.1f s of wall time%n", outcomes.size(), (System.nanoTime() - started) / 1e9);
    }

    /** The autoscalers' settings a scenario runs with. */
    record Autoscalers(StageAutoscaler.Ray ray, StageAutoscaler.Kpa kpa) {
        static final Autoscalers DEFAULTS = new Autoscalers(StageAutoscaler.Ray.DEFAULT, StageAutoscaler.Kpa.DEFAULT);
    }

    /**
     * Ray Serve's and Knative's autoscalers as their users tune them: on each scenario's trace of
     * the tuning seed ({@link Settings#TUNING_SEED}, never a measured one), every setting of their
     * grids ({@link StageAutoscaler.Ray#grid}, {@link StageAutoscaler.Kpa#grid}); each keeps the
     * setting with the fewest device-seconds among those that miss at most the SLO's 1 %, or, where
     * none does, the one that misses least. Every row goes to {@value #AUTOSCALER_GRID_CSV}.
     */
    Map<String, Autoscalers> tuneAutoscalers(List<Scenario> scenarios, ExecutorService pool, Path dir) throws InterruptedException, IOException {
        long seed = Settings.TUNING_SEED;
        List<Future<List<Outcome>>> futures = new ArrayList<>();
        for (Scenario sc : scenarios) {
            futures.add(pool.submit(() -> {
                Setting s = setting(sc, seed);
                List<Outcome> o = new ArrayList<>();
                for (StageAutoscaler.Ray r : StageAutoscaler.Ray.grid()) o.add(autoscaled(s, "Ray Serve", r.label(), (group, model, shared, i) -> new StageAutoscaler.RayServe(group, model, shared, i, r)));
                for (StageAutoscaler.Kpa k : StageAutoscaler.Kpa.grid()) o.add(autoscaled(s, "Knative KPA", k.label(), (group, model, shared, i) -> new StageAutoscaler.Knative(group, model, shared, i, k)));
                return o;
            }));
        }
        List<Outcome> all = new ArrayList<>();
        for (Future<List<Outcome>> f : futures) all.addAll(get(f));
        ResultTable grid = systems(all);
        grid.write(dir.resolve(AUTOSCALER_GRID_CSV));
        double target = Targets.of(NAME, "tuner-miss");
        Map<String, Autoscalers> chosen = new LinkedHashMap<>();
        for (Scenario sc : scenarios) {
            String ray = choose(grid.filter("scenario", sc.name()), "Ray Serve", target);
            String kpa = choose(grid.filter("scenario", sc.name()), "Knative KPA", target);
            chosen.put(sc.name(), new Autoscalers(StageAutoscaler.Ray.grid().stream().filter(r -> r.label().equals(ray)).findFirst().orElseThrow(),
                    StageAutoscaler.Kpa.grid().stream().filter(k -> k.label().equals(kpa)).findFirst().orElseThrow()));
            out.printf(Locale.ROOT, "%s, tuned on seed %d: Ray Serve %s; Knative KPA %s%n", sc.name(), seed, ray, kpa);
        }
        return chosen;
    }

    /** The setting of {@code system} (its label in the {@code setting} column) with the fewest device-seconds at a miss rate of at most {@code target}, else the fewest misses. */
    static String choose(ResultTable grid, String system, double target) {
        ResultTable rows = grid.filter("system", system);
        List<String> best = null;
        for (List<String> r : rows.rows()) {
            if (best == null || better(rows, r, best, target)) best = r;
        }
        return best.get(rows.index("setting"));
    }

    private static boolean better(ResultTable t, List<String> a, List<String> b, double target) {
        double missA = Double.parseDouble(a.get(t.index("miss_rate"))), missB = Double.parseDouble(b.get(t.index("miss_rate")));
        double costA = Double.parseDouble(a.get(t.index("device_seconds"))), costB = Double.parseDouble(b.get(t.index("device_seconds")));
        boolean okA = missA <= target, okB = missB <= target;
        if (okA != okB) return okA;
        return okA ? costA < costB : missA < missB;
    }

    /** What one scenario's seed plans from: its trace, the planning part, Planner-Base's configuration, the estimator and the devices. */
    record Setting(Scenario scenario, long seed, ArrivalTrace trace, ArrivalTrace planning, PipelineConfig base, PipelineEstimator estimator, DeviceSlots devices) {}

    Setting setting(Scenario scenario, long seed) {
        ArrivalTrace trace = trace(scenario, traceSeconds, seed);
        ArrivalTrace planning = trace.before(START_S * 1_000_000L);
        return new Setting(scenario, seed, trace, planning, plan(planning, seed, slo(), "Planner-Base"), new PipelineEstimator(catalog, pipeline, trace, seed),
                DeviceSlots.parse(POOL, catalog));
    }

    /** Builds one stage's autoscaler. */
    interface AutoscalerFactory {
        StageAutoscaler create(String group, String model, ReplicaPlacement placement, int stage);
    }

    /** Planner-Base's configuration scaled by {@code factory}'s autoscaler on every stage. */
    private Outcome autoscaled(Setting s, String system, String label, AutoscalerFactory factory) {
        List<String> stages = pipeline.topologicalOrder();
        ReplicaPlacement shared = placement(s.base(), s.devices());
        Map<String, PipelineEstimator.StageScaling> scaled = scalings(s.base(), s.devices(), st -> List.of(), st -> {
            int i = stages.indexOf(st);
            String group = PipelineDecisions.group(pipeline, st);
            String model = pipeline.stage(st).model();
            return () -> factory.create(group, model, shared, i);
        });
        Outcome o = outcome(s.scenario(), s.seed(), system, s.base(), s.trace(), s.estimator().estimateScaled(s.base(), slo(), s.devices(), scaled));
        return new Outcome(o.scenario(), o.seed(), o.system(), o.config(), o.trace(), o.latencies(), o.replicasPerSecond(), o.changes(), o.reversals(), label);
    }

    /** Plans, tunes and simulates every system on one scenario's trace; Ray Serve and Knative with {@code autoscalers}. */
    List<Outcome> runScenario(Scenario scenario, long seed, Autoscalers autoscalers, ProgressBar bar) {
        long slo = pipeline.sloP99Micros();
        ArrivalTrace trace = trace(scenario, traceSeconds, seed);
        ArrivalTrace planning = trace.before(START_S * 1_000_000L);
        PipelineConfig base = plan(planning, seed, slo, "Planner-Base");
        PipelineConfig oracle = plan(trace, seed, slo, "Planner-Oracle");
        DeviceSlots devices = DeviceSlots.parse(POOL, catalog);
        PipelineEstimator estimator = new PipelineEstimator(catalog, pipeline, trace, seed);
        List<String> stages = pipeline.topologicalOrder();
        List<Outcome> outcomes = new ArrayList<>();

        outcomes.add(fixed(scenario, seed, "Planner-Oracle", oracle, estimator, devices, slo, trace));
        step(bar);
        outcomes.add(fixed(scenario, seed, "Planner-Base", base, estimator, devices, slo, trace));
        step(bar);

        int[] most = tune(TUNER, TunerSettings.DEFAULT, scenario, seed, base, planning, trace, estimator, devices, outcomes);
        step(bar);
        tune(TUNER_LONG, TunerSettings.LONG_WINDOWS, scenario, seed, base, planning, trace, estimator, devices, outcomes);
        step(bar);

        Map<String, StageConfig> peak = new LinkedHashMap<>();
        for (int i = 0; i < stages.size(); i++) peak.put(stages.get(i), base.stage(stages.get(i)).withReplicas(most[i]));
        outcomes.add(fixed(scenario, seed, "Static-Peak", PipelineConfig.of(pipeline, catalog, peak), estimator, devices, slo, trace));
        step(bar);

        Setting setting = new Setting(scenario, seed, trace, planning, base, estimator, devices);
        outcomes.add(autoscaled(setting, "Ray Serve", autoscalers.ray().label(),
                (group, model, shared, i) -> new StageAutoscaler.RayServe(group, model, shared, i, autoscalers.ray())));
        step(bar);
        outcomes.add(autoscaled(setting, "Knative KPA", autoscalers.kpa().label(),
                (group, model, shared, i) -> new StageAutoscaler.Knative(group, model, shared, i, autoscalers.kpa())));
        step(bar);
        return outcomes;
    }

    /** The tuner on {@code settings} ({@link TunerReplay#tune}); returns the most replicas it held per stage. */
    private int[] tune(String system, TunerSettings settings, Scenario scenario, long seed, PipelineConfig base, ArrivalTrace planning, ArrivalTrace trace,
                       PipelineEstimator estimator, DeviceSlots devices, List<Outcome> outcomes) {
        TunerReplay.Tuned t = replay.tune(settings, base, planning, trace, Math.round(traceSeconds * 1e6), estimator, devices, slo());
        outcomes.add(outcome(scenario, seed, system, base, trace, t.estimate()));
        return t.most();
    }

    private long slo() {
        return pipeline.sloP99Micros();
    }

    private static void step(ProgressBar bar) {
        if (bar != null) bar.step();
    }

    private PipelineConfig plan(ArrivalTrace trace, long seed, long slo, String who) {
        InferLinePlanner.Plan p = new InferLinePlanner(new PipelineEstimator(catalog, pipeline, trace, seed), slo, trace.meanRatePerSecond()).plan();
        if (!p.feasible()) throw new IllegalStateException(who + ": " + p.infeasibility());
        return p.config();
    }

    private ReplicaPlacement placement(PipelineConfig config, DeviceSlots devices) {
        return replay.placement(config, devices);
    }

    private Map<String, PipelineEstimator.StageScaling> scalings(PipelineConfig config, DeviceSlots devices, Function<String, List<TimedDecision>> decisions,
                                                                 Function<String, Supplier<Controller>> controllers) {
        return replay.scalings(config, devices, decisions, controllers);
    }

    private Outcome fixed(Scenario scenario, long seed, String system, PipelineConfig config, PipelineEstimator estimator, DeviceSlots devices, long slo,
                          ArrivalTrace trace) {
        return outcome(scenario, seed, system, config, trace, replay.fixed(config, estimator, devices, slo));
    }

    /** The replicas of each stage in every second of the trace ({@link TunerReplay#held}). */
    private Outcome outcome(Scenario scenario, long seed, String system, PipelineConfig config, ArrivalTrace trace, PipelineEstimator.ScaledEstimate e) {
        TunerReplay.Held h = replay.held(config, e, (int) Math.ceil(traceSeconds));
        return new Outcome(scenario, seed, system, config, trace, e.estimate().latenciesMicros(), h.replicasPerSecond(), h.changes(), h.reversals());
    }

    /** Per scenario, system, seed and bin: arrivals, misses, devices and cost. */
    ResultTable timeline(List<Outcome> outcomes) {
        ResultTable t = new ResultTable(List.of("scenario", "system", "seed", "time_s", "rate", "requests", "misses", "miss_rate", "devices", "cost_per_hour"));
        long slo = pipeline.sloP99Micros();
        for (Outcome o : outcomes) {
            int bins = (int) Math.ceil(traceSeconds / BIN_S);
            MissBins m = MissBins.of(o.trace(), o.latencies(), slo, BIN_S, bins);
            for (int b = 0; b < bins; b++) {
                int from = b * BIN_S;
                int to = Math.min((b + 1) * BIN_S, o.replicasPerSecond().values().iterator().next().length);
                int span = Math.max(1, to - from);
                t.add(List.of(o.scenario().name(), o.system(), Long.toString(o.seed()), Integer.toString(from + BIN_S / 2),
                        Numbers.significant(m.requests()[b] / (double) span), Integer.toString(m.requests()[b]), Integer.toString(m.misses()[b]),
                        Numbers.significant(m.missRate(b)), Numbers.significant(TunerReplay.replicaSeconds(o.replicasPerSecond(), from, to) / span),
                        Numbers.significant(replay.costPerHour(o.config(), o.replicasPerSecond(), from, to))));
            }
        }
        return t;
    }

    /** Per scenario, system and seed: the whole trace. */
    ResultTable systems(List<Outcome> outcomes) {
        ResultTable t = new ResultTable(List.of("scenario", "system", "seed", "requests", "miss_rate", "p99_ms", "device_seconds", "cost_dollars",
                "most_devices", "changes", "reversals_within_15s", "hold_tail_miss_rate", "ideal_device_seconds", "configuration", "setting"));
        long slo = pipeline.sloP99Micros();
        Map<String, Double> ideal = new LinkedHashMap<>();
        for (Outcome o : outcomes) {
            if (o.system().equals(TUNER)) ideal.put(o.scenario().name() + "/" + o.seed(), idealDeviceSeconds(o.scenario(), o.config()));
        }
        for (Outcome o : outcomes) {
            int n = o.latencies().length;
            int misses = 0;
            int tail = 0;
            int tailMisses = 0;
            double[] hold = o.scenario().oscillates() ? null : o.scenario().hold();
            for (int r = 0; r < n; r++) {
                boolean miss = o.latencies()[r] > slo;
                if (miss) misses++;
                double at = o.trace().at(r) / 1e6;
                if (hold != null && at >= hold[1] - 60 && at < hold[1]) {
                    tail++;
                    if (miss) tailMisses++;
                }
            }
            long p99 = PipelineEstimate.p99Micros(o.latencies());
            int seconds = o.replicasPerSecond().values().iterator().next().length;
            double deviceSeconds = TunerReplay.replicaSeconds(o.replicasPerSecond(), 0, seconds);
            double dollars = replay.costPerHour(o.config(), o.replicasPerSecond(), 0, seconds) * seconds / 3600;
            t.add(List.of(o.scenario().name(), o.system(), Long.toString(o.seed()), Integer.toString(n), Numbers.significant(misses / (double) n), Numbers.significant(p99 / 1000.0),
                    Numbers.significant(deviceSeconds), Numbers.significant(dollars), Integer.toString(TunerReplay.mostReplicas(o.replicasPerSecond())), Integer.toString(o.changes()),
                    Integer.toString(o.reversals()), hold == null ? "" : Numbers.significant(tail == 0 ? 0 : tailMisses / (double) tail),
                    Numbers.significant(ideal.getOrDefault(o.scenario().name() + "/" + o.seed(), Double.NaN)), InferLineExperiment.configuration(o.config()), o.setting()));
        }
        return t;
    }

    /**
     * A reference no tuner can beat: the device-seconds of a follower that knew the rate in each
     * second and held, every second, each stage's planned replicas scaled by the rate over the
     * planned 150/s ({@code ceil(k_plan · rate / 150)}, what the tuner's rule asks for traffic as
     * bursty as the planning trace), with no look-back and no quiet time.
     */
    double idealDeviceSeconds(Scenario scenario, PipelineConfig base) {
        double total = 0;
        for (int second = 0; second < (int) Math.ceil(traceSeconds); second++) {
            double rate = scenario.rate(second + 0.5);
            for (StageConfig c : base.stages().values()) total += Math.max(1, (int) Math.ceil(c.replicas() * rate / LOW - 1e-9));
        }
        return total;
    }

    /** Draws the figures and writes the summary from the CSVs in {@code dir}. */
    public void report(Path dir) throws IOException {
        ResultTable timeline = ResultTable.read(dir.resolve(TIMELINE_CSV));
        ResultTable systems = ResultTable.read(dir.resolve(SYSTEMS_CSV));
        List<Path> figures = new ArrayList<>();
        figures.add(Figures.lines("time_s", "miss_rate").numericX().noMarkers().series("system").panels("scenario", null).scale(100)
                .xAxis("time, s (bins of " + BIN_S + " s)").yAxis("misses, % of requests", 0.0, null).size(900, 260)
                .title("SLO misses over time (Figs 11-12)").save(timeline, dir.resolve("misses-over-time.png")));
        figures.add(Figures.lines("time_s", "devices").numericX().noMarkers().series("system").panels("scenario", null)
                .xAxis("time, s").yAxis("devices held", 0.0, null).size(900, 260)
                .title("Devices held over time (Figs 11-12)").save(timeline, dir.resolve("devices-over-time.png")));
        figures.add(Figures.lines("time_s", "rate").numericX().noMarkers().series(null).panels("scenario", null)
                .xAxis("time, s").yAxis("arrivals per second", 0.0, null).size(900, 200)
                .title("The load of each scenario").save(timeline.filter("system", TUNER), dir.resolve("load.png")));
        figures.add(Figures.bars("scenario", "device_seconds").series("system").yAxis("device-seconds", 0.0, null)
                .title("Cost: device-seconds over the trace").save(systems, dir.resolve("cost.png")));
        figures.add(Figures.bars("scenario", "miss_rate").series("system").scale(100).yAxis("requests over the P99 SLO, %", 0.0, null)
                .title("SLO misses over the trace").save(systems, dir.resolve("misses.png")));
        String summary = summary(systems);
        Files.writeString(dir.resolve(SUMMARY), summary);
        out.print(summary);
        for (Path f : figures) out.println(f);
    }

    static String summary(ResultTable systems) {
        StringBuilder s = new StringBuilder();
        s.append("## Each system on each scenario (the image-processing pipeline, P99 SLO 150 ms, pool ").append(POOL).append(")\n\n");
        s.append("| scenario | system | misses | P99 ms | device-seconds | dollars | most devices | changes | misses, last 60 s of the peak | configuration |\n");
        s.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
        for (List<String> r : systems.rows()) {
            String tail = r.get(systems.index("hold_tail_miss_rate"));
            s.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %.4f | %s | %s | %s | %s |%n", r.get(systems.index("scenario")), r.get(systems.index("system")),
                    pct(r.get(systems.index("miss_rate"))), r.get(systems.index("p99_ms")), r.get(systems.index("device_seconds")),
                    Double.parseDouble(r.get(systems.index("cost_dollars"))), r.get(systems.index("most_devices")), r.get(systems.index("changes")),
                    tail.isEmpty() ? "" : pct(tail), r.get(systems.index("configuration"))));
        }
        s.append("\n## The paper's shapes and the targets\n\n");
        for (Experiment.Claim c : claims(systems)) s.append("- ").append(c).append('\n');
        return s.toString();
    }

    /**
     * Figs 11-12's shapes and the tuner's targets, per scenario (the median over seeds): the base
     * plan misses when the load rises; the tuner stays within the 1 % its P99 target allows, at 30 %
     * or more fewer device-seconds than static peak provisioning (Static-Peak and Planner-Oracle);
     * against both autoscalers, no more misses and no more device-seconds and fewer of one (a median
     * inside the other's seed range is a tie, neither more nor fewer); recovered by the last minute
     * of each ramp's peak; and on the oscillating load, no change reversed within the 15 s quiet time.
     */
    static List<Experiment.Claim> claims(ResultTable systems) {
        List<Experiment.Claim> claims = new ArrayList<>();
        List<String> scenarios = systems.distinct("scenario");
        List<String> baseMisses = new ArrayList<>();
        List<String> baseBroken = new ArrayList<>();
        List<String> within = new ArrayList<>();
        List<String> withinBroken = new ArrayList<>();
        List<String> cheaper = new ArrayList<>();
        List<String> cheaperBroken = new ArrayList<>();
        List<String> better = new ArrayList<>();
        List<String> betterBroken = new ArrayList<>();
        List<String> recovered = new ArrayList<>();
        List<String> recoveredBroken = new ArrayList<>();
        List<String> oracleCost = new ArrayList<>();
        List<String> oracleBroken = new ArrayList<>();
        List<String> windows = new ArrayList<>();
        double baseMiss = Targets.of(NAME, "base-miss");
        double tunerTarget = Targets.of(NAME, "tuner-miss");
        double saving = Targets.of(NAME, "saving-over-peak");
        double reversalsAllowed = Targets.of(NAME, "reversals");
        for (String sc : scenarios) {
            ResultTable r = systems.filter("scenario", sc);
            double tunerMiss = median(r, TUNER, "miss_rate");
            double tunerCost = median(r, TUNER, "device_seconds");
            if (!sc.equals("oscillating")) {
                double b = median(r, "Planner-Base", "miss_rate");
                baseMisses.add(String.format(Locale.ROOT, "%s %.2f %%", sc, 100 * b));
                if (!(b > baseMiss)) baseBroken.add(sc);
                double tail = median(r, TUNER, "hold_tail_miss_rate");
                recovered.add(String.format(Locale.ROOT, "%s %.2f %%", sc, 100 * tail));
                if (!(tail <= tunerTarget)) recoveredBroken.add(sc);
            }
            within.add(String.format(Locale.ROOT, "%s %.2f %%", sc, 100 * tunerMiss));
            if (!(tunerMiss <= tunerTarget)) withinBroken.add(sc);
            double peak = median(r, "Static-Peak", "device_seconds");
            double oracle = median(r, "Planner-Oracle", "device_seconds");
            double best = median(r, TUNER, "ideal_device_seconds");
            cheaper.add(String.format(Locale.ROOT, "%s %.0f vs %.0f (%.0f %% fewer; a follower that knew the rate each second: %.0f, %.0f %% fewer)", sc,
                    tunerCost, peak, 100 * (1 - tunerCost / peak), best, 100 * (1 - best / peak)));
            if (!(tunerCost <= (1 - saving) * peak)) cheaperBroken.add(sc);
            oracleCost.add(String.format(Locale.ROOT, "%s %.0f vs %.0f", sc, tunerCost, oracle));
            if (!(tunerCost < oracle)) oracleBroken.add(sc);
            double longCost = median(r, TUNER_LONG, "device_seconds");
            double longMiss = median(r, TUNER_LONG, "miss_rate");
            windows.add(String.format(Locale.ROOT, "%s %.0f vs %.0f device-s, misses %.2f %% vs %.2f %%", sc, tunerCost, longCost, 100 * tunerMiss, 100 * longMiss));
            List<String> vs = new ArrayList<>();
            boolean ok = true;
            for (String other : List.of("Ray Serve", "Knative KPA")) {
                double m = median(r, other, "miss_rate");
                double c = median(r, other, "device_seconds");
                int missOrder = order(r, other, "miss_rate");
                int costOrder = order(r, other, "device_seconds");
                vs.add(String.format(Locale.ROOT, "%s %.2f %% at %.0f (misses %s, device-seconds %s)", other, 100 * m, c, standing(missOrder), standing(costOrder)));
                if (missOrder < 0 || costOrder < 0 || (missOrder == 0 && costOrder == 0)) ok = false;
            }
            better.add(String.format(Locale.ROOT, "%s: tuner %.2f %% at %.0f device-s, %s", sc, 100 * tunerMiss, tunerCost, String.join(", ", vs)));
            if (!ok) betterBroken.add(sc);
        }
        claims.add(new Experiment.Claim("Planner-Base misses many SLOs when the load rises (Fig 11): over 1 % on every ramp",
                verdict(baseBroken), String.join("; ", baseMisses)));
        claims.add(new Experiment.Claim("Planner+Tuner misses at most 1 % (its P99 target) on every scenario", verdict(withinBroken), String.join("; ", within)));
        claims.add(new Experiment.Claim("Planner+Tuner has recovered by the last minute of each ramp's peak (fast ramps spike briefly, Fig 11): at most 1 % missed there",
                verdict(recoveredBroken), String.join("; ", recovered)));
        claims.add(new Experiment.Claim("Issue 24: Planner+Tuner uses at least 30 % fewer device-seconds than static peak provisioning (Static-Peak)",
                verdict(cheaperBroken), String.join("; ", cheaper)));
        claims.add(new Experiment.Claim("Planner-Oracle, provisioned for the whole trace, costs more than Planner+Tuner (Fig 11), device-seconds",
                verdict(oracleBroken), String.join("; ", oracleCost)));
        claims.add(new Experiment.Claim("Windows of 1 and 5 minutes besides cost device-seconds (they hold a past peak's replicas): default against long windows",
                Experiment.Claim.Verdict.SKIP, String.join("; ", windows)));
        claims.add(new Experiment.Claim("Issue 24: Planner+Tuner misses less than Ray Serve's and Knative's autoscalers at equal or fewer device-seconds (ties by the seeds' ranges: no more of either and fewer of one)",
                verdict(betterBroken), String.join("; ", better)));
        ResultTable osc = systems.filter("scenario", "oscillating").filter("system", TUNER);
        if (osc.rows().isEmpty()) {
            claims.add(new Experiment.Claim("No thrashing on the oscillating load (Fig 12)", Experiment.Claim.Verdict.SKIP, "no oscillating run"));
        } else {
            double reversals = osc.median("reversals_within_15s", Map.of());
            claims.add(new Experiment.Claim("No thrashing on the oscillating load (Fig 12): no change reversed within 15 s",
                    reversals <= reversalsAllowed ? Experiment.Claim.Verdict.PASS : Experiment.Claim.Verdict.FAIL,
                    String.format(Locale.ROOT, "%.1f changes, %.1f reversals within 15 s (medians)", osc.median("changes", Map.of()), reversals)));
        }
        return claims;
    }

    /** The median over seeds of {@code metric} for {@code system} in a scenario's rows. */
    private static double median(ResultTable scenario, String system, String metric) {
        return scenario.median(metric, Map.of("system", system));
    }

    /**
     * +1 where the tuner has less of {@code metric} than {@code other}, -1 where more, 0 where the
     * seeds' ranges overlap: a tie, as {@link PolicyComparison} judges one.
     */
    private static int order(ResultTable scenario, String other, String metric) {
        if (PolicyComparison.tie(scenario.range(metric, Map.of("system", TUNER)), scenario.range(metric, Map.of("system", other)))) return 0;
        return Double.compare(median(scenario, other, metric), median(scenario, TUNER, metric));
    }

    private static String standing(int order) {
        return order > 0 ? "fewer" : order < 0 ? "more" : "a tie";
    }

    private static Experiment.Claim.Verdict verdict(List<String> broken) {
        return broken.isEmpty() ? Experiment.Claim.Verdict.PASS : Experiment.Claim.Verdict.FAIL;
    }

    private static String pct(String share) {
        return share.isEmpty() ? "" : String.format(Locale.ROOT, "%.2f %%", 100 * Double.parseDouble(share));
    }

    private static <T> T get(Future<T> f) throws InterruptedException {
        try {
            return f.get();
        } catch (ExecutionException e) {
            throw new IllegalStateException("a run failed: " + e.getCause(), e.getCause());
        }
    }
}
