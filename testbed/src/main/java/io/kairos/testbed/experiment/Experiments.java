package io.kairos.testbed.experiment;

import io.kairos.core.scheduling.learned.PolicyNetwork;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Every experiment as the command line runs it, one {@link ExperimentSubcommand} each, in the
 * order {@code experiment --help} lists them: the policy sweeps ({@link Experiment}, run by
 * {@link ExperimentRunner}), then the experiments that run their own way. To add one: write its
 * subcommand here (the common options it accepts as mixins, its own as fields) and list it in
 * {@link #all}.
 */
public final class Experiments {
    private Experiments() {}

    /** A fresh subcommand of every experiment (picocli fills a subcommand's fields in place). */
    public static List<ExperimentSubcommand> all() {
        return List.of(new Sweep(LowSloExperiment.NAME, LowSloExperiment.DESCRIPTION, LowSloExperiment::new), new Azure(),
                new Sweep(BurstyExperiment.NAME, BurstyExperiment.DESCRIPTION, BurstyExperiment::new),
                new Sweep(BurstyExperiment.ZOO_CPU_NAME, BurstyExperiment.ZOO_CPU_DESCRIPTION, BurstyExperiment::onZooCpu),
                new Sweep(HotModelExperiment.NAME, HotModelExperiment.DESCRIPTION, HotModelExperiment::new), new Smdp(), new SmdpGuard(), new InferLine(), new Rl(), new Tuner(), new Placement(),
                new PlacementScale(), new Herd());
    }

    /** Every experiment's name. */
    public static List<String> names() {
        return all().stream().map(ExperimentSubcommand::name).toList();
    }

    /**
     * A policy sweep ({@link Experiment}): every common option applies, each default the
     * experiment's. The experiment is made only when the command runs (the zoo's reads its profile).
     */
    static class Sweep extends ExperimentSubcommand {
        private final String name;
        private final String description;
        private final Supplier<Experiment> make;

        @Mixin
        Length length = new Length();
        @Mixin
        Warmup warmup = new Warmup();
        @Mixin
        PolicyChoice choice = new PolicyChoice();
        @Mixin
        Redraw redraw = new Redraw();

        Sweep(String name, String description, Supplier<Experiment> make) {
            this.name = name;
            this.description = description;
            this.make = make;
        }

        /** The experiment to run, with this command line's own options; one that cannot be made (a missing profile) is one line. */
        Experiment experiment(CommandLine cl) {
            try {
                return make.get();
            } catch (IllegalArgumentException e) {
                throw new ParameterException(cl, e.getMessage());
            }
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public String description() {
            return description;
        }

        @Override
        protected Run prepare(CommandLine cl) {
            Experiment experiment = experiment(cl);
            Settings settings = settings(cl, experiment.defaults());
            ExperimentRunner runner = new ExperimentRunner(threads, progress(), cl.getOut());
            return new Run(dir -> runner.run(experiment, settings, dir),
                    dir -> runner.report(experiment, ResultTable.read(dir.resolve(ExperimentRunner.RESULTS)), dir, Double.NaN));
        }

        @Override
        protected boolean redraw() {
            return redraw.redraw;
        }

        @Override
        protected List<Path> written(Path dir) {
            return List.of(dir.resolve(ExperimentRunner.RESULTS));
        }

        private static final Map<String, String> FLAGS = Map.of(
                Settings.Invalid.DURATION, "--duration-s", Settings.Invalid.WARMUP, "--warmup-s", Settings.Invalid.SEEDS, "--seeds",
                Settings.Invalid.POLICIES, "--policies", Settings.Invalid.INVOCATION, "--invocation");

        /** The experiment's defaults with what the command line gives instead; a bad value names its flag. */
        private Settings settings(CommandLine cl, Settings defaults) {
            try {
                double duration = length.durationSeconds != null ? length.durationSeconds : defaults.durationSeconds();
                // A new duration alone keeps the experiment's share of warm-up (5 of 30 s: a sixth).
                double warmupSeconds = warmup.warmupSeconds != null ? warmup.warmupSeconds : defaults.warmupSeconds() * duration / defaults.durationSeconds();
                return new Settings(duration, warmupSeconds,
                        length.seeds != null ? length.seeds : defaults.seeds(),
                        choice.policies != null ? choice.policies.stream().map(String::trim).toList() : defaults.policies(),
                        choice.invocation != null ? Settings.parseInvocation(choice.invocation) : defaults.invocation(),
                        choice.tritonGrid != null ? choice.tritonGrid : defaults.tritonGrid());
            } catch (Settings.Invalid e) {
                throw new ParameterException(cl, FLAGS.get(e.setting()) + ": " + e.getMessage());
            }
        }
    }

    /** Which latency profiles the Azure trace's models have: azure's and rl's. */
    static final class AzureProfiles {
        @Option(names = "--azure-profiles", paramLabel = "PROFILES", description = "The 61 models' latency profiles: 'zoo' (each model its own, azure/models.json) or 'resnet50' (every instance ResNet50's) (default: zoo).")
        String azureProfiles;

        AzureExperiment.Profiles profiles(CommandLine cl) {
            if (azureProfiles == null) return AzureExperiment.Profiles.ZOO;
            for (AzureExperiment.Profiles p : AzureExperiment.Profiles.values()) {
                if (p.label().equals(azureProfiles)) return p;
            }
            throw new ParameterException(cl, "--azure-profiles must be zoo or resnet50, got '" + azureProfiles + "'");
        }
    }

    /** {@code experiment azure}: the sweep with a choice of the models' profiles. */
    static final class Azure extends Sweep {
        @Mixin
        AzureProfiles profiles = new AzureProfiles();

        Azure() {
            super(AzureExperiment.NAME, AzureExperiment.DESCRIPTION, AzureExperiment::new);
        }

        @Override
        Experiment experiment(CommandLine cl) {
            return new AzureExperiment(profiles.profiles(cl));
        }
    }

    /** {@code experiment smdp}: solved, and simulated with the paper's settings (see SmdpExperiment); no sweep's flag has anything to set. */
    static final class Smdp extends ExperimentSubcommand {
        @Mixin
        Redraw redraw = new Redraw();

        @Override
        public String name() {
            return SmdpExperiment.NAME;
        }

        @Override
        public String description() {
            return SmdpExperiment.DESCRIPTION;
        }

        @Override
        protected Run prepare(CommandLine cl) {
            SmdpExperiment experiment = new SmdpExperiment(threads, progress(), cl.getOut());
            return new Run(experiment::run, experiment::report);
        }

        @Override
        protected boolean redraw() {
            return redraw.redraw;
        }

        @Override
        protected List<Path> written(Path dir) {
            return List.of(dir.resolve(SmdpExperiment.FIG8_CSV));
        }
    }

    /**
     * {@code experiment smdp-guard}: simulated, with its own loads and policy (the smdp table with
     * and without its guard); duration, warm-up and seeds apply; it has nothing to redraw.
     */
    static final class SmdpGuard extends ExperimentSubcommand {
        @Mixin
        Length length = new Length();
        @Mixin
        Warmup warmup = new Warmup();

        @Override
        public String name() {
            return SmdpGuardExperiment.NAME;
        }

        @Override
        public String description() {
            return SmdpGuardExperiment.DESCRIPTION;
        }

        @Override
        protected Run prepare(CommandLine cl) {
            double duration = length.duration(cl, 60);
            // The experiment's share of warm-up (5 of 60 s) when a new duration comes alone.
            double warmupSeconds = warmup.warmup(cl, duration, 5 * duration / 60);
            SmdpGuardExperiment experiment = new SmdpGuardExperiment(duration, warmupSeconds, length.seeds(cl, DEFAULT_SEEDS), threads, cl.getOut());
            return new Run(experiment::run, null);
        }
    }

    /**
     * {@code experiment inferline}: the planner on the four pipelines' simulated profiles;
     * {@code --duration-s} is the length of each generated trace (default 600), {@code --seeds} the
     * traces per point (default 3).
     */
    static final class InferLine extends ExperimentSubcommand {
        @Mixin
        Length length = new Length();
        @Mixin
        Redraw redraw = new Redraw();

        @Override
        public String name() {
            return InferLineExperiment.NAME;
        }

        @Override
        public String description() {
            return InferLineExperiment.DESCRIPTION;
        }

        private InferLineExperiment experiment(CommandLine cl) {
            return new InferLineExperiment(length.duration(cl, 600), length.seeds(cl, DEFAULT_SEEDS), threads, progress(), cl.getOut());
        }

        @Override
        protected Run prepare(CommandLine cl) {
            var experiment = experiment(cl);
            return new Run(experiment::run, experiment::report);
        }

        @Override
        protected boolean redraw() {
            return redraw.redraw;
        }

        @Override
        protected List<Path> written(Path dir) {
            return List.of(dir.resolve(InferLineExperiment.PLANS_CSV));
        }
    }

    /**
     * {@code experiment rl}: the trained networks and the random agent on the low-SLO sweep and the
     * Azure run, and the training curves (see RlExperiment); {@code --duration-s}, {@code --warmup-s}
     * set the sweep's and Fig 6.1's runs (default 10 s, 2 s), {@code --seeds} every part's (default
     * 3); the Azure run simulates its first {@value #AZURE_SECONDS} s.
     */
    static final class Rl extends ExperimentSubcommand {
        /** Simulated seconds of the Azure run: every agent decides every 1 ms on each of 12 devices. */
        static final int AZURE_SECONDS = 30;

        @Mixin
        Length length = new Length();
        @Mixin
        Warmup warmup = new Warmup();
        @Mixin
        Redraw redraw = new Redraw();
        @Mixin
        AzureProfiles profiles = new AzureProfiles();

        @Option(names = "--window-only", description = "Simulate Fig 6.1 (two SLO types, one a window) alone, then report every part from the results already written.")
        boolean windowOnly;

        @Option(names = "--azure-only", description = "Simulate the Azure run alone, then report every part from the results already written.")
        boolean azureOnly;

        @Option(names = "--network", paramLabel = "LABEL=FILE", description = "A network of your own beside the committed ones (a policy network file, "
                + "docs/learned-policy.md): it runs in the sweep and the Azure run as agent LABEL, and the sweep's targets judge it; repeatable.")
        Map<String, Path> networks = new LinkedHashMap<>();

        @Override
        public String name() {
            return RlExperiment.NAME;
        }

        @Override
        public String description() {
            return RlExperiment.DESCRIPTION;
        }

        @Override
        protected boolean redraw() {
            return redraw.redraw || windowOnly || azureOnly;
        }

        @Override
        protected List<Path> written(Path dir) {
            return List.of(dir.resolve(RlExperiment.SWEEP).resolve(ExperimentRunner.RESULTS), dir.resolve(RlExperiment.AZURE).resolve(ExperimentRunner.RESULTS),
                    dir.resolve(RlExperiment.TRAINING_CSV));
        }

        private RlExperiment experiment(CommandLine cl) {
            if (azureOnly && windowOnly) throw new ParameterException(cl, "--azure-only and --window-only each run one part; give one");
            double duration = length.duration(cl, 10);
            double warmupSeconds = warmup.warmup(cl, duration, Math.min(2, duration / 5));
            for (Map.Entry<String, Path> n : networks.entrySet()) {
                if (!n.getKey().matches("[a-z0-9][a-z0-9._-]*")) {
                    throw new ParameterException(cl, "--network: a label is lower-case letters, digits, '.', '_' and '-', got '" + n.getKey() + "'");
                }
                if (RlExperiment.agentLabels().contains(n.getKey())) {
                    throw new ParameterException(cl, "--network: '" + n.getKey() + "' is one of the experiment's own agents " + RlExperiment.agentLabels());
                }
                try {
                    PolicyNetwork.read(n.getValue());
                } catch (IllegalArgumentException e) {
                    throw new ParameterException(cl, "--network " + n.getKey() + ": " + e.getMessage());
                }
            }
            return new RlExperiment(ExperimentCommand.defaultOut(name()), duration, warmupSeconds, AZURE_SECONDS, length.seeds(cl, DEFAULT_SEEDS), threads, progress(),
                    cl.getOut(), profiles.profiles(cl), networks);
        }

        @Override
        protected String redrawFlag() {
            return redraw.redraw ? "--redraw" : windowOnly ? "--window-only" : "--azure-only";
        }

        /** A run as a whole; a report, which {@code --window-only} or {@code --azure-only} precede by simulating their part again. */
        @Override
        protected Run prepare(CommandLine cl) {
            RlExperiment experiment = experiment(cl);
            return new Run(dir -> trained(cl, () -> experiment.run(dir)), dir -> {
                if (windowOnly && !redraw.redraw) trained(cl, () -> experiment.runWindow(dir));
                if (azureOnly && !redraw.redraw) trained(cl, () -> experiment.runAzure(dir));
                experiment.report(dir);
            });
        }

        /** Runs {@code part}; a network not trained yet is one line, as a bad argument is. */
        private static void trained(CommandLine cl, Part part) throws Exception {
            try {
                part.run();
            } catch (RlExperiment.NotTrained e) {
                throw new ParameterException(cl, e.getMessage());
            }
        }

        private interface Part {
            void run() throws Exception;
        }
    }

    /**
     * {@code experiment tuner}: the tuner against its planner alone, static peak provisioning and
     * two autoscalers on ramps and an oscillating load; {@code --duration-s} is the length of each
     * trace (default 600), {@code --seeds} the traces per scenario (default 3).
     */
    static final class Tuner extends ExperimentSubcommand {
        @Mixin
        Length length = new Length();
        @Mixin
        Redraw redraw = new Redraw();

        @Override
        public String name() {
            return TunerExperiment.NAME;
        }

        @Override
        public String description() {
            return TunerExperiment.DESCRIPTION;
        }

        private TunerExperiment experiment(CommandLine cl) {
            double duration = length.durationSeconds != null ? length.durationSeconds : 600;
            if (!(duration >= 480) || Double.isInfinite(duration)) {
                throw new ParameterException(cl, "--duration-s must be at least 480 s for experiment " + name() + " (its start, ramps and peak take that long), got " + duration);
            }
            return new TunerExperiment(duration, length.seeds(cl, DEFAULT_SEEDS), threads, progress(), cl.getOut());
        }

        @Override
        protected Run prepare(CommandLine cl) {
            var experiment = experiment(cl);
            return new Run(experiment::run, experiment::report);
        }

        @Override
        protected boolean redraw() {
            return redraw.redraw;
        }

        @Override
        protected List<Path> written(Path dir) {
            return List.of(dir.resolve(TunerExperiment.SYSTEMS_CSV));
        }
    }

    /**
     * {@code experiment placement}: the model-aware scheduling thesis' experiments, each a few
     * requests on its own setup with the kairos policy and each placement (see PlacementExperiment).
     */
    static final class Placement extends ExperimentSubcommand {
        @Mixin
        Redraw redraw = new Redraw();

        @Override
        public String name() {
            return PlacementExperiment.NAME;
        }

        @Override
        public String description() {
            return PlacementExperiment.DESCRIPTION;
        }

        @Override
        protected Run prepare(CommandLine cl) {
            PlacementExperiment experiment = new PlacementExperiment(cl.getOut());
            return new Run(experiment::run, experiment::report);
        }

        @Override
        protected boolean redraw() {
            return redraw.redraw;
        }

        @Override
        protected List<Path> written(Path dir) {
            return List.of(dir.resolve(PlacementExperiment.TABLES_CSV));
        }
    }

    /**
     * {@code experiment placement-scale}: Kairos' placements against emulated Ray Serve and
     * ModelMesh on an Azure-like trace (see PlacementScaleExperiment); {@code --duration-s} is the
     * trace's length (whole minutes, default 600), {@code --warmup-s} the part not counted (default
     * a tenth), {@code --seeds} the traces per system (default 3; the summary takes the median).
     */
    static final class PlacementScale extends ExperimentSubcommand {
        @Mixin
        Length length = new Length();
        @Mixin
        Warmup warmup = new Warmup();
        @Mixin
        Redraw redraw = new Redraw();

        @Option(names = "--load-scale", paramLabel = "X", description = "The example models' measured loads (0.4, 1.1, 5.5 ms) times this (default: 10).")
        Double loadScale;

        @Override
        public String name() {
            return PlacementScaleExperiment.NAME;
        }

        @Override
        public String description() {
            return PlacementScaleExperiment.DESCRIPTION;
        }

        private PlacementScaleExperiment experiment(CommandLine cl) {
            int runs = length.seeds(cl, DEFAULT_SEEDS);
            double duration = length.durationSeconds != null ? length.durationSeconds : 600;
            if (!(duration >= 120) || Double.isInfinite(duration) || duration % 60 != 0) {
                throw new ParameterException(cl, "--duration-s must be whole minutes of trace, at least 120, for experiment " + name() + ", got " + duration);
            }
            double warmupSeconds = warmup.warmupSeconds != null ? warmup.warmupSeconds : duration / 10;
            if (!(warmupSeconds >= 0) || warmupSeconds >= duration || warmupSeconds % 60 != 0) {
                throw new ParameterException(cl, "--warmup-s must be whole minutes shorter than the trace for experiment " + name() + ", got " + warmupSeconds);
            }
            double scale = loadScale != null ? loadScale : 10;
            if (!(scale > 0) || Double.isInfinite(scale)) throw new ParameterException(cl, "--load-scale must be a positive number, got " + scale);
            return new PlacementScaleExperiment((int) (duration / 60), (int) (warmupSeconds / 60), scale, runs, threads, progress(), cl.getOut());
        }

        @Override
        protected Run prepare(CommandLine cl) {
            var experiment = experiment(cl);
            return new Run(experiment::run, experiment::report);
        }

        @Override
        protected boolean redraw() {
            return redraw.redraw;
        }

        @Override
        protected List<Path> written(Path dir) {
            return List.of(dir.resolve(PlacementScaleExperiment.RESULTS_CSV));
        }
    }

    /**
     * {@code experiment herd}: Herd's groups against the other divisions of a cluster (see
     * HerdExperiment); the sweep's own flags ({@link HerdOptions}), the duration and seeds apply; a
     * tenth of each run is warm-up.
     */
    static final class Herd extends ExperimentSubcommand {
        @Mixin
        Length length = new Length();
        @Mixin
        Redraw redraw = new Redraw();
        @Mixin
        HerdOptions herd = new HerdOptions();

        @Override
        public String name() {
            return HerdExperiment.NAME;
        }

        @Override
        public String description() {
            return HerdExperiment.DESCRIPTION;
        }

        private HerdExperiment experiment(CommandLine cl) {
            HerdExperiment.Sweep d = HerdExperiment.Sweep.DEFAULT;
            double duration = length.duration(cl, d.durationSeconds());
            int runs = length.seeds(cl, d.seeds());
            List<Integer> devices = herd.devices != null ? herd.devices : d.devices();
            for (int n : devices) if (n < 2) throw new ParameterException(cl, "--devices: each cluster needs at least 2 devices, got " + n);
            List<Double> cv2s = herd.cv2s != null ? herd.cv2s : d.cv2s();
            for (double c : cv2s) if (!(c > 0) || Double.isInfinite(c)) throw new ParameterException(cl, "--cv2: must be positive (1 is Poisson), got " + c);
            List<Double> loads = herd.loads != null ? herd.loads : d.loads();
            for (double l : loads) if (!(l > 0) || Double.isInfinite(l)) throw new ParameterException(cl, "--loads: must be a positive share of capacity, got " + l);
            if (herd.maxGroup != null && herd.maxGroup < 1) throw new ParameterException(cl, "--max-group must be at least 1, got " + herd.maxGroup);
            double limit = herd.timeLimitSeconds != null ? herd.timeLimitSeconds : d.timeLimit().toMillis() / 1000.0;
            if (!(limit > 0) || Double.isInfinite(limit)) throw new ParameterException(cl, "--time-limit-s must be a positive number of seconds, got " + limit);
            return new HerdExperiment(new HerdExperiment.Sweep(devices, cv2s, loads, herd.maxGroup, duration, runs, Duration.ofMillis(Math.round(limit * 1000))),
                    threads, progress(), cl.getOut());
        }

        @Override
        protected Run prepare(CommandLine cl) {
            var experiment = experiment(cl);
            return new Run(experiment::run, experiment::report);
        }

        @Override
        protected boolean redraw() {
            return redraw.redraw;
        }

        @Override
        protected List<Path> written(Path dir) {
            return List.of(dir.resolve(HerdExperiment.RESULTS_CSV));
        }
    }
}
