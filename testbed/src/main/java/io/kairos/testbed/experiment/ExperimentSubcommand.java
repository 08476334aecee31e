package io.kairos.testbed.experiment;

import io.kairos.tools.options.ProgressOption;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * One experiment on the command line: {@code experiment NAME}, a subcommand of
 * {@link ExperimentCommand} named as the experiment ({@link Experiments} lists them). Every
 * experiment takes the output folder, the threads and {@code --no-progress}; it declares which
 * other common options it accepts by the mixins it holds ({@link Length}, {@link Warmup},
 * {@link PolicyChoice}, {@link Redraw}) and its own options as fields, so that its {@code --help}
 * lists what it accepts and a flag it does not take is picocli's one-line "Unknown option". It
 * says how it runs and, where it has {@link Redraw}, how it reports again from what a run wrote.
 */
@Command(mixinStandardHelpOptions = true, sortOptions = false)
public abstract class ExperimentSubcommand implements Callable<Integer> {

    @Spec
    protected CommandSpec spec;

    @Option(names = "--out", paramLabel = "DIR", description = "Output folder (default: testbed/experiments/NAME in the checkout).")
    Path out;

    @Option(names = "--threads", paramLabel = "N", description = "Simulations run at once (default: the machine's available processors).")
    int threads = Runtime.getRuntime().availableProcessors();

    @Mixin
    ProgressOption progress = new ProgressOption();

    /** The name on the command line and of the default output folder, e.g. {@code low-slo}. */
    public abstract String name();

    /** One line for {@code --help}. */
    public abstract String description();

    /**
     * This experiment as the command line sets it up, its values checked (a bad one is a
     * {@link ParameterException} naming its flag) before anything runs.
     */
    protected abstract Run prepare(CommandLine cl);

    /** An experiment set up: how it runs into a folder, and how it reports again from what a run wrote there (null: it has no {@link Redraw}). */
    protected record Run(Step run, Step report) {}

    /** One step of a {@link Run}, on the output folder. */
    @FunctionalInterface
    protected interface Step {
        void on(Path dir) throws Exception;
    }

    /** Whether to report again instead of running: the {@link Redraw} mixin's flag where the experiment has it. */
    protected boolean redraw() {
        return false;
    }

    /** The flag that asked for the report, named when a file it reads is missing. */
    protected String redrawFlag() {
        return "--redraw";
    }

    /** The files a report from {@code dir} reads, which a run wrote; each must be there. */
    protected List<Path> written(Path dir) {
        return List.of();
    }

    @Override
    public final Integer call() throws Exception {
        CommandLine cl = spec.commandLine();
        if (threads < 1) throw new ParameterException(cl, "--threads must be at least 1, got " + threads);
        Run run = prepare(cl);
        Path dir = out != null ? out : ExperimentCommand.defaultOut(name());
        if (Files.exists(dir) && !Files.isDirectory(dir)) throw new ParameterException(cl, "--out: " + dir + " is not a folder");
        if (redraw()) {
            for (Path p : written(dir)) {
                if (!Files.isRegularFile(p)) throw new ParameterException(cl, redrawFlag() + ": no " + p + "; run the experiment first");
            }
            run.report().on(dir);
        } else {
            run.run().on(dir);
        }
        return 0;
    }

    /** Whether to draw progress bars. */
    protected final boolean progress() {
        return !progress.noProgress;
    }

    /** The seeds of an experiment that names none of its own: every simulated figure reports at least three (a median and its range). */
    static final int DEFAULT_SEEDS = 3;

    /** How long each run or trace is, and how many seeds: for the experiments that simulate for a while. */
    public static final class Length {
        @Option(names = "--duration-s", paramLabel = "N", description = "Simulated seconds per run or trace (default: the experiment's).")
        Double durationSeconds;

        @Option(names = "--seeds", paramLabel = "N", description = "Runs per point and policy, seeds 1..N; tables and figures take the median (default: the experiment's).")
        Integer seeds;

        /** The duration given, else {@code otherwise}; positive and finite. */
        double duration(CommandLine cl, double otherwise) {
            double duration = durationSeconds != null ? durationSeconds : otherwise;
            if (!(duration > 0) || Double.isInfinite(duration)) throw new ParameterException(cl, "--duration-s must be a positive number of seconds, got " + duration);
            return duration;
        }

        /** The seeds given, else {@code otherwise}; at least 1. */
        int seeds(CommandLine cl, int otherwise) {
            int runs = seeds != null ? seeds : otherwise;
            if (runs < 1) throw new ParameterException(cl, "--seeds must be at least 1, got " + runs);
            return runs;
        }
    }

    /** The warm-up at the start of a run that is not counted. */
    public static final class Warmup {
        @Option(names = "--warmup-s", paramLabel = "N", description = "Simulated seconds at the start of a run that are not counted (default: the experiment's share of the duration).")
        Double warmupSeconds;

        /** The warm-up given, else {@code otherwise}; at least 0 and shorter than {@code duration}. */
        double warmup(CommandLine cl, double duration, double otherwise) {
            double warmup = warmupSeconds != null ? warmupSeconds : otherwise;
            if (!(warmup >= 0) || warmup >= duration) throw new ParameterException(cl, "--warmup-s must be at least 0 and shorter than the duration (" + duration + " s), got " + warmup);
            return warmup;
        }
    }

    /** Which policies a sweep runs, when they are asked, and whether triton is tuned: the policy sweeps' own. */
    public static final class PolicyChoice {
        @Option(names = "--policies", split = ",", paramLabel = "NAME", description = "Policies to run (default: every registered policy).")
        List<String> policies;

        @Option(names = "--invocation", paramLabel = "WHEN", description = "When the policy is asked: 'events' (on every arrival, batch end and wake-up, as the job does) or a period such as 1ms (as the RL thesis invokes its agent) (default: events).")
        String invocation;

        @Option(names = "--triton-grid", negatable = true, description = "Tune triton (max queue delay x preferred batch sizes x queue timeout) and kairos (efficiency_gain) on seed 0 and run the best setting at each point; --no-triton-grid: each once with its defaults (default: on; azure tunes on the trace's first 10 minutes).")
        Boolean tritonGrid;
    }

    /** Simulate nothing: report again from what a run wrote. */
    public static final class Redraw {
        @Option(names = "--redraw", description = "Simulate nothing: print the table, check and draw again from what a run wrote in DIR.")
        boolean redraw;
    }
}
