package io.kairos.testbed.experiment;

import io.kairos.testbed.experiment.Experiment.Claim;
import io.kairos.testbed.experiment.Experiment.Claim.Verdict;
import io.kairos.tools.format.Numbers;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;

/**
 * What the RL thesis reports (its digest's figure table), checked against {@code experiment rl}'s
 * results, and the goal beyond it. "Every request" and "100 %" are read as at least 99.9 %, as
 * {@link LowSloExperiment} reads them.
 */
final class RlShapeCheck {
    static final double EVERY = LowSloExperiment.EVERY;
    /** The experiment's name in {@code TARGETS.md}. */
    static final String RL = "rl";

    private RlShapeCheck() {}

    record At(int models, int rate, int slo) {
        @Override
        public String toString() {
            return models + "/" + rate + "/" + slo;
        }
    }

    /**
     * The claims, judged on each network PPO trained from scratch ({@code rl-s1}...: a claim per
     * training seed, so that one good seed does not stand for three), with the network cloned
     * from a rule ({@code rl-clone}) and its fine-tunings as ablation rows, and the random agent
     * as a control that the targets must fail.
     */
    static List<Claim> claims(ResultTable sweep, ResultTable azure, ResultTable curves) {
        return claims(sweep, azure, curves, List.of());
    }

