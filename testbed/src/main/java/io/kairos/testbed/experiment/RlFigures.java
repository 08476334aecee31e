package io.kairos.testbed.experiment;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The figures of {@code experiment rl}, numbered as the thesis numbers them. */
final class RlFigures {
    private RlFigures() {}

    /** Fig 5.1 (the random agent), Fig 5.6 and 5.8 (every agent), and the mean batch sizes, on the low-SLO sweep. */
    static List<Path> sweep(ResultTable results, Path dir) throws IOException {
        String setup = LowSloExperiment.DEVICES + " simulated devices, ResNet50 instances, Poisson arrivals";
        return List.of(
                Figures.lines("slo_ms", "slo_attainment").scale(100).series("agent").xAxis("SLO (ms, log scale)").yAxis("SLO attainment (%)", 0.0, 100.0)
                        .panels("models", "rate").panelTitle(RlFigures::panelTitle)
                        .title("Fig 5.1: the random agent as the SLO doubles, asking the devices in the group's order (the thesis') and the freest first: " + setup)
                        .save(only(results, "agent", Set.of("random", RlExperiment.RANDOM_IN_GROUP_ORDER)), dir.resolve("random.png")),
                Figures.lines("slo_ms", "slo_attainment").scale(100).series("agent").xAxis("SLO (ms, log scale)").yAxis("SLO attainment (%)", 0.0, 100.0)
                        .panels("models", "rate").panelTitle(RlFigures::panelTitle)
                        .title("Fig 5.6 and 5.8: the networks PPO trained from scratch (rl-s1..3, one per training seed; rl-s1-12m: rl-s1 after 5 more episodes at 12 models), kairos and clockwork: " + setup)
                        .save(only(results, "agent", agents("kairos", "clockwork", RlExperiment.SCRATCH_12_AGENT)), dir.resolve("attainment.png")),
                Figures.lines("slo_ms", "slo_attainment").scale(100).series("agent").xAxis("SLO (ms, log scale)").yAxis("SLO attainment (%)", 0.0, 100.0)
                        .panels("models", "rate").panelTitle(RlFigures::panelTitle)
                        .title("Ablation: the network cloned from a rule (rl-clone), then PPO (rl-ppo), then 5 more episodes at 12 models (rl-ppo-12m, Fig 5.8 on the clone): " + setup)
                        .save(only(results, "agent", Set.of("kairos", "clockwork", RlExperiment.CLONE, "rl-ppo", "rl-ppo-12m")), dir.resolve("clone.png")),
                Figures.lines("slo_ms", "mean_batch").zeroIsGap().series("agent").xAxis("SLO (ms, log scale)").yAxis("mean batch size (per request)", 0.0, null)
                        .panels("models", "rate").panelTitle(RlFigures::panelTitle)
                        .title("Mean batch size of each agent as the SLO doubles: " + setup)
                        .save(results, dir.resolve("mean-batch.png")));
    }

    /** Fig 5.3 and 5.11: attainment, batch size and device time per good request of each agent on the Azure run. */
    static List<Path> azure(ResultTable results, Path dir, String models) throws IOException {
        String setup = "Azure-Functions-like trace (bars: requests/s), " + models + ", " + AzureExperiment.DEVICES + " devices";
        return List.of(
                Figures.bars("agent", "slo_attainment").scale(100).series("rate").xAxis("agent").yAxis("SLO attainment (%)", 0.0, 100.0)
                        .title("Fig 5.3 and 5.11: the trained networks on the " + setup + " (rl-s1..3: from scratch; rl-clone: a rule's clone; rl-96ms: trained at SLO 96 ms)")
                        .save(results, dir.resolve("attainment.png")),
                Figures.bars("agent", "mean_batch").series("rate").xAxis("agent").yAxis("mean batch size (per request)", 0.0, null)
                        .title("Fig 5.4 and 5.5: mean batch size of each agent, " + setup)
                        .save(results, dir.resolve("mean-batch.png")),
                Figures.bars("agent", "busy_gpu_s_per_1000_good").series("rate").xAxis("agent").yAxis("busy GPU-seconds per 1,000 good requests", 0.0, null)
                        .title("Device time per 1,000 requests served within the SLO, " + setup)
                        .save(results, dir.resolve("gpu-seconds.png")));
    }

