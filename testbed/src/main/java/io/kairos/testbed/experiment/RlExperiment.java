package io.kairos.testbed.experiment;

import io.kairos.core.scheduling.learned.AgentPolicy;
import io.kairos.core.scheduling.learned.NetworkAgent;
import io.kairos.sim.Invocation;
import io.kairos.sim.Simulation;
import io.kairos.sim.SimulationReport;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.IntFunction;

/**
 * The RL thesis' figures (Alzayat 2022, chapter 5) with the {@code rl} and {@code random} policies,
 * in the simulator. The networks are trained beforehand ({@code testbed/rl/train.py}, one folder
 * per training run under {@code testbed/experiments/rl/}, each with its {@code policy.krln} and
 * {@code training.csv}); this evaluates them, which takes minutes where training takes an hour:
 *
 * <ul>
 * <li>the low-SLO sweep ({@link LowSloExperiment}'s points and setup) with each agent, into
 * {@code sweep/}: Fig 5.1 (the random agent), 5.6 (the networks PPO trained from scratch, one
 * per training seed, {@code rl-s1}..., and each then explored across the sweep's workloads,
 * {@code rl-sweep-s1}..., beside {@code kairos} and {@code clockwork} run on the same arrivals),
 * 5.8 (a network given five more episodes on 2,400 requests/s over 12 models at 24 ms); the
 * network cloned from a rule ({@code rl-clone}, the committed default) and its fine-tunings as
 * ablation rows;
 * <li>the Azure run ({@link AzureExperiment}'s setup, its first minutes) into {@code azure/}:
 * Fig 5.3 and 5.4/5.5 (the same networks) and 5.11 (the network trained from scratch at SLO 96 ms);
 * <li>the training curves, read from the training runs' CSVs: Fig 5.2, 5.9 (RF1-RF3), 5.10 (96 ms);
 * <li>two SLO types on one device, one a window SLO, into {@code window/}: Fig 6.1 ({@link RlWindowFigure}).
 * </ul>
 *
 * <p>{@code shape-check.txt} holds the thesis' claims and the goal beyond it, each PASS or FAIL
 * with its numbers.
 */
public final class RlExperiment {
    public static final String NAME = "rl";
    public static final String DESCRIPTION = "RL thesis' figures: the random agent and the trained networks on the low-SLO sweep and the Azure run, "
            + "the training curves, and two SLO types, one a window (Fig 5.1, 5.2, 5.3, 5.6, 5.8-5.11, 6.1)";
    static final String SWEEP = "sweep";
    static final String AZURE = "azure";
    static final String TRAINING_CSV = "training-curves.csv";

