package io.kairos.testbed.experiment;

import io.kairos.tools.options.ProgressOption;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code experiment NAME}: runs a policy experiment on the simulator (every policy unless
 * {@code --policies} says otherwise), writes its results, table, figures and shape check into the
 * output folder, and prints the table. Every argument is checked before anything runs.
 */
@Command(name = "experiment", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Run a policy experiment on the simulator: results.csv, figures (PNG), attainment table and shape check.")
public class ExperimentCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "NAME", description = "The experiment: ${COMPLETION-CANDIDATES}.", completionCandidates = Names.class)
    String name;

    @Option(names = "--out", paramLabel = "DIR", description = "Output folder (default: testbed/experiments/NAME in the checkout).")
    Path out;

    @Option(names = "--duration-s", paramLabel = "N", description = "Simulated seconds per run (default: the experiment's).")
    Double durationSeconds;

    @Option(names = "--warmup-s", paramLabel = "N", description = "Simulated seconds at the start of a run that are not counted (default: the experiment's share of the duration).")
    Double warmupSeconds;

    /** Seeds of an experiment that names none of its own: every simulated figure reports at least three (a median and its range). */
    static final int DEFAULT_SEEDS = 3;

    @Option(names = "--seeds", paramLabel = "N", description = "Runs per point and policy, seeds 1..N; tables and figures take the median (default: the experiment's).")
    Integer seeds;

    @Option(names = "--policies", split = ",", paramLabel = "NAME", description = "Policies to run (default: every registered policy).")
    List<String> policies;

    @Option(names = "--invocation", paramLabel = "WHEN", description = "When the policy is asked: 'events' (on every arrival, batch end and wake-up, as the job does) or a period such as 1ms (as the RL thesis invokes its agent) (default: events).")
    String invocation;

    @Option(names = "--triton-grid", negatable = true, description = "Run triton with each setting of its grid (max queue delay x preferred batch sizes) and keep the best at each point; --no-triton-grid: once with its defaults (default: the experiment's; azure runs it once, its hour x 15 settings being most of an hour of CPU).")
    Boolean tritonGrid;

    @Option(names = "--threads", paramLabel = "N", description = "Simulations run at once (default: the machine's available processors).")
    int threads = Runtime.getRuntime().availableProcessors();

    @Option(names = "--redraw", description = "Simulate nothing: print the table, check and draw again from DIR/results.csv.")
    boolean redraw;

    @Option(names = "--window-only", description = "rl only: simulate Fig 6.1 (two SLO types, one a window) alone, then report every part from the results already written.")
    boolean windowOnly;

    @Option(names = "--azure-only", description = "rl only: simulate the Azure run alone, then report every part from the results already written.")
    boolean azureOnly;

    @Option(names = "--azure-profiles", paramLabel = "PROFILES", description = "azure and rl: the 61 models' latency profiles: 'zoo' (each model its own, azure/models.json) or 'resnet50' (every instance ResNet50's) (default: zoo).")
    String azureProfiles;

    @Option(names = "--load-scale", paramLabel = "X", description = "placement-scale only: the example models' measured loads (0.4, 1.1, 5.5 ms) times this (default: 10).")
    Double loadScale;

    @CommandLine.Mixin
    ProgressOption progress = new ProgressOption();

    @CommandLine.Mixin
    HerdOptions herd = new HerdOptions();

    @Override
    public Integer call() throws Exception {
        CommandLine cl = spec.commandLine();
        if (loadScale != null && !PlacementScaleExperiment.NAME.equals(name)) throw new ParameterException(cl, "--load-scale applies to experiment " + PlacementScaleExperiment.NAME + " only");
        if (windowOnly && !RlExperiment.NAME.equals(name)) throw new ParameterException(cl, "--window-only applies to experiment " + RlExperiment.NAME + " only");
        if (azureOnly && !RlExperiment.NAME.equals(name)) throw new ParameterException(cl, "--azure-only applies to experiment " + RlExperiment.NAME + " only");
        if (azureOnly && windowOnly) throw new ParameterException(cl, "--azure-only and --window-only each run one part; give one");
        if (azureProfiles != null && !AzureExperiment.NAME.equals(name) && !RlExperiment.NAME.equals(name)) {
            throw new ParameterException(cl, "--azure-profiles applies to experiments " + AzureExperiment.NAME + " and " + RlExperiment.NAME + " only");
        }
        if (HerdExperiment.NAME.equals(name)) return herd(cl);
        if (herd.any()) throw new ParameterException(cl, "--devices, --cv2, --loads, --max-group and --time-limit-s apply to experiment herd only");
        if (SmdpGuardExperiment.NAME.equals(name)) return smdpGuard(cl);
        if (InferLineExperiment.NAME.equals(name)) return inferline(cl);
        if (RlExperiment.NAME.equals(name)) return rl(cl);
        if (TunerExperiment.NAME.equals(name)) return tuner(cl);
        if (PlacementExperiment.NAME.equals(name)) return placement(cl);
        if (PlacementScaleExperiment.NAME.equals(name)) return placementScale(cl);
        if (Experiments.isAnalytic(name)) return analytic(cl);
        Experiment experiment;
        try {
            experiment = AzureExperiment.NAME.equals(name) ? new AzureExperiment(azureProfiles(cl)) : Experiments.create(name);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(cl, e.getMessage());
        }
        Settings settings = settings(cl, experiment.defaults());
        if (threads < 1) throw new ParameterException(cl, "--threads must be at least 1, got " + threads);
        Path dir = out != null ? out : defaultOut(name);
        if (Files.exists(dir) && !Files.isDirectory(dir)) throw new ParameterException(cl, "--out: " + dir + " is not a folder");

        PrintWriter w = cl.getOut();
        ExperimentRunner runner = new ExperimentRunner(threads, !progress.noProgress, w);
        if (redraw) {
            Path csv = dir.resolve(ExperimentRunner.RESULTS);
            if (!Files.isRegularFile(csv)) throw new ParameterException(cl, "--redraw: no " + csv + "; run the experiment first");
            runner.report(experiment, ResultTable.read(csv), dir, Double.NaN);
        } else {
            runner.run(experiment, settings, dir);
        }
        return 0;
    }

    /** {@code experiment smdp}: solved, and simulated with the paper's settings (see SmdpExperiment); the sweep's flags have nothing to set. */
    private Integer analytic(CommandLine cl) throws Exception {
        Map<String, Object> simulationOnly = new java.util.LinkedHashMap<>();
        simulationOnly.put("--duration-s", durationSeconds);
        simulationOnly.put("--warmup-s", warmupSeconds);
        simulationOnly.put("--seeds", seeds);
        simulationOnly.put("--policies", policies);
        simulationOnly.put("--invocation", invocation);
        simulationOnly.put("--[no-]triton-grid", tritonGrid);
        for (Map.Entry<String, Object> e : simulationOnly.entrySet()) {
            if (e.getValue() != null) throw new ParameterException(cl, e.getKey() + " does not apply to experiment " + name + ", which solves the paper's model and simulates it with the paper's own settings");
        }
        if (threads < 1) throw new ParameterException(cl, "--threads must be at least 1, got " + threads);
        Path dir = out != null ? out : defaultOut(name);
        if (Files.exists(dir) && !Files.isDirectory(dir)) throw new ParameterException(cl, "--out: " + dir + " is not a folder");
        SmdpExperiment experiment = new SmdpExperiment(threads, !progress.noProgress, cl.getOut());
        if (redraw) {
            if (!Files.isRegularFile(dir.resolve(SmdpExperiment.FIG8_CSV))) throw new ParameterException(cl, "--redraw: no " + dir.resolve(SmdpExperiment.FIG8_CSV) + "; run the experiment first");
            experiment.report(dir);
        } else {
            experiment.run(dir);
        }
        return 0;
    }

    /**
     * {@code experiment smdp-guard}: simulated, with its own loads and policy (the smdp table with
     * and without its guard); duration, warm-up, seeds, threads and the output folder apply.
     */
    private Integer smdpGuard(CommandLine cl) throws Exception {
        if (policies != null) throw new ParameterException(cl, "--policies does not apply to experiment " + name + ", which runs the smdp policy with and without its guard");
        if (invocation != null) throw new ParameterException(cl, "--invocation does not apply to experiment " + name + ", which invokes on events as the SMDP does");
        if (redraw) throw new ParameterException(cl, "--redraw does not apply to experiment " + name);
        if (threads < 1) throw new ParameterException(cl, "--threads must be at least 1, got " + threads);
        Settings s = settings(cl, new Settings(60, 5, 3, List.of("smdp"), Settings.parseInvocation("events")));
        Path dir = out != null ? out : defaultOut(name);
        if (Files.exists(dir) && !Files.isDirectory(dir)) throw new ParameterException(cl, "--out: " + dir + " is not a folder");
        new SmdpGuardExperiment(s.durationSeconds(), s.warmupSeconds(), s.seeds(), threads, cl.getOut()).run(dir);
        return 0;
    }

    /**
     * {@code experiment inferline}: the planner on the four pipelines' simulated profiles;
     * {@code --duration-s} is the length of each generated trace (default 600), {@code --seeds} the
     * traces per point (default 3); threads, the output folder and {@code --redraw} apply.
     */
    private Integer inferline(CommandLine cl) throws Exception {
        if (policies != null) throw new ParameterException(cl, "--policies does not apply to experiment " + name + ", whose stages run InferLine's central batched queue (triton)");
        if (invocation != null) throw new ParameterException(cl, "--invocation does not apply to experiment " + name + ", which invokes on events");
        if (warmupSeconds != null) throw new ParameterException(cl, "--warmup-s does not apply to experiment " + name + ": the planner counts every request of its trace");
        if (tritonGrid != null) throw new ParameterException(cl, "--[no-]triton-grid does not apply to experiment " + name);
        if (threads < 1) throw new ParameterException(cl, "--threads must be at least 1, got " + threads);
        double duration = durationSeconds != null ? durationSeconds : 600;
        if (!(duration > 0) || Double.isInfinite(duration)) throw new ParameterException(cl, "--duration-s must be a positive number of seconds, got " + duration);
        int runs = seeds != null ? seeds : DEFAULT_SEEDS;
        if (runs < 1) throw new ParameterException(cl, "--seeds must be at least 1, got " + runs);
        Path dir = out != null ? out : defaultOut(name);
        if (Files.exists(dir) && !Files.isDirectory(dir)) throw new ParameterException(cl, "--out: " + dir + " is not a folder");
        InferLineExperiment experiment = new InferLineExperiment(duration, runs, threads, !progress.noProgress, cl.getOut());
        if (redraw) {
            if (!Files.isRegularFile(dir.resolve(InferLineExperiment.PLANS_CSV))) throw new ParameterException(cl, "--redraw: no " + dir.resolve(InferLineExperiment.PLANS_CSV) + "; run the experiment first");
            experiment.report(dir);
        } else {
            experiment.run(dir);
        }
        return 0;
    }

    /**
     * {@code experiment rl}: the trained networks and the random agent on the low-SLO sweep and the
     * Azure run, and the training curves (see RlExperiment); {@code --duration-s}, {@code --warmup-s}
     * and {@code --seeds} set the sweep's runs (default 10 s, 2 s, 1 seed), the Azure run simulates
     * its first {@value #RL_AZURE_SECONDS} s; threads, the output folder and {@code --redraw} apply.
     */
    private Integer rl(CommandLine cl) throws Exception {
        if (policies != null) throw new ParameterException(cl, "--policies does not apply to experiment " + name + ", which runs its agents (the networks, random, kairos, clockwork)");
        if (invocation != null) throw new ParameterException(cl, "--invocation does not apply to experiment " + name + ": the agents are invoked every 1 ms, kairos and clockwork on events");
        if (tritonGrid != null) throw new ParameterException(cl, "--[no-]triton-grid does not apply to experiment " + name);
        if (threads < 1) throw new ParameterException(cl, "--threads must be at least 1, got " + threads);
        double duration = durationSeconds != null ? durationSeconds : 10;
        if (!(duration > 0) || Double.isInfinite(duration)) throw new ParameterException(cl, "--duration-s must be a positive number of seconds, got " + duration);
        double warmup = warmupSeconds != null ? warmupSeconds : Math.min(2, duration / 5);
        if (!(warmup >= 0) || warmup >= duration) throw new ParameterException(cl, "--warmup-s must be at least 0 and shorter than the duration (" + duration + " s), got " + warmup);
        int runs = seeds != null ? seeds : 1;
        if (runs < 1) throw new ParameterException(cl, "--seeds must be at least 1, got " + runs);
        Path dir = out != null ? out : defaultOut(name);
        if (Files.exists(dir) && !Files.isDirectory(dir)) throw new ParameterException(cl, "--out: " + dir + " is not a folder");
        RlExperiment experiment = new RlExperiment(defaultOut(name), duration, warmup, RL_AZURE_SECONDS, runs, threads, !progress.noProgress, cl.getOut(),
                azureProfiles(cl));
        if (redraw || windowOnly || azureOnly) {
            String flag = redraw ? "--redraw" : windowOnly ? "--window-only" : "--azure-only";
            for (Path p : List.of(dir.resolve(RlExperiment.SWEEP).resolve(ExperimentRunner.RESULTS), dir.resolve(RlExperiment.AZURE).resolve(ExperimentRunner.RESULTS),
                    dir.resolve(RlExperiment.TRAINING_CSV))) {
                if (!Files.isRegularFile(p)) throw new ParameterException(cl, flag + ": no " + p + "; run the experiment first");
            }
            try {
                if (windowOnly && !redraw) experiment.runWindow(dir);
                if (azureOnly && !redraw) experiment.runAzure(dir);
            } catch (RlExperiment.NotTrained e) {
                throw new ParameterException(cl, e.getMessage());
            }
            experiment.report(dir);
        } else {
            try {
                experiment.run(dir);
            } catch (RlExperiment.NotTrained e) {
                throw new ParameterException(cl, e.getMessage());
            }
        }
        return 0;
    }

    private AzureExperiment.Profiles azureProfiles(CommandLine cl) {
        if (azureProfiles == null) return AzureExperiment.Profiles.ZOO;
        for (AzureExperiment.Profiles p : AzureExperiment.Profiles.values()) {
            if (p.label().equals(azureProfiles)) return p;
        }
        throw new ParameterException(cl, "--azure-profiles must be zoo or resnet50, got '" + azureProfiles + "'");
    }

    /** Simulated seconds of {@code experiment rl}'s Azure run: every agent decides every 1 ms on each of 12 devices. */
    static final int RL_AZURE_SECONDS = 30;

    /**
     * {@code experiment tuner}: the tuner against its planner alone, static peak provisioning and
     * two autoscalers on ramps and an oscillating load; {@code --duration-s} is the length of each
     * trace (default 600), {@code --seeds} the traces per scenario (default 3); threads, the output folder and
     * {@code --redraw} apply.
     */
    private Integer tuner(CommandLine cl) throws Exception {
        if (policies != null) throw new ParameterException(cl, "--policies does not apply to experiment " + name + ", whose stages run InferLine's central batched queue (triton)");
        if (invocation != null) throw new ParameterException(cl, "--invocation does not apply to experiment " + name + ", which invokes on events");
        if (warmupSeconds != null) throw new ParameterException(cl, "--warmup-s does not apply to experiment " + name + ": every request of the trace counts");
        if (tritonGrid != null) throw new ParameterException(cl, "--[no-]triton-grid does not apply to experiment " + name);
        if (threads < 1) throw new ParameterException(cl, "--threads must be at least 1, got " + threads);
        double duration = durationSeconds != null ? durationSeconds : 600;
        if (!(duration >= 480) || Double.isInfinite(duration)) {
            throw new ParameterException(cl, "--duration-s must be at least 480 s for experiment " + name + " (its start, ramps and peak take that long), got " + duration);
        }
        int runs = seeds != null ? seeds : DEFAULT_SEEDS;
        if (runs < 1) throw new ParameterException(cl, "--seeds must be at least 1, got " + runs);
        Path dir = out != null ? out : defaultOut(name);
        if (Files.exists(dir) && !Files.isDirectory(dir)) throw new ParameterException(cl, "--out: " + dir + " is not a folder");
        TunerExperiment experiment = new TunerExperiment(duration, runs, threads, !progress.noProgress, cl.getOut());
        if (redraw) {
            if (!Files.isRegularFile(dir.resolve(TunerExperiment.SYSTEMS_CSV))) throw new ParameterException(cl, "--redraw: no " + dir.resolve(TunerExperiment.SYSTEMS_CSV) + "; run the experiment first");
            experiment.report(dir);
        } else {
            experiment.run(dir);
        }
        return 0;
    }

    /**
     * {@code experiment placement}: the model-aware scheduling thesis' experiments, each a few
     * requests on its own setup (see PlacementExperiment); the output folder and {@code --redraw}
     * apply.
     */
    private Integer placement(CommandLine cl) throws Exception {
        Map<String, Object> sweepOnly = new java.util.LinkedHashMap<>();
        sweepOnly.put("--duration-s", durationSeconds);
        sweepOnly.put("--warmup-s", warmupSeconds);
        sweepOnly.put("--seeds", seeds);
        sweepOnly.put("--policies", policies);
        sweepOnly.put("--invocation", invocation);
        sweepOnly.put("--[no-]triton-grid", tritonGrid);
        for (Map.Entry<String, Object> e : sweepOnly.entrySet()) {
            if (e.getValue() != null) throw new ParameterException(cl, e.getKey() + " does not apply to experiment " + name + ", which runs the thesis' request sequences with the kairos policy and each placement");
        }
        Path dir = out != null ? out : defaultOut(name);
        if (Files.exists(dir) && !Files.isDirectory(dir)) throw new ParameterException(cl, "--out: " + dir + " is not a folder");
        PlacementExperiment experiment = new PlacementExperiment(cl.getOut());
        if (redraw) {
            if (!Files.isRegularFile(dir.resolve(PlacementExperiment.TABLES_CSV))) throw new ParameterException(cl, "--redraw: no " + dir.resolve(PlacementExperiment.TABLES_CSV) + "; run the experiment first");
            experiment.report(dir);
        } else {
            experiment.run(dir);
        }
        return 0;
    }

    /**
     * {@code experiment placement-scale}: Kairos' placements against emulated Ray Serve and
     * ModelMesh on an Azure-like trace (see PlacementScaleExperiment); {@code --duration-s} is the
     * trace's length (whole minutes, default 600), {@code --warmup-s} the part not counted (default
     * a tenth), {@code --seeds} the traces per system (default 3; the summary takes the median);
     * threads, the output folder and {@code --redraw} apply.
     */
    private Integer placementScale(CommandLine cl) throws Exception {
        if (policies != null) throw new ParameterException(cl, "--policies does not apply to experiment " + name + ", which runs the kairos policy with each placement and baseline");
        int runs = seeds != null ? seeds : DEFAULT_SEEDS;
        if (runs < 1) throw new ParameterException(cl, "--seeds must be at least 1, got " + runs);
        if (invocation != null) throw new ParameterException(cl, "--invocation does not apply to experiment " + name + ", which invokes on events");
        if (tritonGrid != null) throw new ParameterException(cl, "--[no-]triton-grid does not apply to experiment " + name);
        if (threads < 1) throw new ParameterException(cl, "--threads must be at least 1, got " + threads);
        double duration = durationSeconds != null ? durationSeconds : 600;
        if (!(duration >= 120) || Double.isInfinite(duration) || duration % 60 != 0) {
            throw new ParameterException(cl, "--duration-s must be whole minutes of trace, at least 120, for experiment " + name + ", got " + duration);
        }
        double warmup = warmupSeconds != null ? warmupSeconds : duration / 10;
        if (!(warmup >= 0) || warmup >= duration || warmup % 60 != 0) {
            throw new ParameterException(cl, "--warmup-s must be whole minutes shorter than the trace for experiment " + name + ", got " + warmup);
        }
        double scale = loadScale != null ? loadScale : 10;
        if (!(scale > 0) || Double.isInfinite(scale)) throw new ParameterException(cl, "--load-scale must be a positive number, got " + scale);
        Path dir = out != null ? out : defaultOut(name);
        if (Files.exists(dir) && !Files.isDirectory(dir)) throw new ParameterException(cl, "--out: " + dir + " is not a folder");
        PlacementScaleExperiment experiment = new PlacementScaleExperiment((int) (duration / 60), (int) (warmup / 60), scale, runs, threads, !progress.noProgress, cl.getOut());
        if (redraw) {
            if (!Files.isRegularFile(dir.resolve(PlacementScaleExperiment.RESULTS_CSV))) throw new ParameterException(cl, "--redraw: no " + dir.resolve(PlacementScaleExperiment.RESULTS_CSV) + "; run the experiment first");
            experiment.report(dir);
        } else {
            experiment.run(dir);
        }
        return 0;
    }

    /**
     * {@code experiment herd}: Herd's groups against the other divisions of a cluster (see
     * HerdExperiment); the sweep's flags, duration, seeds, threads, the output folder and
     * {@code --redraw} apply.
     */
    private Integer herd(CommandLine cl) throws Exception {
        if (policies != null) throw new ParameterException(cl, "--policies does not apply to experiment " + name + ", whose systems each run their own policy");
        if (invocation != null) throw new ParameterException(cl, "--invocation does not apply to experiment " + name + ", which invokes on events");
        if (warmupSeconds != null) throw new ParameterException(cl, "--warmup-s does not apply to experiment " + name + ": a tenth of each run is warm-up");
        if (tritonGrid != null) throw new ParameterException(cl, "--[no-]triton-grid does not apply to experiment " + name);
        if (threads < 1) throw new ParameterException(cl, "--threads must be at least 1, got " + threads);
        HerdExperiment.Sweep d = HerdExperiment.Sweep.DEFAULT;
        double duration = durationSeconds != null ? durationSeconds : d.durationSeconds();
        if (!(duration > 0) || Double.isInfinite(duration)) throw new ParameterException(cl, "--duration-s must be a positive number of seconds, got " + duration);
        int runs = seeds != null ? seeds : d.seeds();
        if (runs < 1) throw new ParameterException(cl, "--seeds must be at least 1, got " + runs);
        List<Integer> devices = herd.devices != null ? herd.devices : d.devices();
        for (int n : devices) if (n < 2) throw new ParameterException(cl, "--devices: each cluster needs at least 2 devices, got " + n);
        List<Double> cv2s = herd.cv2s != null ? herd.cv2s : d.cv2s();
        for (double c : cv2s) if (!(c > 0) || Double.isInfinite(c)) throw new ParameterException(cl, "--cv2: must be positive (1 is Poisson), got " + c);
        List<Double> loads = herd.loads != null ? herd.loads : d.loads();
        for (double l : loads) if (!(l > 0) || Double.isInfinite(l)) throw new ParameterException(cl, "--loads: must be a positive share of capacity, got " + l);
        if (herd.maxGroup != null && herd.maxGroup < 1) throw new ParameterException(cl, "--max-group must be at least 1, got " + herd.maxGroup);
        double limit = herd.timeLimitSeconds != null ? herd.timeLimitSeconds : d.timeLimit().toMillis() / 1000.0;
        if (!(limit > 0) || Double.isInfinite(limit)) throw new ParameterException(cl, "--time-limit-s must be a positive number of seconds, got " + limit);
        Path dir = out != null ? out : defaultOut(name);
        if (Files.exists(dir) && !Files.isDirectory(dir)) throw new ParameterException(cl, "--out: " + dir + " is not a folder");
        HerdExperiment experiment = new HerdExperiment(new HerdExperiment.Sweep(devices, cv2s, loads, herd.maxGroup, duration, runs,
                java.time.Duration.ofMillis(Math.round(limit * 1000))), threads, !progress.noProgress, cl.getOut());
        if (redraw) {
            if (!Files.isRegularFile(dir.resolve(HerdExperiment.RESULTS_CSV))) throw new ParameterException(cl, "--redraw: no " + dir.resolve(HerdExperiment.RESULTS_CSV) + "; run the experiment first");
            experiment.report(dir);
        } else {
            experiment.run(dir);
        }
        return 0;
    }

    private static final Map<String, String> FLAGS = Map.of(
            Settings.Invalid.DURATION, "--duration-s", Settings.Invalid.WARMUP, "--warmup-s", Settings.Invalid.SEEDS, "--seeds",
            Settings.Invalid.POLICIES, "--policies", Settings.Invalid.INVOCATION, "--invocation");

    /** The experiment's defaults with what the command line gives instead; a bad value names its flag. */
    private Settings settings(CommandLine cl, Settings defaults) {
        try {
            double duration = durationSeconds != null ? durationSeconds : defaults.durationSeconds();
            // A new duration alone keeps the experiment's share of warm-up (5 of 30 s: a sixth).
            double warmup = warmupSeconds != null ? warmupSeconds : defaults.warmupSeconds() * duration / defaults.durationSeconds();
            return new Settings(duration, warmup,
                    seeds != null ? seeds : defaults.seeds(),
                    policies != null ? policies.stream().map(String::trim).toList() : defaults.policies(),
                    invocation != null ? Settings.parseInvocation(invocation) : defaults.invocation(),
                    tritonGrid != null ? tritonGrid : defaults.tritonGrid());
        } catch (Settings.Invalid e) {
            throw new ParameterException(cl, FLAGS.get(e.setting()) + ": " + e.getMessage());
        }
    }

    /** {@code testbed/experiments/NAME} of the checkout {@code bin/kairos} runs from, else of the working folder. */
    static Path defaultOut(String name) {
        String home = System.getProperty("kairos.home");
        Path root = home == null ? Path.of("") : Path.of(home);
        return root.resolve("testbed").resolve("experiments").resolve(name);
    }

    static final class Names implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return Experiments.names().iterator();
        }
    }

    static {
        // The figures are drawn off screen.
        System.setProperty("java.awt.headless", "true");
    }
}