    /** Fig 5.2 (PPO on the training workload), 5.9 (RF1-RF3 from scratch), 5.10 (from scratch at SLO 96 ms), and the reward per step. */
    static List<Path> training(ResultTable curves, Path dir) throws IOException {
        String setup = "2,400 req/s, 48 ResNet50 instances, 6 devices";
        return List.of(
                Figures.lines("episode", "attainment").numericX().scale(100).series("curve").xAxis("training episode (3,000 steps, doubling every other one)")
                        .yAxis("SLO attainment (%)", 0.0, 100.0)
                        .title("Fig 5.2: PPO from scratch at SLO 24 ms, per training seed each episode (the policy sampled) and, where the run "
                                + "had one, the test after it (the network as it serves, 12,000 steps), " + setup)
                        .save(trainedAndTested(curves, RlExperiment.perSeed(RlExperiment::scratchRun)), dir.resolve("training.png")),
                Figures.lines("episode", "attainment").numericX().scale(100).series("curve").xAxis("training episode (3,000 steps, doubling every other one)")
                        .yAxis("SLO attainment (%)", 0.0, 100.0)
                        .title("Fig 5.2, batch sizes explored (--explore-batch 0.05): PPO from scratch at SLO 24 ms, per training seed each episode "
                                + "(the policy sampled) and the test after it (the network as it serves, 12,000 steps), " + setup)
                        .save(trainedAndTested(curves, RlExperiment.perSeed(RlExperiment::exploredBatchRun)), dir.resolve("training-explore-batch.png")),
                Figures.lines("episode", "attainment").numericX().scale(100).series("curve").xAxis("episode after the 40 of Fig 5.2 (60,000 steps each)")
                        .yAxis("SLO attainment (%)", 0.0, 100.0)
                        .title("Fig 5.2, sharpened: each training seed's network given 10 more episodes, the temperature falling from 1 to 0.3, "
                                + "each episode and the test after it (the network as it serves), SLO 24 ms, " + setup)
                        .save(trainedAndTested(curves, RlExperiment.perSeed(RlExperiment::sharpenedRun)), dir.resolve("training-sharpened.png")),
                Figures.lines("episode", "attainment").numericX().scale(100).series("run").xAxis("training episode (3,000 steps, doubling every other one)")
                        .yAxis("SLO attainment in the episode (%)", 0.0, 100.0)
                        .title("Ablation: PPO from the network cloned from a rule at SLO 24 ms, " + setup + " (frozen: the clone, not updated; 12m: 12 instances, 5 more episodes)")
                        .save(only(curves, "run", Set.of(RlExperiment.FINETUNED, RlExperiment.FROZEN, RlExperiment.FINETUNED_12)), dir.resolve("training-clone.png")),
                Figures.lines("episode", "reward_per_step").numericX().series("run").xAxis("training episode")
                        .yAxis("RF3 reward per step (ms of device time)", null, null)
                        .title("What PPO maximises: the RF3 reward per step of each episode, SLO 24 ms")
                        .save(only(curves, "run", runs(RlExperiment.FINETUNED, RlExperiment.FROZEN)), dir.resolve("training-reward.png")),
                Figures.lines("episode", "attainment").numericX().scale(100).series("curve").xAxis("training episode")
                        .yAxis("SLO attainment (%)", 0.0, 100.0)
                        .title("Fig 5.9: PPO from scratch with each reward, SLO 24 ms, each episode (the policy sampled) and the test after it "
                                + "(the network as it serves), " + setup)
                        .save(trainedAndTested(curves, RlExperiment.REWARDS.stream().map(RlExperiment::rewardRun).distinct().toList()), dir.resolve("rewards.png")),
                Figures.lines("episode", "attainment").numericX().scale(100).series("curve").xAxis("training episode")
                        .yAxis("SLO attainment (%)", 0.0, 100.0)
                        .title("Fig 5.10: PPO from scratch at SLO 96 ms, sharpened, per training seed each episode (the policy sampled) "
                                + "and the test after it (the network as it serves, 12,000 steps), " + setup)
                        .save(trainedAndTested(curves, RlExperiment.perSeed(RlExperiment::run96)), dir.resolve("training-96ms.png")),
                Figures.lines("episode", "attainment").numericX().scale(100).series("curve").xAxis("training episode (3,000 steps, doubling every other one)")
                        .yAxis("SLO attainment (%)", 0.0, 100.0)
                        .title("Fig 6.1: PPO from scratch on two SLO types without the hold (one device, ResNet50 at 150 req/s each, model 0 within "
                                + "100 ms, model 1 between 100 and 1,000 ms), per training seed each episode (the policy sampled) and the test after it "
                                + "(the network as it serves, 12,000 steps)")
                        .save(trainedAndTested(curves, RlExperiment.perSeed(RlExperiment::windowRun)), dir.resolve("training-window.png")));
    }

    /**
     * The runs' curves as two series each: each training episode's attainment and, where the run
     * had one, the test's after it; a series is named by its run where there are several.
     */
    static ResultTable trainedAndTested(ResultTable curves, List<String> runs) {
        ResultTable t = new ResultTable(List.of("curve", "episode", "attainment"));
        int r = curves.index("run");
        int e = curves.index("episode");
        int a = curves.index("attainment");
        int tested = curves.index("test_attainment");
        for (List<String> row : curves.rows()) {
            String run = row.get(r);
            if (!runs.contains(run)) continue;
            String prefix = runs.size() == 1 ? "" : run + ", ";
            t.add(List.of(prefix + "training episode", row.get(e), row.get(a)));
            if (!row.get(tested).isEmpty()) t.add(List.of(prefix + "tested after it", row.get(e), row.get(tested)));
        }
        return t;
    }

    /** The given baselines and the networks from scratch. */
    private static Set<String> agents(String... baselines) {
        Set<String> out = new HashSet<>(List.of(baselines));
        out.addAll(RlExperiment.scratchAgents());
        return out;
    }

    /** The given training runs and the runs from scratch at 24 ms. */
    private static Set<String> runs(String... others) {
        Set<String> out = new HashSet<>(List.of(others));
        for (int seed : RlExperiment.TRAINING_SEEDS) out.add(RlExperiment.scratchRun(seed));
        return out;
    }

    /** The rows whose {@code column} holds one of {@code values}. */
    static ResultTable only(ResultTable t, String column, Set<String> values) {
        ResultTable kept = new ResultTable(t.columns());
        int c = t.index(column);
        for (List<String> row : t.rows()) if (values.contains(row.get(c))) kept.add(row);
        return kept;
    }

    private static String panelTitle(Map<String, String> panel) {
        return panel.get("models") + " models, " + panel.get("rate") + " req/s";
    }
}