    /**
     * PPO from scratch on the thesis' setup (2,400 requests/s over 48 models, SLO 24 ms), one
     * training run per training seed, {@code seed-N} under this folder: the networks the thesis'
     * figures are drawn from, each the one that ended its best episode ({@code best.krln}). Trained
     * with the trainer's defaults: RF3's GPU term at 0.5 per ms booked, the inputs capped, each step
     * asking the device with the least work booked first. The runs before, beside it:
     * {@code scratch-capped-gpu05} (the same, but the devices asked in the group's order),
     * {@code scratch-2400rps-48m-24ms} (0.1, plain inputs) and {@code scratch-2400rps-48m-24ms-gpu05}
     * (0.5, plain inputs: 99 % on every seed too, but networks that do not read laxity and wait on
     * an idle device until queues fill).
     */
    static final String SCRATCH = "scratch-freest-first";
    static final List<Integer> TRAINING_SEEDS = List.of(1, 2, 3);
    /**
     * {@link #SCRATCH}'s networks given 60 more episodes of 12,000 steps across the sweep's workloads
     * (6 to 96 ms, each episode drawing its models, rate and SLO), each slot's null/infer choice
     * explored at 0.02 ({@code --explore}), one run per training seed: the networks from scratch
     * that infer on a lone queue, judged by the sweep's targets beside the thesis' own. Each its last
     * network ({@code policy.krln}): an episode's attainment on one workload says nothing of another.
     */
    static final String ACROSS_SWEEP = "scratch-freest-first-then-sweep-explore";
    /**
     * {@link #SCRATCH}'s runs given 10 more episodes of 60,000 steps, sharpened ({@code --sharpen
     * 0.3}: the policy's temperature falling from 1 to 0.3, at a learning rate of 1e-4 held), one
     * run per training seed, tested after each episode: the networks as they serve, brought to
     * what PPO sampled.
     */
    static final String SHARPENED = "scratch-freest-first-then-sharpen";
    /**
     * {@link #SCRATCH}'s runs trained again with the batch sizes explored ({@code --explore-batch
     * 0.05}: per inferring slot and step, a size drawn uniformly among the allowed at that rate,
     * falling with the learning rate), the rate chosen on a tuning seed (4) the figures do not use,
     * one run per training seed, tested after each episode. Trained with the defaults, seed 4
     * serves every request as a batch of one and holds 84 % of the load; explored, it batches.
     */
    static final String EXPLORED_BATCH = "scratch-explore-batch";
    /**
     * Fig 6.1's runs, one per training seed: PPO from scratch on the two request types of
     * {@link RlWindowFigure} with the group parameter {@code window_hold} false, so that the
     * network, not the scheduler, must wait for model 1's window; the trainer's defaults, chosen
     * over uncapped inputs on a tuning seed (4). With laxities capped at 100 ms the network does
     * not see the window open, but model 1's request looks urgent only 900 ms after it arrived,
     * inside its window, so waiting until a request is urgent meets both types.
     * Each served as {@link #windowAgent} from its last network ({@code policy.krln}): no episode
     * picked.
     */
    static final String WINDOW = "scratch-window";
    /** The episodes each {@link #SHARPENED} run was given (its command's {@code --episodes}). */
    static final int SHARPENING_EPISODES = 10;
    /** The network cloned from the working-point rule, the committed default: an ablation row. */
    static final String CLONE = "rl-clone";

    /** The training runs, each a folder under the training folder (see docs/learned-policy.md for their commands). */
    static final String FINETUNED = "finetune-2400rps-48m-24ms";
    static final String FINETUNED_12 = "finetune-2400rps-12m-24ms";
    /** The fine-tuning's episodes with the actor frozen (learning rate 0): the baseline of its curve. */
    static final String FROZEN = "frozen-2400rps-48m-24ms";
    /**
     * Fig 5.8's run: {@link #SCRATCH}'s seed 1 given five more episodes on 2,400 requests/s over 12
     * models (its last network, {@code policy.krln}), served as {@link #SCRATCH_12_AGENT}.
     */
    static final String SCRATCH_12 = "scratch-freest-first-12m";
    static final String SCRATCH_12_AGENT = "rl-s1-12m";
    /** The agents tuned on 12 models at 2,400 requests/s, run there alone. */
    static final Set<String> TUNED_AT_12_MODELS = Set.of("rl-ppo-12m", SCRATCH_12_AGENT);
    /**
     * Fig 5.10's runs, one per training seed ({@code seed-N} under this folder): trained as
     * {@link #SCRATCH}'s but at SLO 96 ms, and sharpened ({@code --sharpen 0.3}: the policy's
     * temperature falling from 1 to 0.3 over the schedule, so that what PPO samples becomes the
     * argmax the job serves). Seed 1's last network ({@code policy.krln}) serves as {@code rl-96ms}.
     * Unsharpened, seed 1 ({@code scratch-2400rps-48m-96ms-freest-first}) serves nothing until
     * episode 16: its sampled policy is a random timer whose argmax never infers.
     */
    static final String SCRATCH_96 = "scratch-2400rps-48m-96ms-sharpen";
    static final List<String> REWARDS = List.of("rf1", "rf2", "rf3");

