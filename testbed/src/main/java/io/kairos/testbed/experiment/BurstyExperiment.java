package io.kairos.testbed.experiment;

import io.kairos.core.model.LatencyProfile;
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

/**
 * Bursty load, Shepherd's (NSDI'23) ground: 8 devices, each holding every model; 16 streams, each
 * its own ResNet50 instance, with Gamma inter-arrival times of a chosen squared coefficient of
 * variation (1 is Poisson; Shepherd's traces reach tens); the total rate a share of the group's
 * capacity at the largest batch (8 x 16 requests in 14.7 ms = 8,707 requests/s); SLO 100 ms.
 * Shepherd reports up to 18.1x Clockwork's goodput for Flex; {@link #check} finds the largest
 * ratio of these runs and where it is.
 *
 * <p>{@link #onZooCpu} is the same experiment on ResNet-50's profile measured on a CPU core (the
 * model zoo's committed profiles, {@code testbed/zoo/profiles.json}) in place of the V100 line:
 * every time in it (SLO, run length, warm-up) scaled by the two profiles' ratio at the largest batch,
 * so that the SLO holds as many full batches as on the V100 and the runs see as many requests; what
 * differs is the profile's shape (how much a batch saves), on which the policies' ranking may turn.
 */
public final class BurstyExperiment implements Experiment {
    public static final String NAME = "bursty";
    public static final String ZOO_CPU_NAME = "bursty-zoo-cpu";
    public static final String DESCRIPTION = "bursty load: 16 ResNet50 streams on 8 devices, Gamma arrivals with CV^2 1-64, 50-120 % of capacity, SLO 100 ms";
    /** The zoo's experiment as described before its profile is read (its description then gives the SLO in ms). */
    public static final String ZOO_CPU_DESCRIPTION = "bursty load on ResNet-50's measured CPU profile (testbed/zoo/profiles.json):"
            + " 16 streams on 8 devices, CV^2 1-64, 50-120 % of capacity, SLO 100 ms times its latency at the largest batch over the built-in profile's";
    /** The zoo's profiles measured on the CPU, under the checkout ({@code kairos.home}). */
    static final Path ZOO_CPU_PROFILES = Path.of("testbed", "zoo", "profiles.json");
    static final String MODEL = "resnet50";
    static final int DEVICES = 8;
    static final int STREAMS = 16;
    static final double SLO_MS = 100;

    private final String name;
    private final java.util.function.Supplier<ModelCatalog> catalogs;
    /** Times of this run over the built-in V100 experiment's: 1 there. */
    private final double timeScale;

    public BurstyExperiment() {
        this(NAME, ModelCatalog::builtIn, 1);
    }

    private BurstyExperiment(String name, java.util.function.Supplier<ModelCatalog> catalogs, double timeScale) {
        this.name = name;
        this.catalogs = catalogs;
        this.timeScale = timeScale;
    }

    /** The experiment on the zoo's measured CPU profile of ResNet-50, its times scaled (above). */
    public static BurstyExperiment onZooCpu() {
        Path file = Path.of(System.getProperty("kairos.home", ".")).resolve(ZOO_CPU_PROFILES);
        String json;
        try {
            json = java.nio.file.Files.readString(file);
        } catch (IOException e) {
            throw new IllegalArgumentException(file + ": cannot read the zoo's CPU profiles (" + e.getMessage() + ")");
        }
        return onProfiles(ZOO_CPU_NAME, json, file.toString());
    }

    /** The experiment on the {@code resnet50} profile of a profiles file's JSON, its times scaled (above). */
    static BurstyExperiment onProfiles(String name, String json, String source) {
        java.util.function.Supplier<ModelCatalog> catalogs = () -> ModelCatalog.parse(json, source);
        if (!catalogs.get().contains(MODEL)) throw new IllegalArgumentException(source + ": has no profile of '" + MODEL + "'");
        return new BurstyExperiment(name, catalogs, atLargestBatch(catalogs.get()) / atLargestBatch(ModelCatalog.builtIn()));
    }

    private static double atLargestBatch(ModelCatalog catalog) {
        LatencyProfile p = catalog.get(MODEL).latency();
        return p.latencyMicros(p.maxBatch());
    }

    double sloMs() {
        return SLO_MS * timeScale;
    }
    static final List<Integer> CV2S = List.of(1, 4, 16, 64);
    static final List<Double> LOADS = List.of(0.5, 0.7, 0.8, 0.9, 1.0, 1.2);
    static final double SHEPHERD_RATIO = Targets.of(NAME, "flex-over-clockwork");

    @Override
    public String name() {
        return name;
    }

    @Override
    public String description() {
        return timeScale == 1
                ? DESCRIPTION
                : String.format(Locale.ROOT, "bursty load on ResNet-50's measured CPU profile (%s): 16 streams on 8 devices, CV^2 1-64,"
                        + " 50-120 %% of capacity, SLO %.0f ms (100 ms times %.1f)", ZOO_CPU_PROFILES, sloMs(), timeScale);
    }