    /** @param own the user's own networks ({@code --network}), judged by the targets as the networks from scratch are */
    static List<Claim> claims(ResultTable sweep, ResultTable azure, ResultTable curves, List<String> own) {
        List<String> scratch = new ArrayList<>(RlExperiment.scratchAgents());
        scratch.addAll(own);
        List<Claim> c = new ArrayList<>();
        // Fig 5.1 is the thesis' random agent, which asks the devices in a fixed order.
        String thesisRandom = RlExperiment.RANDOM_IN_GROUP_ORDER;
        c.add(everywhere(sweep, thesisRandom, "Fig 5.1: the random agent (devices in the group's order) meets every request at 600 req/s at SLO 48 and 96 ms",
                at -> at.rate == 600 && at.slo >= 48, a -> a >= EVERY));
        c.add(everywhere(sweep, thesisRandom, "Fig 5.1: the random agent (devices in the group's order) does not meet every request at 1,200 and 2,400 req/s, at any SLO",
                at -> at.rate >= 1200, a -> a < EVERY));

        List<String> fig56 = new ArrayList<>(scratch);
        fig56.addAll(List.of(RlExperiment.CLONE, "rl-ppo"));
        for (String agent : fig56) {
            c.add(everywhere(sweep, agent, "Fig 5.6: " + agent + " meets every request at SLO 96 ms for every workload",
                    at -> at.slo == 96, a -> a >= EVERY));
            c.add(everywhere(sweep, agent, "Fig 5.6: " + agent + " never meets every request at SLO 3 and 6 ms",
                    at -> at.slo <= 6, a -> a < EVERY));
            c.add(everywhere(sweep, agent, "Fig 5.6: " + agent + " meets most requests (> 50 %) at SLO 24 and 48 ms",
                    at -> at.slo == 24 || at.slo == 48, a -> a > Targets.of(RL, "most-requests")));
            double twelve = attainment(sweep, agent, new At(12, 2400, 24));
            double fortyEight = attainment(sweep, agent, new At(48, 2400, 24));
            c.add(new Claim("Fig 5.6: " + agent + " does worse at 2,400 req/s over 12 models than over 48, at SLO 24 ms",
                    Double.isNaN(twelve) || Double.isNaN(fortyEight) ? Verdict.SKIP : twelve < fortyEight ? Verdict.PASS : Verdict.FAIL,
                    String.format(Locale.ROOT, "12 models %s, 48 models %s", pct(twelve), pct(fortyEight))));
        }
        // Fig 5.8 on training seed 1's network from scratch, the thesis' agent; the clone's
        // fine-tuning (rl-ppo, rl-ppo-12m) is drawn beside it as an ablation.
        String base = RlExperiment.scratchAgent(1), tuned = RlExperiment.SCRATCH_12_AGENT;
        double before = attainment(sweep, base, new At(12, 2400, 24));
        double after = attainment(sweep, tuned, new At(12, 2400, 24));
        c.add(new Claim("Fig 5.8: 5 more episodes on 2,400 req/s over 12 models lift attainment there at SLO 24 ms by more than 30 points",
                Double.isNaN(before) || Double.isNaN(after) ? Verdict.SKIP : after - before > Targets.of(RL, "fig5.8-lift") ? Verdict.PASS : Verdict.FAIL,
                String.format(Locale.ROOT, "%s %s, %s %s (%+.2f points; the thesis' agent started about 40 points below clockwork there)",
                        base, pct(before), tuned, pct(after), 100 * (after - before))));
        double atThree = attainment(sweep, tuned, new At(12, 2400, 3));
        c.add(new Claim("Fig 5.8: still poor at SLO 3 ms after those episodes (below 99.9 %)",
                Double.isNaN(atThree) ? Verdict.SKIP : atThree < EVERY ? Verdict.PASS : Verdict.FAIL, tuned + " at 12/2400/3: " + pct(atThree)));

        double target = Targets.of(RL, "fig5.2-attainment");
        int within = (int) Targets.of(RL, "fig5.2-episodes");
        for (int seed : RlExperiment.TRAINING_SEEDS) {
            c.add(reaches(curves, RlExperiment.scratchRun(seed), within, target, String.format(Locale.ROOT,
                    "Fig 5.2: PPO from scratch, training seed %d, reaches %s of SLOs on the training workload within %d episodes", seed, pct(target), within)));
        }
        for (int seed : RlExperiment.TRAINING_SEEDS) {
            c.add(reaches(curves, RlExperiment.sharpenedRun(seed), RlExperiment.SHARPENING_EPISODES, target, String.format(Locale.ROOT,
                    "Fig 5.2, sharpened: training seed %d's network, %d more episodes at a falling temperature, reaches %s of SLOs as served within them",
                    seed, RlExperiment.SHARPENING_EPISODES, pct(target))));
        }
        for (int seed : RlExperiment.TRAINING_SEEDS) {
            c.add(reaches(curves, RlExperiment.exploredBatchRun(seed), within, target, String.format(Locale.ROOT,
                    "Fig 5.2, batch sizes explored: PPO from scratch, training seed %d, reaches %s of SLOs on the training workload within %d episodes",
                    seed, pct(target), within)));
        }
        c.add(notBelowStart(curves, RlExperiment.FINETUNED, "Fig 5.2, ablation: PPO from the imitation network keeps its attainment on the training workload (no episode 0.5 points below the first)"));
        c.add(rewardAbove(curves, RlExperiment.FINETUNED, RlExperiment.FROZEN,
                "Fig 5.2, ablation: PPO raises the RF3 reward per step above the imitation network's (frozen, same episodes)"));
        String rf1Run = RlExperiment.rewardRun("rf1");
        String rf2Run = RlExperiment.rewardRun("rf2");
        String rf3Run = RlExperiment.rewardRun("rf3");
        double rf1First = first(curves, rf1Run);
        double rf1Best = best(curves, rf1Run);
        c.add(new Claim("Fig 5.9: RF1 learns nothing (its best episode no more than 5 points above its first)",
                Double.isNaN(rf1First) ? Verdict.SKIP : rf1Best - rf1First <= Targets.of(RL, "fig5.9-rf1-flat") ? Verdict.PASS : Verdict.FAIL,
                String.format(Locale.ROOT, "first %s, best %s, over %d episodes", pct(rf1First), pct(rf1Best), episodes(curves, rf1Run))));
        double rf2 = best(curves, rf2Run);
        double rf3 = best(curves, rf3Run);
        c.add(new Claim("Fig 5.9: RF2 converges lower than RF3 (best episode)",
                Double.isNaN(rf2) || Double.isNaN(rf3) ? Verdict.SKIP : rf2 < rf3 ? Verdict.PASS : Verdict.FAIL,
                String.format(Locale.ROOT, "RF2 best %s over %d episodes, RF3 best %s over %d", pct(rf2), episodes(curves, rf2Run), pct(rf3), episodes(curves, rf3Run))));
        c.add(reaches(curves, rf3Run, Integer.MAX_VALUE, "Fig 5.9: RF3 reaches 100 % (>= 99.9 %)"));
        for (int seed : RlExperiment.TRAINING_SEEDS) {
            c.add(learnsToReach(curves, RlExperiment.run96(seed), 30, Targets.of(RL, "fig5.10-learns"), String.format(Locale.ROOT,
                    "Fig 5.10: from scratch at SLO 96 ms, training seed %d, training converges (>= 99.9 %%) in under 30 episodes, from a first episode below it", seed)));
        }
        double waits = Targets.of(RlWindowFigure.TARGETS, "attainment");
        int waitsWithin = (int) Targets.of(RlWindowFigure.TARGETS, "episodes");
        for (int seed : RlExperiment.TRAINING_SEEDS) {
            c.add(learnsToReach(curves, RlExperiment.windowRun(seed), waitsWithin, waits, Targets.of(RlWindowFigure.TARGETS, "learns"), String.format(Locale.ROOT,
                    "Fig 6.1: PPO from scratch on two SLO types without the hold, training seed %d, learns to wait: reaches %s of SLOs as served within %d episodes, "
                            + "from a first episode below it", seed, pct(waits), waitsWithin)));
        }

        List<String> azureAgents = new ArrayList<>(scratch);
        azureAgents.add(RlExperiment.CLONE);
        for (String agent : azureAgents) c.add(azureAtLeast(azure, agent, "Fig 5.3: " + agent + " meets every Azure request"));
        String held = heldRate(azure);
        if (held != null) {
            List<String> atHeld = new ArrayList<>(List.of("clockwork"));
            atHeld.addAll(azureAgents);
            for (String agent : atHeld) {
                c.add(azureAtLeast(azure, agent, held, "Fig 5.3 at " + held + " requests/s, the highest rate the devices hold: " + agent + " meets every request"));
            }
        }
        double rl = medianOf(azure, RlExperiment.scratchAgents(), "slo_attainment");
        double rl96 = azure(azure, "rl-96ms", "slo_attainment");
        double cwAttainment = azure(azure, "clockwork", "slo_attainment");
        double gap = Targets.of(RL, "fig5.11-gap");
        double share = Targets.of(RL, "fig5.11-clockwork-share");
        // A network that serves (nearly) nothing is broken, not "poor": it says nothing of how training generalises.
        c.add(new Claim("Fig 5.11: the network trained at SLO 96 ms is poor on Azure (more than " + Numbers.significant(100 * gap)
                        + " points below the networks trained at 24 ms, yet serving at least " + Numbers.significant(100 * share) + " % of clockwork's attainment)",
                Double.isNaN(rl) || Double.isNaN(rl96) || Double.isNaN(cwAttainment) ? Verdict.SKIP : rl - rl96 > gap && rl96 >= share * cwAttainment ? Verdict.PASS : Verdict.FAIL,
                String.format(Locale.ROOT, "rl-96ms %s, the 24 ms networks' median %s, clockwork %s", pct(rl96), pct(rl), pct(cwAttainment))));
        // Figs 5.4/5.5 and the thesis' claim: as many requests met with larger batches and less device
        // time, judged where every request can be met (the target), and at the thesis' rate.
        for (String rate : held == null ? List.of(Integer.toString(AzureExperiment.THESIS_RATE)) : List.of(held, Integer.toString(AzureExperiment.THESIS_RATE))) {
            for (String agent : azureAgents) {
                double batch = azure(azure, agent, rate, "mean_batch");
                double cwBatch = azure(azure, "clockwork", rate, "mean_batch");
                c.add(new Claim("Fig 5.4/5.5: " + agent + "'s mean batch on Azure at " + rate + " requests/s is at least clockwork's",
                        Double.isNaN(batch) || Double.isNaN(cwBatch) ? Verdict.SKIP : batch >= cwBatch ? Verdict.PASS : Verdict.FAIL,
                        String.format(Locale.ROOT, "%s %.2f, clockwork %.2f", agent, batch, cwBatch)));
                double mine = azure(azure, agent, rate, "busy_gpu_s_per_1000_good");
                double cw = azure(azure, "clockwork", rate, "busy_gpu_s_per_1000_good");
                // A network that meets no request has no device time per good request (the table's
                // 0): that is no saving.
                boolean servesNone = !(azure(azure, agent, rate, "slo_attainment") > 0);
                c.add(new Claim("the thesis' claim: " + agent + " uses fewer busy GPU-seconds per 1,000 good requests than clockwork on Azure at " + rate + " requests/s",
                        Double.isNaN(mine) || Double.isNaN(cw) ? Verdict.SKIP : mine < cw && !servesNone ? Verdict.PASS : Verdict.FAIL,
                        String.format(Locale.ROOT, "%s %.3f, clockwork %.3f, kairos %.3f%s", agent, mine, cw, azure(azure, "kairos", rate, "busy_gpu_s_per_1000_good"),
                                servesNone ? " (" + agent + " meets no request)" : "")));
            }
        }

        double toClockwork = Targets.of(RL, "within-clockwork");
        int fromSlo = (int) Targets.of(RL, "within-clockwork-slo-ms");
        for (String agent : scratch) c.add(withinOf(sweep, agent, "clockwork", toClockwork, fromSlo, -1));
        c.add(control(withinOf(sweep, "random", "clockwork", toClockwork, fromSlo, -1)));
        double toKairos = Targets.of(RL, "near-kairos");
        int points = (int) Targets.of(RL, "near-kairos-points");
        List<String> beyond = new ArrayList<>(scratch);
        beyond.addAll(List.of(RlExperiment.CLONE, RlExperiment.RL_ON_EVENTS, "rl-ppo"));
        for (String agent : beyond) c.add(withinOf(sweep, agent, "kairos", toKairos, 0, points));
        c.add(control(withinOf(sweep, "random", "kairos", toKairos, 0, points)));
        return c;
    }