    /**
     * Fig 5.9's run of PPO from scratch on the thesis' setup with a reward, training seed 1: RF3 is
     * the trainer's default, so its run is Fig 5.2's seed 1; RF1 and RF2 are trained the same way
     * with {@code --reward} (docs/learned-policy.md).
     */
    static String rewardRun(String reward) {
        return reward.equals("rf3") ? scratchRun(1) : "scratch-" + reward + "-freest-first";
    }

    /**
     * Who schedules: a policy with its parameters and its invocation. The baselines are invoked on
     * events, as the job invokes them; the agents every 1 ms, as the thesis invokes its agent
     * ({@link #onEvents()}: on events, as the job invokes every policy, the learned one included).
     */
    record Agent(String label, String policy, Map<String, String> params, Invocation invocation) {
        static Agent baseline(String policy) {
            return new Agent(policy, policy, Experiment.asPublished(policy), Invocation.onEvents());
        }

        static Agent agent(String label, String policy, Path network) {
            Map<String, String> params = new HashMap<>(Experiment.asPublished(policy));
            if (network != null) params.put(NetworkAgent.NETWORK, network.toString());
            return new Agent(label, policy, Map.copyOf(params), Invocation.every(1000));
        }

        /** The same agent asked on every arrival, batch end and wake-up instead of every 1 ms. */
        Agent onEvents(String label) {
            return new Agent(label, policy, params, Invocation.onEvents());
        }

        /** The same agent under {@code label} with one more policy parameter. */
        Agent with(String label, String key, String value) {
            Map<String, String> more = new HashMap<>(params);
            more.put(key, value);
            return new Agent(label, policy, Map.copyOf(more), invocation);
        }

        String invocationLabel() {
            return invocation.periodic() ? (invocation.periodMicros() / 1000) + "ms" : "events";
        }
    }

    /** The committed network asked on events, as the serving job asks it. */
    static final String RL_ON_EVENTS = "rl-clone-events";
    /**
     * The random agent asking the devices in the group's order, a literal reading of the thesis:
     * Fig 5.1's. Asked the freest device first, as every agent here is, it meets every request at
     * 1,200 requests/s from 12 ms, which the thesis' random agent does not.
     */
    static final String RANDOM_IN_GROUP_ORDER = "random-group-order";

    /** A training seed's run in a folder of runs, one per training seed: {@code folder/seed-N}. */
    private static String seedFolder(String folder, int trainingSeed) {
        return folder + "/seed-" + trainingSeed;
    }

    /** One name per training seed, in the seeds' order (runs or agents). */
    static List<String> perSeed(IntFunction<String> name) {
        return TRAINING_SEEDS.stream().map(name::apply).toList();
    }

    /** A training seed's run of PPO from scratch, as a folder under the training folder. */
    static String scratchRun(int trainingSeed) {
        return seedFolder(SCRATCH, trainingSeed);
    }

    /** A training seed's run of Fig 5.10 (SLO 96 ms), as a folder under the training folder. */
    static String run96(int trainingSeed) {
        return seedFolder(SCRATCH_96, trainingSeed);
    }

    /** The agent that serves a training seed's network from scratch. */
    static String scratchAgent(int trainingSeed) {
        return "rl-s" + trainingSeed;
    }

    static List<String> scratchAgents() {
        return perSeed(RlExperiment::scratchAgent);
    }

    /** A training seed's run sharpened after its 40 episodes ({@link #SHARPENED}), as a folder under the training folder. */
    static String sharpenedRun(int trainingSeed) {
        return seedFolder(SHARPENED, trainingSeed);
    }

    /** A training seed's run with the batch sizes explored ({@link #EXPLORED_BATCH}), as a folder under the training folder. */
    static String exploredBatchRun(int trainingSeed) {
        return seedFolder(EXPLORED_BATCH, trainingSeed);
    }

