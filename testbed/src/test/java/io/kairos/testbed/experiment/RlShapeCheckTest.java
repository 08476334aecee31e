package io.kairos.testbed.experiment;

import io.kairos.testbed.experiment.Experiment.Claim.Verdict;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class RlShapeCheckTest {

    /** kairos at 100 % everywhere; rl 1 point below, but 5 below at 12 models, 2,400 req/s, 3 ms. */
    private static ResultTable sweep() {
        ResultTable t = new ResultTable(List.of("models", "rate", "slo_ms", "agent", "slo_attainment"));
        for (int m : LowSloExperiment.MODELS) {
            for (int r : LowSloExperiment.RATES) {
                for (int s : LowSloExperiment.SLOS_MS) {
                    t.add(List.of("" + m, "" + r, "" + s, "kairos", "1.0"));
                    t.add(List.of("" + m, "" + r, "" + s, "rl", m == 12 && r == 2400 && s == 3 ? "0.95" : "0.99"));
                }
            }
        }
        return t;
    }

    @Test
    void withinTwoPointsOfKairosFailsAtTheOnePointFivePointsBehind() {
        Experiment.Claim c = RlShapeCheck.withinOfKairos(sweep(), "rl", 0.02);
        assertThat(c.verdict()).isEqualTo(Verdict.FAIL);
        assertThat(c.evidence()).startsWith("35/36 points; largest gap 5.00 points at 12/2400/3; not at 12/2400/3 95.00 % vs 100.00 %");
        // Within 6 points it holds everywhere.
        assertThat(RlShapeCheck.withinOfKairos(sweep(), "rl", 0.06).verdict()).isEqualTo(Verdict.PASS);
        // An agent that did not run is skipped, not passed.
        assertThat(RlShapeCheck.withinOfKairos(sweep(), "random", 0.02).verdict()).isEqualTo(Verdict.SKIP);
    }

    /** The claims on a sweep alone, with no Azure run and no training curve (their claims skipped). */
    private static List<Experiment.Claim> sweepClaims(ResultTable sweep) {
        return RlShapeCheck.claims(sweep, new ResultTable(List.of("slo_ms", "rate", "agent", "slo_attainment", "mean_batch", "busy_gpu_s_per_1000_good")),
                new ResultTable(List.of("run", "episode", "steps", "attainment", "reward_per_step", "wall_s")));
    }

    @Test
    void figFiveOneJudgesTheRandomAgentThatAsksTheDevicesInTheGroupsOrder() {
        // The random agent asked freest first meets every request at 1,200 and 2,400 req/s from
        // 12 ms; the one in the group's order, the thesis', meets 40 % there. Fig 5.1's "does not
        // meet every request" reads the latter and passes; given only the former, it would fail.
        ResultTable t = new ResultTable(List.of("models", "rate", "slo_ms", "agent", "slo_attainment"));
        for (int m : LowSloExperiment.MODELS) {
            for (int r : LowSloExperiment.RATES) {
                for (int s : LowSloExperiment.SLOS_MS) {
                    t.add(List.of("" + m, "" + r, "" + s, "random", r == 600 || s >= 12 ? "1.0" : "0.5"));
                    t.add(List.of("" + m, "" + r, "" + s, RlExperiment.RANDOM_IN_GROUP_ORDER, r == 600 ? "1.0" : "0.4"));
                }
            }
        }
        List<Experiment.Claim> claims = sweepClaims(t);
        Experiment.Claim fails = claims.stream().filter(c -> c.statement().startsWith("Fig 5.1") && c.statement().contains("does not meet")).findFirst().orElseThrow();
        assertThat(fails.verdict()).isEqualTo(Verdict.PASS);
        assertThat(fails.evidence()).startsWith("24/24 points (models/rate/SLO): 12/1200/3 40.00 %");
        // Had the agent in the group's order done what the freest-first one does, it would fail.
        ResultTable freest = new ResultTable(t.columns());
        for (List<String> row : t.rows()) {
            if (row.get(3).equals("random")) freest.add(List.of(row.get(0), row.get(1), row.get(2), RlExperiment.RANDOM_IN_GROUP_ORDER, row.get(4)));
        }
        List<Experiment.Claim> wrong = sweepClaims(freest);
        assertThat(wrong.stream().filter(c -> c.statement().equals(fails.statement())).findFirst().orElseThrow().verdict()).isEqualTo(Verdict.FAIL);
    }

    @Test
    void figFiveEightReadsTrainingSeedOnesNetworkBeforeAndAfterItsEpisodesAtTwelveModels() {
        // rl-s1 at 55 % over 12 models at 2,400 req/s and 24 ms; after 5 episodes there, 95 %
        // (+40 points: PASS), or 70 % (+15 points, under the 30 asked: FAIL).
        for (String after : List.of("0.95", "0.70")) {
            ResultTable t = new ResultTable(List.of("models", "rate", "slo_ms", "agent", "slo_attainment"));
            t.add(List.of("12", "2400", "24", RlExperiment.scratchAgent(1), "0.55"));
            t.add(List.of("12", "2400", "24", RlExperiment.SCRATCH_12_AGENT, after));
            t.add(List.of("12", "2400", "3", RlExperiment.SCRATCH_12_AGENT, "0.3"));
            List<Experiment.Claim> claims = sweepClaims(t);
            Experiment.Claim lift = claims.stream().filter(c -> c.statement().startsWith("Fig 5.8: 5 more episodes")).findFirst().orElseThrow();
            assertThat(lift.verdict()).isEqualTo(after.equals("0.95") ? Verdict.PASS : Verdict.FAIL);
            assertThat(lift.evidence()).startsWith("rl-s1 55.00 %, rl-s1-12m " + (after.equals("0.95") ? "95.00 % (+40.00 points" : "70.00 % (+15.00 points"));
        }
    }

    @Test
    void theAzureClaimsReadTheThesisRateAndTheRateTheDevicesHoldApart() {
        ResultTable azure = new ResultTable(List.of("slo_ms", "rate", "agent", "slo_attainment"));
        azure.add(List.of("100", "9500", "rl", "0.30"));
        azure.add(List.of("100", "9500", "clockwork", "0.60"));
        azure.add(List.of("100", "9500", "kairos", "0.75"));
        azure.add(List.of("100", "4500", "rl", "1.0"));
        azure.add(List.of("100", "4500", "clockwork", "0.9995"));
        azure.add(List.of("100", "4500", "kairos", "1.0"));
        assertThat(RlShapeCheck.heldRate(azure)).isEqualTo("4500");
        Experiment.Claim thesis = RlShapeCheck.azureAtLeast(azure, "rl", "s");
        assertThat(thesis.verdict()).isEqualTo(Verdict.FAIL);
        assertThat(thesis.evidence()).isEqualTo("rl 30.00 %, clockwork 60.00 %, kairos 75.00 %");
        Experiment.Claim held = RlShapeCheck.azureAtLeast(azure, "rl", "4500", "s");
        assertThat(held.verdict()).isEqualTo(Verdict.PASS);
        assertThat(held.evidence()).isEqualTo("rl 100.00 %, clockwork 99.95 %, kairos 100.00 %");
        // A table of one rate (before the held rate was run) has no second rate to ask.
        ResultTable one = new ResultTable(azure.columns());
        one.add(List.of("100", "9500", "rl", "0.30"));
        assertThat(RlShapeCheck.heldRate(one)).isNull();
    }

    @Test
    void theRewardIsComparedOverTheEpisodesBothRan() {
        ResultTable curves = new ResultTable(List.of("run", "episode", "steps", "attainment", "reward_per_step", "wall_s"));
        curves.add(List.of("tuned", "1", "3000", "1.0", "0.5", "1"));
        curves.add(List.of("tuned", "2", "3000", "1.0", "0.7", "2"));
        curves.add(List.of("tuned", "3", "6000", "1.0", "0.1", "3")); // no frozen episode 3: left out
        curves.add(List.of("frozen", "1", "3000", "1.0", "0.6", "1"));
        curves.add(List.of("frozen", "2", "3000", "1.0", "0.5", "2"));
        // (0.5 - 0.6 + 0.7 - 0.5) / 2 = +0.05
        Experiment.Claim c = RlShapeCheck.rewardAbove(curves, "tuned", "frozen", "s");
        assertThat(c.verdict()).isEqualTo(Verdict.PASS);
        assertThat(c.evidence()).startsWith("mean difference +0.0500 over 2 episodes");
        assertThat(RlShapeCheck.rewardAbove(curves, "frozen", "tuned", "s").verdict()).isEqualTo(Verdict.FAIL);
        // Every request met (>= 99.9 %) first in episode 1; a run with none is a failure, with its best.
        assertThat(RlShapeCheck.reaches(curves, "tuned", 20, "s").evidence()).isEqualTo("tuned: 100.00 % in episode 1 (best 100.00 %; last 100.00 %, episode 3)");
    }

    @Test
    void aRunTestedAfterEveryEpisodeIsJudgedByItsTestsAndOneTestedOnlySometimesByItsEpisodes() {
        ResultTable curves = new ResultTable(List.of("run", "episode", "steps", "attainment", "reward_per_step", "wall_s", "test_attainment"));
        // Sampled, the untrained network already meets 99.91 %; served (its argmax), it never infers.
        String[][] tested = {{"0.9991", "0.0"}, {"1.0", "0.0"}, {"0.97", "0.42"}, {"0.999", "0.9995"}, {"0.88", "0.85"}};
        for (int e = 0; e < tested.length; e++) {
            curves.add(List.of("tested", "" + (e + 1), "3000", tested[e][0], "0.1", "" + e, tested[e][1]));
            curves.add(List.of("partly", "" + (e + 1), "3000", tested[e][0], "0.1", "" + e, e == 2 ? "" : tested[e][1]));
        }
        assertThat(RlShapeCheck.curve(curves, "tested")).containsExactly(0.0, 0.0, 0.42, 0.9995, 0.85);
        assertThat(RlShapeCheck.curve(curves, "partly")).containsExactly(0.9991, 1.0, 0.97, 0.999, 0.88);
        // Fig 5.10's claim: reached (>= 99.9 %) in episode 4, 99.95 points above the first.
        Experiment.Claim learns = RlShapeCheck.learnsToReach(curves, "tested", 30, 0.05, "s");
        assertThat(learns.verdict()).isEqualTo(Verdict.PASS);
        assertThat(learns.evidence()).isEqualTo("tested (tested after each episode): 99.95 % in episode 4 (best 99.95 %; last 85.00 %, episode 5)");
        // Reached only after the episodes allowed: the best within them, and the best after them.
        Experiment.Claim late = RlShapeCheck.learnsToReach(curves, "tested", 3, 0.05, "s");
        assertThat(late.verdict()).isEqualTo(Verdict.FAIL);
        assertThat(late.evidence()).isEqualTo("tested (tested after each episode): best 42.00 % over 3 episodes (of 5 trained in the time given; after them best 99.95 %; last 85.00 %)");
        Experiment.Claim nothing = RlShapeCheck.learnsToReach(curves, "partly", 30, 0.05, "s");
        assertThat(nothing.verdict()).isEqualTo(Verdict.FAIL);
        assertThat(nothing.evidence()).isEqualTo("partly: the first episode already at 99.91 % (best 100.00 %): nothing learned to converge");
        // Both curves of the tested run, for its figure; the untested episode of the other has one.
        assertThat(RlFigures.trainedAndTested(curves, List.of("tested")).distinct("curve")).containsExactly("training episode", "tested after it");
        assertThat(RlFigures.trainedAndTested(curves, List.of("tested")).size()).isEqualTo(10);
        ResultTable both = RlFigures.trainedAndTested(curves, List.of("tested", "partly"));
        assertThat(both.size()).isEqualTo(19);
        assertThat(both.distinct("curve")).containsExactly("tested, training episode", "tested, tested after it", "partly, training episode", "partly, tested after it");
    }

    @Test
    void theSweepRunsEveryAgentAtEveryPointAndTheTwelveModelNetworkWhereItWasTuned() {
        List<RlExperiment.Agent> agents = new ArrayList<>(List.of(RlExperiment.Agent.baseline("kairos"), RlExperiment.Agent.agent("random", "random", null),
                RlExperiment.Agent.agent("rl-ppo-12m", "rl", Path.of("x.krln")), RlExperiment.Agent.agent(RlExperiment.SCRATCH_12_AGENT, "rl", Path.of("y.krln"))));
        List<Experiment.Point> points = new RlExperiment.Sweep(agents).points();
        // 36 points x 2 agents, and rl-ppo-12m and rl-s1-12m at the 6 SLOs of 12 models and 2,400 req/s.
        assertThat(points).hasSize(36 * 2 + 2 * 6);
        assertThat(points.stream().filter(p -> p.get(3).equals(RlExperiment.SCRATCH_12_AGENT)).map(p -> p.get(0) + "/" + p.get(1)).distinct()).containsExactly("12/2400");
        assertThat(points.stream().filter(p -> p.get(3).equals("rl-ppo-12m")).map(p -> p.get(0) + "/" + p.get(1)).distinct()).containsExactly("12/2400");
        assertThat(agents.get(1).invocationLabel()).isEqualTo("1ms");
        assertThat(agents.get(0).invocationLabel()).isEqualTo("events");
    }
}