    /** A claim the random agent must fail: PASS where it fails (a check that random also passed would be no evidence). */
    static Claim control(Claim onRandom) {
        Verdict v = switch (onRandom.verdict()) {
            case FAIL -> Verdict.PASS;
            case PASS -> Verdict.FAIL;
            default -> onRandom.verdict();
        };
        return new Claim("control, the random agent fails it: " + onRandom.statement(), v, onRandom.evidence());
    }

    /** The median over agents of each one's median (at the thesis' rate): the networks of several training seeds as one figure. */
    static double medianOf(ResultTable azure, List<String> agents, String metric) {
        return ResultTable.median(agents.stream().map(a -> azure(azure, a, metric)).filter(v -> !Double.isNaN(v)).toList());
    }

    /** The agent's median attainment at a point of the sweep; NaN where it did not run. */
    static double attainment(ResultTable sweep, String agent, At at) {
        Map<String, String> where = new LinkedHashMap<>();
        where.put("models", Integer.toString(at.models));
        where.put("rate", Integer.toString(at.rate));
        where.put("slo_ms", Integer.toString(at.slo));
        where.put("agent", agent);
        return sweep.median("slo_attainment", where);
    }

    static List<At> points(Predicate<At> covered) {
        List<At> out = new ArrayList<>();
        for (int m : LowSloExperiment.MODELS) {
            for (int r : LowSloExperiment.RATES) {
                for (int s : LowSloExperiment.SLOS_MS) {
                    At at = new At(m, r, s);
                    if (covered.test(at)) out.add(at);
                }
            }
        }
        return out;
    }