    /** A training seed's run of Fig 6.1 ({@link #WINDOW}), as a folder under the training folder. */
    static String windowRun(int trainingSeed) {
        return seedFolder(WINDOW, trainingSeed);
    }

    /** The agent that serves a training seed's network of Fig 6.1, trained to wait for a window. */
    static String windowAgent(int trainingSeed) {
        return "rl-window-s" + trainingSeed;
    }

    /** A training seed's run explored across the sweep's workloads, as a folder under the training folder. */
    static String acrossRun(int trainingSeed) {
        return seedFolder(ACROSS_SWEEP, trainingSeed);
    }

    /** The agent that serves a training seed's network explored across the sweep's workloads ({@link #ACROSS_SWEEP}). */
    static String acrossAgent(int trainingSeed) {
        return "rl-sweep-s" + trainingSeed;
    }

    static List<String> acrossAgents() {
        return perSeed(RlExperiment::acrossAgent);
    }

    private final Path training;
    private final double durationSeconds;
    private final double warmupSeconds;
    private final double azureSeconds;
    private final int seeds;
    private final ExperimentRunner runner;
    private final boolean progress;
    private final PrintWriter out;
    private final AzureExperiment.Profiles azureProfiles;
    /** Networks of the user's own ({@code --network LABEL=FILE}), run and judged beside the networks from scratch. */
    private final Map<String, Path> own;

    /**
     * @param training the folder of the training runs (each a subfolder with policy.krln and training.csv)
     * @param azureSeconds simulated seconds of the Azure run (its first tenth not counted)
     * @param azureProfiles the latency profiles of the Azure run's 61 models
     */
    public RlExperiment(Path training, double durationSeconds, double warmupSeconds, double azureSeconds, int seeds,
                        int threads, boolean progress, PrintWriter out, AzureExperiment.Profiles azureProfiles) {
        this(training, durationSeconds, warmupSeconds, azureSeconds, seeds, threads, progress, out, azureProfiles, Map.of());
    }

    /** @param own networks of the user's own, by label, run in the sweep and the Azure run and judged as the networks from scratch are */
    public RlExperiment(Path training, double durationSeconds, double warmupSeconds, double azureSeconds, int seeds,
                        int threads, boolean progress, PrintWriter out, AzureExperiment.Profiles azureProfiles, Map<String, Path> own) {
        this.own = new LinkedHashMap<>(own);
        this.azureProfiles = azureProfiles;
        this.training = training;
        this.durationSeconds = durationSeconds;
        this.warmupSeconds = warmupSeconds;
        this.azureSeconds = azureSeconds;
        this.seeds = seeds;
        this.runner = new ExperimentRunner(threads, progress, out);
        this.progress = progress;
        this.out = out;
    }

    Path network(String run) {
        return network(run, "policy.krln");
    }

    Path network(String run, String name) {
        Path file = training.resolve(run).resolve(name);
        if (!Files.isRegularFile(file)) {
            throw new NotTrained("no network " + file + ": train it first (docs/learned-policy.md, 'The thesis' figures')");
        }
        return file;
    }

    /**
     * The agents of the sweep; {@code rl-ppo-12m} and {@link #SCRATCH_12_AGENT} run at 12 models and
     * 2,400 requests/s only, the workload they were tuned on.
     */
    List<Agent> sweepAgents() {
        List<Agent> agents = new ArrayList<>(List.of(Agent.baseline("kairos"), Agent.baseline("clockwork"),
                Agent.agent("random", AgentPolicy.RANDOM, null),
                Agent.agent("random", AgentPolicy.RANDOM, null).with(RANDOM_IN_GROUP_ORDER, AgentPolicy.DEVICE_ORDER, AgentPolicy.GROUP_ORDER)));
        agents.addAll(scratchNetworks());
        agents.addAll(List.of(Agent.agent(CLONE, AgentPolicy.RL, null),
                Agent.agent(CLONE, AgentPolicy.RL, null).onEvents(RL_ON_EVENTS),
                Agent.agent("rl-ppo", AgentPolicy.RL, network(FINETUNED)),
                Agent.agent("rl-ppo-12m", AgentPolicy.RL, network(FINETUNED_12)),
                Agent.agent(SCRATCH_12_AGENT, AgentPolicy.RL, network(SCRATCH_12))));
        return agents;
    }

