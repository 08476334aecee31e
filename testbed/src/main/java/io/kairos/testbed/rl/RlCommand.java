package io.kairos.testbed.rl;

import io.kairos.core.scheduling.PolicyParams;
import io.kairos.core.scheduling.learned.RandomAgent;
import io.kairos.core.scheduling.learned.StateEncoder;
import io.kairos.sim.Simulation;
import io.kairos.sim.learning.Reward;
import io.kairos.sim.learning.RewardMeter;
import io.kairos.sim.learning.SchedulingEnvironment;
import io.kairos.testbed.experiment.LowSloExperiment;
import io.kairos.testbed.experiment.RlWindowFigure;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.PrintWriter;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/**
 * {@code rl}: the RL thesis' training environment over the simulator ({@link SchedulingEnvironment})
 * for a learner in another process ({@code env}, over a pipe), and its speed ({@code bench}).
 * The setup is the thesis' low-SLO workload: ResNet50 instances sharing a rate, Poisson each.
 */
@Command(name = "rl", mixinStandardHelpOptions = true, sortOptions = false,
        description = "The learned scheduler's training environment: served over a pipe to a trainer (env), or timed (bench).",
        subcommands = {RlCommand.Env.class, RlCommand.Bench.class})
public class RlCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getOut());
        return 0;
    }

    /** The workload and devices of an environment, and its reward. */
    static final class Setup {
        @Option(names = "--models", paramLabel = "N", split = ",", defaultValue = "48",
                description = "ResNet50 instances, each its own queue; several (comma-separated): each episode draws one (default: ${DEFAULT-VALUE}).")
        List<Integer> models;

        @Option(names = "--rate", paramLabel = "R", split = ",", defaultValue = "2400",
                description = "Requests per second over all instances, Poisson each; several: each episode draws one (default: ${DEFAULT-VALUE}).")
        List<Double> rate;

        @Option(names = "--slo-ms", paramLabel = "MS", split = ",", defaultValue = "24",
                description = "SLO of every request; several: each episode draws one (default: ${DEFAULT-VALUE}).")
        List<Double> sloMs;

        @Option(names = "--devices", paramLabel = "N", description = "Simulated devices, each holding every instance (default: ${DEFAULT-VALUE}).")
        int devices = 6;

        /** The command this setup is mixed into (rl env, rl bench), to tell an option given from its default; null for a setup parsed on its own. */
        @CommandLine.Spec(CommandLine.Spec.Target.MIXEE)
        CommandLine.Model.CommandSpec parsed;

        @Option(names = "--window", description = "Fig 6.1's workload instead (with none of --models, --rate and --slo-ms): two ResNet50 instances at 150 req/s each, "
                + "one answered within 100 ms, the other between 100 and 1,000 ms (a window SLO). With --param window_hold=false the network must learn to wait "
                + "for the window; with the hold (the default), the scheduler waits for it.")
        boolean window;

        @Option(names = "--reward", paramLabel = "RF", description = "Reward function: rf1, rf2 or rf3 (default: ${DEFAULT-VALUE}).")
        String reward = "rf3";

        @Option(names = "--late-charge", paramLabel = "WHEN", description = "When a request that ends late pays rf2's and rf3's correction: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}, the thesis'; at_start: in the step that starts a batch predicted to end after its deadline).")
        RewardMeter.LateCharge lateCharge = RewardMeter.LateCharge.AT_FATE;

        @Option(names = "--drop-charge", paramLabel = "WHEN", description = "When a request the group drops pays rf2's and rf3's correction: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}, the thesis'; at_seal: in the step whose booking left it no device in time).")
        RewardMeter.DropCharge dropCharge = RewardMeter.DropCharge.AT_FATE;

        @Option(names = "--gpu-term", paramLabel = "PER_MS", description = "RF3's GPU term: the reward a step loses per ms of work booked on its device after it (default: ${DEFAULT-VALUE}; the thesis gives no constant; 0.1 before 2026-11-30).")
        double gpuTermPerMs = Reward.GPU_TERM_PER_MS;

        @Option(names = "--param", paramLabel = "KEY=VALUE", description = "Group parameter, repeatable, e.g. shed_early=false, or device_order=group (each step asks the devices in the group's order, not the least work booked first).")
        Map<String, String> params = new LinkedHashMap<>();

        SchedulingEnvironment environment() {
            // --window has its own loads; a sweep option beside it would be silently unused.
            List<String> sweep = List.of("--models", "--rate", "--slo-ms");
            List<String> given = parsed == null || parsed.commandLine().getParseResult() == null ? List.of()
                    : sweep.stream().filter(parsed.commandLine().getParseResult()::hasMatchedOption).toList();
            if (window && !given.isEmpty()) {
                throw new IllegalArgumentException("--window runs Fig 6.1's two loads: --models, --rate and --slo-ms do not apply (given "
                        + String.join(", ", given) + ")");
            }
            if (devices < 1 || models.stream().anyMatch(m -> m < 1) || rate.stream().anyMatch(r -> !(r > 0)) || sloMs.stream().anyMatch(s -> !(s > 0))) {
                throw new IllegalArgumentException("--models and --devices must be at least 1, --rate and --slo-ms positive");
            }
            SchedulingEnvironment environment = new SchedulingEnvironment(seed -> (window ? RlWindowFigure.windowed() : workload(seed).setup()).devices(devices),
                    PolicyParams.of(params), Reward.parse(reward), lateCharge, dropCharge);
            try {
                return environment.withGpuTerm(gpuTermPerMs);
            } catch (IllegalArgumentException e) {
                // The environment's own check, said with the option's name.
                throw new IllegalArgumentException("--gpu-term must be a finite number of at least 0, got " + gpuTermPerMs, e);
            }
        }

        /** The workload an episode of this seed runs: one of those given, drawn from the seed. */
        Workload workload(long seed) {
            if (window) return new Workload(2, 2 * RlWindowFigure.RATE, RlWindowFigure.SLO_1_MS);
            return Workload.draw(seed, models, rate, sloMs);
        }

        /** The loads, as a summary says them. */
        String loads() {
            return window ? "Fig 6.1's two loads" : label(models) + " models, " + label(rate) + " req/s, SLO " + label(sloMs) + " ms";
        }

        /** Values as given, comma-separated, without a needless ".0". */
        static String label(List<? extends Number> values) {
            return values.stream().map(v -> v.doubleValue() == Math.rint(v.doubleValue()) ? Long.toString(v.longValue()) : v.toString())
                    .collect(Collectors.joining(","));
        }


    }

    /** An episode's workload: the low-SLO sweep's setup at one point. */
    record Workload(int models, double rate, double sloMs) {
        /** Keeps the workload's draws apart from the arrivals' generator, which the same seed starts. */
        private static final long STREAM = 0x5DEECE66DL;

        /**
         * One of the models, rates and SLOs given, each drawn uniformly from the episode's seed (its
         * own stream, apart from the arrivals'), so that an episode's seed fixes its workload as it
         * fixes its arrivals; with one of each, always that one.
         */
        static Workload draw(long seed, List<Integer> models, List<Double> rates, List<Double> slosMs) {
            SplittableRandom draw = new SplittableRandom(seed ^ STREAM);
            return new Workload(models.get(draw.nextInt(models.size())), rates.get(draw.nextInt(rates.size())), slosMs.get(draw.nextInt(slosMs.size())));
        }

        Simulation.Builder setup() {
            return LowSloExperiment.setup(models, rate, sloMs);
        }
    }

    @Command(name = "env", mixinStandardHelpOptions = true, sortOptions = false,
            description = "Serve the environment on standard input and output, in the binary protocol docs/learned-policy.md describes (for the trainer).")
    static final class Env implements Callable<Integer> {
        @CommandLine.Mixin
        Setup setup = new Setup();

        @Override
        public Integer call() throws Exception {
            SchedulingEnvironment env = setup.environment();
            // The protocol owns standard output: anything else printed goes to standard error.
            FileOutputStream stdout = new FileOutputStream(FileDescriptor.out);
            System.setOut(System.err);
            new EnvPipe(env, setup::workload, new BufferedInputStream(new FileInputStream(FileDescriptor.in), 1 << 16), new BufferedOutputStream(stdout, 1 << 16)).serve();
            return 0;
        }
    }

    @Command(name = "bench", mixinStandardHelpOptions = true, sortOptions = false,
            description = "Environment steps per second, in process, with the thesis' random agent choosing: several runs and their median.")
    static final class Bench implements Callable<Integer> {
        @CommandLine.Mixin
        Setup setup = new Setup();

        @Option(names = "--steps", paramLabel = "N", description = "Steps per run (an episode) (default: ${DEFAULT-VALUE}).")
        int steps = 60_000;

        @Option(names = "--runs", paramLabel = "N", description = "Timed runs, after one untimed warm-up run (default: ${DEFAULT-VALUE}).")
        int runs = 5;

        @Option(names = "--agent", paramLabel = "A", description = "Who chooses: random (the thesis' random agent, which books work without end) "
                + "or urgent (the most urgent slot's largest batch when the device has under 5 ms booked, a trained policy's working point) (default: ${DEFAULT-VALUE}).")
        String agent = "urgent";

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            SchedulingEnvironment env = setup.environment();
            double[] perSecond = new double[runs];
            for (int run = -1; run < runs; run++) {
                SchedulingEnvironment.Learner learner = learner(run + 2);
                long start = System.nanoTime();
                SchedulingEnvironment.Episode e = env.run(run + 2, steps, learner);
                double s = (System.nanoTime() - start) / 1e9;
                if (run < 0) continue;
                perSecond[run] = e.steps() / s;
                out.printf(Locale.ROOT, "run %d: %d steps in %.2f s: %,.0f steps/s (attainment %.1f %%)%n", run + 1, e.steps(), s, perSecond[run], 100 * e.attainment());
            }
            double[] sorted = perSecond.clone();
            Arrays.sort(sorted);
            double median = runs % 2 == 1 ? sorted[runs / 2] : (sorted[runs / 2 - 1] + sorted[runs / 2]) / 2;
            out.printf(Locale.ROOT, "median: %,.0f steps/s over %d runs (%s, %d devices, %s agent)%n", median, runs, setup.loads(), setup.devices, agent);
            return 0;
        }

        private SchedulingEnvironment.Learner learner(long seed) {
            if (agent.equals("random")) {
                RandomAgent random = new RandomAgent(seed);
                return (state, mask, reward, action) -> random.act(state, mask, action);
            }
            if (!agent.equals("urgent")) throw new IllegalArgumentException("--agent must be random or urgent, got '" + agent + "'");
            return (state, mask, reward, action) -> {
                Arrays.fill(action, 0);
                if (mask[1] && state[StateEncoder.STATE_SIZE - 1] < 5) {
                    action[0] = 1;
                    for (int k = StateEncoder.BATCH_SIZES.length - 1; k >= 0; k--) {
                        if (mask[2 + k]) {
                            action[1] = k;
                            break;
                        }
                    }
                }
            };
        }
    }
}