    /** Whether {@code holds} of the agent's attainment at every point {@code covered} selects. */
    static Claim everywhere(ResultTable sweep, String agent, String statement, Predicate<At> covered, Predicate<Double> holds) {
        List<At> points = points(covered);
        List<String> failing = new ArrayList<>();
        List<String> all = new ArrayList<>();
        for (At at : points) {
            double a = attainment(sweep, agent, at);
            if (Double.isNaN(a)) return new Claim(statement, Verdict.SKIP, agent + " has no result at " + at);
            all.add(at + " " + pct(a));
            if (!holds.test(a)) failing.add(at + " " + pct(a));
        }
        String evidence = (points.size() - failing.size()) + "/" + points.size() + " points (models/rate/SLO)"
                + (failing.isEmpty() ? ": " + String.join("; ", all) : "; not at " + String.join("; ", failing));
        return new Claim(statement, failing.isEmpty() ? Verdict.PASS : Verdict.FAIL, evidence);
    }

    static Claim withinOfKairos(ResultTable sweep, String agent, double points) {
        return withinOf(sweep, agent, "kairos", points, 0, -1);
    }

    /**
     * Whether the agent's attainment is no more than {@code gap} below {@code reference}'s at the
     * low-SLO points of SLO {@code fromSloMs} ms or more: at every one ({@code atLeast} -1) or at
     * {@code atLeast} of them.
     */
    static Claim withinOf(ResultTable sweep, String agent, String reference, double gap, int fromSloMs, int atLeast) {
        List<At> covered = points(at -> at.slo >= fromSloMs);
        String where = fromSloMs > 0 ? "every low-SLO point of SLO " + fromSloMs + " ms or more" : "every low-SLO point";
        // Against clockwork the target for the thesis' sweep; against kairos the goal beyond it.
        String prefix = reference.equals("clockwork") ? "the sweep: " : "beyond the thesis: ";
        String statement = prefix + (atLeast < 0
                ? String.format(Locale.ROOT, "%s within %s points of %s at %s", agent, Numbers.significant(100 * gap), reference, where)
                : String.format(Locale.ROOT, "%s within %s points of %s at %d or more of the %d low-SLO points", agent, Numbers.significant(100 * gap), reference, atLeast, covered.size()));
        List<String> failing = new ArrayList<>();
        double worst = Double.NEGATIVE_INFINITY;
        At worstAt = null;
        int n = 0;
        for (At at : covered) {
            double mine = attainment(sweep, agent, at);
            double ref = attainment(sweep, reference, at);
            if (Double.isNaN(mine) || Double.isNaN(ref)) return new Claim(statement, Verdict.SKIP, "no result at " + at);
            n++;
            double behind = ref - mine;
            if (behind > worst) {
                worst = behind;
                worstAt = at;
            }
            if (behind > gap) failing.add(String.format(Locale.ROOT, "%s %s vs %s", at, pct(mine), pct(ref)));
        }
        int needed = atLeast < 0 ? n : atLeast;
        String evidence = String.format(Locale.ROOT, "%d/%d points; largest gap %.2f points at %s", n - failing.size(), n, 100 * worst, worstAt)
                + (failing.isEmpty() ? "" : "; not at " + String.join("; ", failing));
        return new Claim(statement, n - failing.size() >= needed ? Verdict.PASS : Verdict.FAIL, evidence);
    }