    List<Agent> azureAgents() {
        List<Agent> agents = new ArrayList<>(List.of(Agent.baseline("kairos"), Agent.baseline("clockwork")));
        agents.addAll(scratchNetworks());
        agents.addAll(List.of(Agent.agent(CLONE, AgentPolicy.RL, null),
                Agent.agent("rl-ppo", AgentPolicy.RL, network(FINETUNED)),
                Agent.agent("rl-96ms", AgentPolicy.RL, network(run96(1)))));
        return agents;
    }

    /**
     * Each training seed's network from scratch, then each explored across the sweep's workloads,
     * then the user's own, asked every 1 ms as the thesis asks its agent.
     */
    private List<Agent> scratchNetworks() {
        List<Agent> agents = new ArrayList<>();
        for (int seed : TRAINING_SEEDS) agents.add(Agent.agent(scratchAgent(seed), AgentPolicy.RL, network(scratchRun(seed), "best.krln")));
        for (int seed : TRAINING_SEEDS) agents.add(Agent.agent(acrossAgent(seed), AgentPolicy.RL, network(acrossRun(seed))));
        for (Map.Entry<String, Path> n : own.entrySet()) agents.add(Agent.agent(n.getKey(), AgentPolicy.RL, n.getValue()));
        return agents;
    }

    /** The labels of the experiment's own agents, which a network of the user's may not take. */
    static List<String> agentLabels() {
        List<String> labels = new ArrayList<>(List.of("kairos", "clockwork", "random", RANDOM_IN_GROUP_ORDER, CLONE, RL_ON_EVENTS, "rl-ppo", "rl-ppo-12m",
                SCRATCH_12_AGENT, "rl-96ms", "rl"));
        labels.addAll(scratchAgents());
        labels.addAll(acrossAgents());
        return labels;
    }

    /**
     * The agents of Fig 6.1: the committed network ({@code rl}), training seed 1's from scratch and
     * explored across the sweep's workloads, the networks trained for the figure ({@link #WINDOW}),
     * the random agent, and the baselines beside them.
     */
    List<Agent> windowAgents() {
        List<Agent> agents = new ArrayList<>(List.of(Agent.baseline("kairos"), Agent.baseline("clockwork"),
                Agent.agent("rl", AgentPolicy.RL, null), Agent.agent(scratchAgent(1), AgentPolicy.RL, network(scratchRun(1), "best.krln")),
                Agent.agent(acrossAgent(1), AgentPolicy.RL, network(acrossRun(1)))));
        for (int seed : TRAINING_SEEDS) agents.add(Agent.agent(windowAgent(seed), AgentPolicy.RL, network(windowRun(seed))));
        agents.add(Agent.agent("random", AgentPolicy.RANDOM, null));
        return agents;
    }

