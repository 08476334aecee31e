package io.kairos.testbed.experiment;

import io.kairos.core.model.ModelCatalog;
import io.kairos.sim.Simulation;
import io.kairos.workload.ArrivalProcess;
import io.kairos.workload.ModelLoad;
import io.kairos.workload.Workload;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The RL thesis' "low SLO" sweep: 6 devices, each holding every model; 12 or 48 instances of
 * ResNet50 ({@code resnet50#0000} ..., each its own queue, never batched with another); a total
 * rate of 600, 1,200 or 2,400 requests/s spread evenly over the instances, Poisson per instance;
 * the same SLO for all, 3 to 96 ms. The thesis reports that the Clockwork heuristic meets every
 * request at 48 and 96 ms for all six workloads, and down to 6 ms at 600 and 1,200 requests/s;
 * {@link #check} tests that shape, with "every" read as at least 99.9 %.
 */
public final class LowSloExperiment implements Experiment {
    public static final String NAME = "low-slo";
    public static final String DESCRIPTION = "RL thesis' low-SLO sweep: 12 or 48 ResNet50 instances on 6 devices, 600-2400 req/s Poisson, SLO 3-96 ms";
    static final String MODEL = "resnet50";
    static final int DEVICES = 6;
    static final List<Integer> MODELS = List.of(12, 48);
    static final List<Integer> RATES = List.of(600, 1200, 2400);
    static final List<Integer> SLOS_MS = List.of(3, 6, 12, 24, 48, 96);
    /** "Meets every request", in the thesis' words, read as at least this share within SLO. */
    static final double EVERY = Targets.of("every", "every-request");

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return DESCRIPTION;
    }

    @Override
    public Settings defaults() {
        return Settings.of(30, 5, 3);
    }

    @Override
    public List<String> pointColumns() {
        return List.of("models", "rate", "slo_ms");
    }

    @Override
    public List<Point> points() {
        List<Point> points = new ArrayList<>();
        for (int models : MODELS) {
            for (int rate : RATES) {
                for (int slo : SLOS_MS) points.add(Point.of(models, rate, slo));
            }
        }
        return points;
    }

    @Override
    public Simulation.Builder setup(Point point) {
        int models = Integer.parseInt(point.get(0));
        double rate = Double.parseDouble(point.get(1));
        double slo = Double.parseDouble(point.get(2));
        return setup(models, rate, slo);
    }

    /** {@code models} instances sharing {@code rate} requests/s evenly, each request with an SLO of {@code sloMs}. */
    public static Simulation.Builder setup(int models, double rate, double sloMs) {
        List<ModelLoad> loads = new ArrayList<>();
        for (int i = 0; i < models; i++) {
            loads.add(new ModelLoad(ModelLoad.DEFAULT_TENANT, ModelCatalog.instanceName(MODEL, i), sloMs, ArrivalProcess.poisson(rate / models)));
        }
        // A catalog per run: it caches instance specs as they are first asked for, and runs go on in parallel.
        return Simulation.builder(ModelCatalog.builtIn()).devices(DEVICES).workload(new Workload(loads));
    }

    @Override
    public List<Path> drawFigures(ResultTable results, Path dir) throws IOException {
        return List.of(
                // The SLOs double from one point to the next: evenly spaced, the axis is a log axis
                // labelled at the values swept.
                Figures.lines("slo_ms", "slo_attainment").scale(100).xAxis("SLO (ms, log scale)").yAxis("SLO attainment (%)", 0.0, 100.0)
                        .panels("models", "rate").panelTitle(LowSloExperiment::panelTitle)
                        .title("SLO attainment of each policy as the SLO doubles: " + DEVICES + " simulated devices, ResNet50 instances, Poisson arrivals")
                        .save(results, dir.resolve("attainment.png")),
                Figures.lines("slo_ms", "mean_batch").zeroIsGap().xAxis("SLO (ms, log scale)").yAxis("mean batch size (per request)", 0.0, null)
                        .panels("models", "rate").panelTitle(LowSloExperiment::panelTitle)
                        .title("Mean batch size of each policy as the SLO doubles: " + DEVICES + " simulated devices, ResNet50 instances, Poisson arrivals")
                        .save(results, dir.resolve("mean-batch.png")));
    }

    private static String panelTitle(Map<String, String> panel) {
        return panel.get("models") + " models, " + panel.get("rate") + " req/s";
    }

    @Override
    public List<Claim> check(ResultTable results) {
        PolicyComparison kairos = new PolicyComparison(results, pointColumns(), "kairos");
        return List.of(
                claim(results, "clockwork meets every request (>= 99.9 %) at SLO 48 and 96 ms for all six workloads",
                        p -> p.slo >= 48),
                claim(results, "clockwork meets every request (>= 99.9 %) at SLO 6 to 96 ms at 600 and 1200 req/s",
                        p -> p.slo >= 6 && p.rate <= 1200),
                kairos.atLeastTheBest("kairos attains at least the best other policy's SLO attainment at every point",
                        "slo_attainment", true),
                kairos.betterThanTheBest("kairos attains more than the best other policy wherever that is below 100 %",
                        "slo_attainment", true, 1.0));
    }

    record At(int models, int rate, int slo) {
        @Override
        public String toString() {
            return models + " models, " + rate + " req/s, " + slo + " ms";
        }
    }

    /** Whether Clockwork's attainment (median over seeds) is at least {@link #EVERY} at every point {@code covered} selects. */
    static Claim claim(ResultTable results, String statement, Predicate<At> covered) {
        if (!results.distinct("policy").contains("clockwork")) {
            return new Claim(statement, Claim.Verdict.SKIP, "clockwork was not run");
        }
        List<String> failing = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        double lowest = Double.POSITIVE_INFINITY;
        At lowestAt = null;
        int points = 0;
        for (int models : MODELS) {
            for (int rate : RATES) {
                for (int slo : SLOS_MS) {
                    At at = new At(models, rate, slo);
                    if (!covered.test(at)) continue;
                    points++;
                    Map<String, String> where = new LinkedHashMap<>();
                    where.put("models", Integer.toString(models));
                    where.put("rate", Integer.toString(rate));
                    where.put("slo_ms", Integer.toString(slo));
                    where.put("policy", "clockwork");
                    double a = results.median("slo_attainment", where);
                    if (Double.isNaN(a)) {
                        missing.add(at.toString());
                        continue;
                    }
                    if (a < lowest) {
                        lowest = a;
                        lowestAt = at;
                    }
                    if (a < EVERY) failing.add(String.format(Locale.ROOT, "%.2f %% at %s", 100 * a, at));
                }
            }
        }
        if (!missing.isEmpty()) {
            return new Claim(statement, Claim.Verdict.SKIP, "no result for " + String.join("; ", missing));
        }
        String low = lowest >= 1 ? "all at 100 %" : String.format(Locale.ROOT, "lowest %.2f %% at %s", 100 * lowest, lowestAt);
        if (failing.isEmpty()) {
            return new Claim(statement, Claim.Verdict.PASS, points + "/" + points + " points at >= 99.9 %, " + low);
        }
        return new Claim(statement, Claim.Verdict.FAIL, (points - failing.size()) + "/" + points + " points at >= 99.9 %; below: "
                + String.join("; ", failing));
    }
}