    /**
     * The run's curve, an attainment per episode: the test after each episode where the run had
     * one after every episode (the thesis' measure: the network as it serves, on a test episode
     * of one length), else each training episode's own (the sampled policy, on episodes whose
     * length doubles).
     */
    static List<Double> curve(ResultTable curves, String run) {
        List<Double> out = new ArrayList<>();
        int r = curves.index("run");
        int a = curves.index(tested(curves, run) ? "test_attainment" : "attainment");
        for (List<String> row : curves.rows()) if (row.get(r).equals(run)) out.add(Double.parseDouble(row.get(a)));
        return out;
    }

    /** Whether the run was tested after every episode (a test_attainment in each of its rows). */
    static boolean tested(ResultTable curves, String run) {
        int t = curves.columns().indexOf("test_attainment");
        if (t < 0) return false;
        int r = curves.index("run");
        boolean any = false;
        for (List<String> row : curves.rows()) {
            if (!row.get(r).equals(run)) continue;
            if (row.get(t).isEmpty()) return false;
            any = true;
        }
        return any;
    }

    /** The run's name in evidence, saying which curve was read. */
    private static String named(ResultTable curves, String run) {
        return tested(curves, run) ? run + " (tested after each episode)" : run;
    }

    static double first(ResultTable curves, String run) {
        List<Double> c = curve(curves, run);
        return c.isEmpty() ? Double.NaN : c.get(0);
    }