    @Override
    public Settings defaults() {
        return Settings.of(30 * timeScale, 5 * timeScale, 3).withPolicies(List.of("clockwork", "flex", "kairos", "triton"));
    }

    @Override
    public List<String> pointColumns() {
        return List.of("cv2", "load");
    }

    @Override
    public List<Point> points() {
        List<Point> points = new ArrayList<>();
        for (int cv2 : CV2S) {
            for (double load : LOADS) points.add(Point.of(cv2, load));
        }
        return points;
    }

    /** Requests per second that the group serves with every device running full batches back to back. */
    static double capacityPerSecond(ModelCatalog catalog) {
        LatencyProfile p = catalog.get(MODEL).latency();
        return DEVICES * p.maxBatch() * 1e6 / p.latencyMicros(p.maxBatch());
    }

    @Override
    public Simulation.Builder setup(Point point) {
        double cv2 = Double.parseDouble(point.get(0));
        double load = Double.parseDouble(point.get(1));
        ModelCatalog catalog = catalogs.get(); // a catalog per run: it caches instance specs as they are asked for
        double perStream = load * capacityPerSecond(catalog) / STREAMS;
        List<ModelLoad> loads = new ArrayList<>();
        for (int i = 0; i < STREAMS; i++) {
            ArrivalProcess arrivals = cv2 == 1 ? ArrivalProcess.poisson(perStream) : ArrivalProcess.gamma(perStream, cv2);
            loads.add(new ModelLoad(ModelLoad.DEFAULT_TENANT, ModelCatalog.instanceName(MODEL, i), sloMs(), arrivals));
        }
        return Simulation.builder(catalog).devices(DEVICES).workload(new Workload(loads));
    }

    @Override
    public List<Path> drawFigures(ResultTable results, Path dir) throws IOException {
        return List.of(
                Figures.lines("load", "goodput_per_s").numericX().xAxis("offered load (share of capacity)")
                        .yAxis("goodput (requests/s within SLO)", 0.0, null).panels(null, "cv2")
                        .panelTitle(p -> "CV^2 = " + p.get("cv2"))
                        .title("Goodput of each policy against the offered load, from Poisson (CV^2 = 1) to bursty arrivals: " + DEVICES + " devices, SLO " + Math.round(sloMs()) + " ms")
                        .save(results, dir.resolve("goodput.png")),
                Figures.lines("load", "slo_attainment").numericX().scale(100).xAxis("offered load (share of capacity)")
                        .yAxis("SLO attainment (%)", 0.0, 100.0).panels(null, "cv2")
                        .panelTitle(p -> "CV^2 = " + p.get("cv2"))
                        .title("SLO attainment of each policy against the offered load, from Poisson (CV^2 = 1) to bursty arrivals: " + DEVICES + " devices, SLO " + Math.round(sloMs()) + " ms")
                        .save(results, dir.resolve("attainment.png")),
                Figures.lines("load", "mean_batch").numericX().zeroIsGap().xAxis("offered load (share of capacity)")
                        .yAxis("mean batch size (per request)", 0.0, null).panels(null, "cv2")
                        .panelTitle(p -> "CV^2 = " + p.get("cv2"))
                        .title("Mean batch size of each policy against the offered load, from Poisson (CV^2 = 1) to bursty arrivals: " + DEVICES + " devices, SLO " + Math.round(sloMs()) + " ms")
                        .save(results, dir.resolve("mean-batch.png")));
    }

    @Override
    public List<Claim> check(ResultTable results) {
        return List.of(ratioClaim(results, "flex", "clockwork",
                        "flex reaches up to " + SHEPHERD_RATIO + "x clockwork's goodput (Shepherd, NSDI'23)", SHEPHERD_RATIO),
                new PolicyComparison(results, pointColumns(), "kairos").atLeastTheBest(
                        "kairos has at least the goodput of the best other policy at every point", "goodput_per_s", true));
    }

    /** The largest ratio of {@code policy}'s goodput to {@code baseline}'s over the points (medians over seeds); PASS from {@code target}. */
    static Claim ratioClaim(ResultTable results, String policy, String baseline, String statement, double target) {
        List<String> policies = results.distinct("policy");
        if (!policies.contains(policy) || !policies.contains(baseline)) {
            return new Claim(statement, Claim.Verdict.SKIP, policy + " and " + baseline + " were not both run");
        }
        double best = Double.NEGATIVE_INFINITY;
        String where = null;
        for (List<String> point : results.distinct(List.of("cv2", "load"))) {
            Map<String, String> at = new LinkedHashMap<>();
            at.put("cv2", point.get(0));
            at.put("load", point.get(1));
            at.put("policy", baseline);
            double base = results.median("goodput_per_s", at);
            at.put("policy", policy);
            double ratio = results.median("goodput_per_s", at) / base;
            if (ratio > best) {
                best = ratio;
                where = String.format(Locale.ROOT, "CV^2 %s, load %s", point.get(0), point.get(1));
            }
        }
        String evidence = String.format(Locale.ROOT, "largest ratio %.2fx at %s", best, where);
        return new Claim(statement, best >= target ? Claim.Verdict.PASS : Claim.Verdict.FAIL, evidence);
    }
}