    public void run(Path dir) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        out.printf(Locale.ROOT, "%s: %s%n", NAME, DESCRIPTION);
        Sweep sweep = new Sweep(sweepAgents());
        Azure azure = new Azure(azureAgents());
        out.printf(Locale.ROOT, "low-SLO sweep: %s s simulated per run (%s s warm-up), %d seed%s%n",
                Settings.plain(durationSeconds), Settings.plain(warmupSeconds), seeds, seeds == 1 ? "" : "s");
        simulate(sweep, sweep.runs(new Settings(durationSeconds, warmupSeconds, seeds, List.of(AgentPolicy.RL), Invocation.onEvents())), dir.resolve(SWEEP));
        simulateAzure(azure, dir);
        runWindow(dir);
        report(dir);
    }

    /** The Azure run alone, into {@code dir/azure/results.csv}. */
    public void runAzure(Path dir) throws IOException, InterruptedException {
        simulateAzure(new Azure(azureAgents()), dir);
    }

    private void simulateAzure(Azure azure, Path dir) throws IOException, InterruptedException {
        out.printf(Locale.ROOT, "%nAzure run (%s profiles): its first %s s simulated (%s s warm-up), %d seed%s, at %s requests/s%n", azureProfiles.label(),
                Settings.plain(azureSeconds), Settings.plain(azureSeconds / 10), seeds, seeds == 1 ? "" : "s", azure.rates());
        simulate(azure, azure.runs(new Settings(azureSeconds, azureSeconds / 10, seeds, List.of(AgentPolicy.RL), Invocation.onEvents())), dir.resolve(AZURE));
    }

    /** Fig 6.1's runs ({@link RlWindowFigure}), into {@code dir/window/results.csv}. */
    public void runWindow(Path dir) throws IOException {
        out.printf(Locale.ROOT, "%nFig 6.1, two SLO types on one device: %s s simulated per run (%s s warm-up), %d seed%s%n",
                Settings.plain(durationSeconds), Settings.plain(warmupSeconds), seeds, seeds == 1 ? "" : "s");
        out.flush();
        long started = System.nanoTime();
        ResultTable window = RlWindowFigure.run(windowAgents(), durationSeconds, warmupSeconds, seeds);
        Files.createDirectories(dir.resolve(RlWindowFigure.DIR));
        window.write(dir.resolve(RlWindowFigure.DIR).resolve(ExperimentRunner.RESULTS));
        out.printf(Locale.ROOT, "%d runs in %.1f s of wall time%n", windowAgents().size() * RlWindowFigure.VARIANTS.size() * seeds, (System.nanoTime() - started) / 1e9);
    }

    /** Runs the runs, writes results.csv into {@code dir} with each run's own invocation, and prints the table. */
    private void simulate(Experiment experiment, List<Experiment.Run> runs, Path dir) throws IOException, InterruptedException {
        long started = System.nanoTime();
        List<SimulationReport> reports = runner.execute(experiment.name(), runs);
        double wall = (System.nanoTime() - started) / 1e9;
        ResultTable results = new ResultTable(ExperimentRunner.columns(experiment));
        Map<String, Agent> byLabel = new HashMap<>();
        for (Agent a : ((Agents) experiment).agents()) byLabel.put(a.label(), a);
        for (int i = 0; i < runs.size(); i++) {
            Experiment.Run run = runs.get(i);
            List<String> row = new ArrayList<>(run.point().values());
            row.add(byLabel.get(run.point().get(run.point().values().size() - 1)).invocationLabel());
            row.add(Long.toString(run.seed()));
            row.add(run.setting());
            row.addAll(reports.get(i).csvValues());
            results.add(row);
        }
        Files.createDirectories(dir);
        results.write(dir.resolve(ExperimentRunner.RESULTS));
        out.printf(Locale.ROOT, "%d runs in %.1f s of wall time%n", runs.size(), wall);
    }

    /** Tables, figures and the shape check from the results already written and the training runs' curves. */
    public void report(Path dir) throws IOException {
        trainingCurves().write(dir.resolve(TRAINING_CSV));
        Sweep sweep = new Sweep(List.of());
        Azure azure = new Azure(List.of());
        ResultTable sweepResults = ResultTable.read(dir.resolve(SWEEP).resolve(ExperimentRunner.RESULTS));
        ResultTable azureResults = ResultTable.read(dir.resolve(AZURE).resolve(ExperimentRunner.RESULTS));
        ResultTable curves = ResultTable.read(dir.resolve(TRAINING_CSV));
        runner.report(sweep, sweepResults, dir.resolve(SWEEP), Double.NaN);
        runner.report(azure, azureResults, dir.resolve(AZURE), Double.NaN);
        List<Path> figures = RlFigures.training(curves, dir);
        List<String> judged = new ArrayList<>(acrossAgents());
        judged.addAll(own.keySet());
        List<Experiment.Claim> claims = new ArrayList<>(RlShapeCheck.claims(sweepResults, azureResults, curves, judged));
        Path window = dir.resolve(RlWindowFigure.DIR).resolve(ExperimentRunner.RESULTS);
        if (Files.isRegularFile(window)) {
            ResultTable windowResults = ResultTable.read(window);
            figures = new ArrayList<>(figures);
            figures.addAll(RlWindowFigure.draw(windowResults, dir.resolve(RlWindowFigure.DIR)));
            claims.addAll(RlWindowFigure.claims(windowResults));
        }
        StringBuilder s = new StringBuilder();
        for (Experiment.Claim c : claims) s.append(c).append('\n');
        out.printf("%nshape check (the thesis' claims, then the goal beyond it)%n");
        out.print(s);
        Files.writeString(dir.resolve(ExperimentRunner.SHAPE_CHECK), s);
        List<String> written = new ArrayList<>(List.of(TRAINING_CSV, ExperimentRunner.SHAPE_CHECK));
        for (Path f : figures) written.add(f.getFileName().toString());
        out.printf("wrote %s to %s%n", String.join(", ", written), dir);
        out.flush();
    }

    /**
     * The training runs' curves in one table: run, episode, steps, attainment, reward per step, wall
     * seconds, and the test after the episode where the run had one (test_attainment: the network
     * as it serves, on a test episode of the training workload; else empty). A run not trained is
     * left out, and its claims are skipped.
     */
    ResultTable trainingCurves() {
        ResultTable t = new ResultTable(List.of("run", "episode", "steps", "attainment", "reward_per_step", "wall_s", "test_attainment"));
        List<String> runs = new ArrayList<>(perSeed(RlExperiment::scratchRun));
        runs.addAll(List.of(FINETUNED, FROZEN, FINETUNED_12, SCRATCH_12));
        runs.addAll(perSeed(RlExperiment::run96));
        runs.addAll(perSeed(RlExperiment::sharpenedRun));
        runs.addAll(perSeed(RlExperiment::exploredBatchRun));
        runs.addAll(perSeed(RlExperiment::windowRun));
        for (String r : REWARDS) if (!runs.contains(rewardRun(r))) runs.add(rewardRun(r));
        for (String run : runs) {
            Path csv = training.resolve(run).resolve("training.csv");
            if (!Files.isRegularFile(csv)) {
                out.printf("no training curve %s: left out (docs/learned-policy.md says how to train it)%n", csv);
                continue;
            }
            ResultTable rows = ResultTable.read(csv);
            int tested = rows.columns().indexOf("test_attainment");
            for (List<String> r : rows.rows()) {
                int episode = Integer.parseInt(r.get(rows.index("episode")));
                if (episode == 0) continue; // the imitation's rollouts, not PPO's episodes
                double steps = Double.parseDouble(r.get(rows.index("steps")));
                double reward = Double.parseDouble(r.get(rows.index("reward")));
                t.add(List.of(run, Integer.toString(episode), r.get(rows.index("steps")), r.get(rows.index("attainment")),
                        String.format(Locale.ROOT, "%.4f", reward / steps), r.get(rows.index("wall_s")), tested < 0 ? "" : r.get(tested)));
            }
        }
        return t;
    }

    /** A network the experiment evaluates has not been trained (its file is missing). */
    public static final class NotTrained extends IllegalArgumentException {
        NotTrained(String message) {
            super(message);
        }
    }

    /** An experiment whose last point column names the agent. */
    interface Agents extends Experiment {
        List<Agent> agents();

        @Override
        default List<Run> runs(Settings settings) {
            Map<String, Agent> byLabel = new LinkedHashMap<>();
            for (Agent a : agents()) byLabel.put(a.label(), a);
            List<Run> runs = new ArrayList<>();
            for (Point p : points()) {
                Agent a = byLabel.get(p.get(p.values().size() - 1));
                for (long seed : settings.seedValues()) {
                    Simulation sim = settings.apply(setup(p).policy(a.policy(), a.params()), seed).invocation(a.invocation()).build();
                    runs.add(new Run(p, a.policy(), "", seed, sim));
                }
            }
            return runs;
        }

        @Override
        default List<Claim> check(ResultTable results) {
            return List.of(); // the shape check is RlShapeCheck's, over all three parts
        }
    }

    /** The low-SLO sweep's workloads with each agent. */
    record Sweep(List<Agent> agents) implements Agents {
        @Override
        public String name() {
            return NAME + "/" + SWEEP;
        }

        @Override
        public String description() {
            return "the low-SLO sweep with each agent";
        }

        @Override
        public Settings defaults() {
            throw new UnsupportedOperationException("run by RlExperiment");
        }

        @Override
        public List<String> pointColumns() {
            return List.of("models", "rate", "slo_ms", "agent");
        }

        @Override
        public String tableColumn() {
            return "slo_ms";
        }

        @Override
        public List<Point> points() {
            List<Point> points = new ArrayList<>();
            for (int models : LowSloExperiment.MODELS) {
                for (int rate : LowSloExperiment.RATES) {
                    for (int slo : LowSloExperiment.SLOS_MS) {
                        for (Agent a : agents) {
                            if (TUNED_AT_12_MODELS.contains(a.label()) && !(models == 12 && rate == 2400)) continue;
                            points.add(Point.of(models, rate, slo, a.label()));
                        }
                    }
                }
            }
            return points;
        }

        @Override
        public Simulation.Builder setup(Point point) {
            return LowSloExperiment.setup(Integer.parseInt(point.get(0)), Double.parseDouble(point.get(1)), Double.parseDouble(point.get(2)));
        }

        @Override
        public List<Path> drawFigures(ResultTable results, Path dir) throws IOException {
            return RlFigures.sweep(results, dir);
        }
    }

    /** The Azure run's workload at the thesis' 9,500 requests/s and at the highest rate the devices hold, with each agent. */
    final class Azure implements Agents {
        static final int RATE = AzureExperiment.THESIS_RATE;
        private final List<Agent> agents;
        private final AzureExperiment azure = new AzureExperiment(azureProfiles); // one trace for every run

        Azure(List<Agent> agents) {
            this.agents = agents;
        }

        List<Integer> rates() {
            return List.of(RATE, azure.fittingRate());
        }

        @Override
        public List<Agent> agents() {
            return agents;
        }

        @Override
        public String name() {
            return NAME + "/" + AZURE;
        }

        @Override
        public String description() {
            return "the Azure run with each agent";
        }

        @Override
        public Settings defaults() {
            throw new UnsupportedOperationException("run by RlExperiment");
        }

        @Override
        public List<String> pointColumns() {
            return List.of("slo_ms", "rate", "agent");
        }

        @Override
        public String tableColumn() {
            return "rate";
        }

        @Override
        public List<Point> points() {
            List<Point> points = new ArrayList<>();
            for (int rate : rates()) {
                for (Agent a : agents) points.add(Point.of((int) AzureExperiment.SLO_MS, rate, a.label()));
            }
            return points;
        }

        @Override
        public Simulation.Builder setup(Point point) {
            return azure.setup(Point.of(point.get(0), point.get(1)));
        }

        @Override
        public List<Path> drawFigures(ResultTable results, Path dir) throws IOException {
            return RlFigures.azure(results, dir, azure.setupLabel());
        }
    }
}