    static double best(ResultTable curves, String run) {
        return curve(curves, run).stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    }

    static int episodes(ResultTable curves, String run) {
        return curve(curves, run).size();
    }

    /** The best of a non-empty curve's first {@code episodes} episodes (all of them, where it has fewer). */
    private static double bestOfFirst(List<Double> curve, int episodes) {
        return curve.subList(0, Math.min(episodes, curve.size())).stream().mapToDouble(Double::doubleValue).max().orElseThrow();
    }

    static Claim reaches(ResultTable curves, String run, int within, String statement) {
        return reaches(curves, run, within, EVERY, statement);
    }

    /** Whether the run's curve reaches {@code target} within its first {@code within} episodes; the evidence says where, and where it ended. */
    static Claim reaches(ResultTable curves, String run, int within, double target, String statement) {
        List<Double> c = curve(curves, run);
        if (c.isEmpty()) return new Claim(statement, Verdict.SKIP, "no training curve " + run);
        for (int i = 0; i < c.size() && i < within; i++) {
            if (c.get(i) >= target) {
                return new Claim(statement, Verdict.PASS, named(curves, run) + ": " + pct(c.get(i)) + " in episode " + (i + 1)
                        + (c.size() > i + 1 ? String.format(Locale.ROOT, " (best %s; last %s, episode %d)", pct(best(curves, run)), pct(c.get(c.size() - 1)), c.size()) : ""));
            }
        }
        int window = Math.min(c.size(), within);
        double bestWithin = bestOfFirst(c, window);
        String after = c.size() > window ? String.format(Locale.ROOT, "; after them best %s", pct(best(curves, run))) : "";
        return new Claim(statement, Verdict.FAIL, String.format(Locale.ROOT, "%s: best %s over %d episodes (of %s trained in the time given%s; last %s)",
                named(curves, run), pct(bestWithin), window, c.size(), after, pct(c.get(c.size() - 1))));
    }

    /**
     * {@link #reaches}, and the episode that reaches it at least {@code lift} above the first: a
     * curve that starts where it ends shows no training converging (an untrained network that
     * already meets every request passes {@link #reaches} in its first episode).
     */
    static Claim learnsToReach(ResultTable curves, String run, int within, double lift, String statement) {
        return learnsToReach(curves, run, within, EVERY, lift, statement);
    }

    /** {@link #learnsToReach} to {@code target}. */
    static Claim learnsToReach(ResultTable curves, String run, int within, double target, double lift, String statement) {
        Claim reached = reaches(curves, run, within, target, statement);
        if (reached.verdict() != Verdict.PASS) return reached;
        List<Double> c = curve(curves, run);
        double top = bestOfFirst(c, within);
        if (top - c.get(0) >= lift) return reached;
        return new Claim(statement, Verdict.FAIL, String.format(Locale.ROOT, "%s: the first episode already at %s (best %s): nothing learned to converge",
                named(curves, run), pct(c.get(0)), pct(top)));
    }

    static Map<String, Double> rewards(ResultTable curves, String run) {
        Map<String, Double> out = new LinkedHashMap<>();
        int r = curves.index("run");
        for (List<String> row : curves.rows()) {
            if (row.get(r).equals(run)) out.put(row.get(curves.index("episode")), Double.parseDouble(row.get(curves.index("reward_per_step"))));
        }
        return out;
    }

    /** Whether {@code run}'s reward per step, averaged over the episodes both ran (the same seeds), is above {@code baseline}'s. */
    static Claim rewardAbove(ResultTable curves, String run, String baseline, String statement) {
        Map<String, Double> mine = rewards(curves, run);
        Map<String, Double> base = rewards(curves, baseline);
        double sum = 0;
        int n = 0;
        List<String> per = new ArrayList<>();
        for (Map.Entry<String, Double> e : mine.entrySet()) {
            Double b = base.get(e.getKey());
            if (b == null) continue;
            sum += e.getValue() - b;
            n++;
            per.add(String.format(Locale.ROOT, "%s: %.3f vs %.3f", e.getKey(), e.getValue(), b));
        }
        if (n == 0) return new Claim(statement, Verdict.SKIP, "no episodes of both " + run + " and " + baseline);
        return new Claim(statement, sum > 0 ? Verdict.PASS : Verdict.FAIL,
                String.format(Locale.ROOT, "mean difference %+.4f over %d episodes (episode: tuned vs frozen) %s", sum / n, n, String.join("; ", per)));
    }

    static Claim notBelowStart(ResultTable curves, String run, String statement) {
        List<Double> c = curve(curves, run);
        if (c.isEmpty()) return new Claim(statement, Verdict.SKIP, "no training curve " + run);
        double lowest = c.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
        return new Claim(statement, c.get(0) - lowest <= Targets.of(RL, "keeps-start") ? Verdict.PASS : Verdict.FAIL,
                String.format(Locale.ROOT, "%d episodes: first %s, lowest %s, last %s", c.size(), pct(c.get(0)), pct(lowest), pct(c.get(c.size() - 1))));
    }

    /** The agent's median at the thesis' rate of the Azure run (every rate of a table from before the run had a second one). */
    static double azure(ResultTable azure, String agent, String metric) {
        return azure(azure, agent, Integer.toString(AzureExperiment.THESIS_RATE), metric);
    }

    static double azure(ResultTable azure, String agent, String rate, String metric) {
        Map<String, String> where = new LinkedHashMap<>();
        where.put("agent", agent);
        if (azure.columns().contains("rate")) where.put("rate", rate);
        return azure.median(metric, where);
    }

    /** The Azure run's other rate than the thesis': the highest that the devices hold; null where the run had only the thesis'. */
    static String heldRate(ResultTable azure) {
        if (!azure.columns().contains("rate")) return null;
        int c = azure.index("rate");
        String thesis = Integer.toString(AzureExperiment.THESIS_RATE);
        for (List<String> row : azure.rows()) {
            if (!row.get(c).equals(thesis)) return row.get(c);
        }
        return null;
    }

    static Claim azureAtLeast(ResultTable azure, String agent, String statement) {
        return azureAtLeast(azure, agent, Integer.toString(AzureExperiment.THESIS_RATE), statement);
    }

    static Claim azureAtLeast(ResultTable azure, String agent, String rate, String statement) {
        double a = azure(azure, agent, rate, "slo_attainment");
        return new Claim(statement, Double.isNaN(a) ? Verdict.SKIP : a >= EVERY ? Verdict.PASS : Verdict.FAIL,
                String.format(Locale.ROOT, "%s %s, clockwork %s, kairos %s", agent, pct(a), pct(azure(azure, "clockwork", rate, "slo_attainment")),
                        pct(azure(azure, "kairos", rate, "slo_attainment"))));
    }

    static String pct(double share) {
        return Double.isNaN(share) ? "n/a" : String.format(Locale.ROOT, "%.2f %%", 100 * share);
    }
}
