package io.kairos.testbed.experiment;

import io.kairos.core.model.ModelCatalog;
import io.kairos.core.request.Request;
import io.kairos.core.result.ResultStatus;
import io.kairos.sim.ArrivalSource;
import io.kairos.sim.Simulation;
import io.kairos.tools.format.Numbers;
import io.kairos.workload.Arrival;
import io.kairos.workload.ArrivalProcess;
import io.kairos.workload.ModelLoad;
import io.kairos.workload.Workload;
import io.kairos.tools.format.Numbers;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * A hot model: one model needs more than one device, and its load takes 300 ms (a ResNet-50's
 * order). Each model takes b + 4 ms at batch b (1 to 16, powers of two: 800 requests/s a device at
 * full batches), 1 GB of device memory; SLO 100 ms; six devices, each serving every model. Three
 * cases:
 * <ul>
 *   <li>{@code hot}: the model alone at 1,400 requests/s (1.75 devices' work at full batches),
 *       memory unbounded: before loads were decisions of their own, the latest-start policies
 *       kept it on the one device that held it (57.8 % within SLO);</li>
 *   <li>{@code memory-bound}: room for two models a device; the hot model at 1,400 requests/s and
 *       three others at 300 requests/s each; measured: the hot model's attainment from 10 s on;</li>
 *   <li>{@code step}: the model alone at 300 requests/s, stepping to 1,400 at 15 s; measured: the
 *       time from the step until every quarter second's arrivals are 99 % within SLO again.</li>
 * </ul>
 * Every run also counts the loads the scheduler decided per device (not the first load of a model,
 * which its first batch carries, counted in {@code cold_starts} when after the warm-up).
 */
public final class HotModelExperiment implements Experiment {
    public static final String NAME = "hot-model";
    public static final String DESCRIPTION = "a hot model on 6 devices, 300 ms loads: alone at 1,400 req/s; beside 3 others with room for 2 models a device; a step from 300 to 1,400 req/s";
    static final String HOT = "hot";
    static final int DEVICES = 6;
    static final double SLO_MS = 100;
    static final double HOT_RATE = 1_400;
    static final double OTHER_RATE = 300;
    static final long MODEL_BYTES = 1_000_000_000L;
    static final long STEP_AT_MICROS = 15_000_000;
    static final long AFTER_MICROS = 10_000_000;
    static final long BIN_MICROS = 250_000;
    static final List<String> CASES = List.of("hot", "memory-bound", "step");

    static ModelCatalog catalog() {
        StringBuilder models = new StringBuilder();
        for (String name : List.of(HOT, "m1", "m2", "m3")) {
            if (models.length() > 0) models.append(',');
            models.append(String.format(Locale.ROOT, """
                    {"name": "%s", "input": {"dtype": "FLOAT32", "shape": [3, 224, 224]}, "max_batch": 16,
                     "latency_ms": {"alpha": 1.0, "beta": 4.0}, "memory_bytes": %d, "load_ms": 300}""", name, MODEL_BYTES));
        }
        return ModelCatalog.parse("{\"models\": [" + models + "]}", "hot-model catalog");
    }

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
        return Settings.of(35, 5, 3).withPolicies(List.of("triton", "smdp", "kairos", "clockwork", "flex"));
    }

    @Override
    public List<String> pointColumns() {
        return List.of("case");
    }

    @Override
    public List<Point> points() {
        List<Point> points = new ArrayList<>();
        for (String c : CASES) points.add(Point.of(c));
        return points;
    }

    @Override
    public Simulation.Builder setup(Point point) {
        ModelCatalog catalog = catalog();
        Simulation.Builder b = Simulation.builder(catalog).devices(DEVICES);
        switch (point.get(0)) {
            case "hot" -> b.workload(new Workload(List.of(load(HOT, HOT_RATE))));
            case "memory-bound" -> b.deviceMemory(2 * MODEL_BYTES)
                    .workload(new Workload(List.of(load(HOT, HOT_RATE), load("m1", OTHER_RATE), load("m2", OTHER_RATE), load("m3", OTHER_RATE))));
            case "step" -> b.load(HotModelExperiment::step);
            default -> throw new IllegalArgumentException("unknown case '" + point.get(0) + "'; known: " + CASES);
        }
        return b;
    }

    private static ModelLoad load(String model, double rate) {
        return new ModelLoad(ModelLoad.DEFAULT_TENANT, model, SLO_MS, ArrivalProcess.poisson(rate));
    }

    /** Poisson arrivals of the hot model at 300 requests/s, at 1,400 from {@link #STEP_AT_MICROS}, drawn from the run's seed. */
    static ArrivalSource step(long seed, long untilMicros) {
        SplittableRandom random = new SplittableRandom(seed);
        List<Arrival> arrivals = new ArrayList<>();
        double t = 0;
        while (t < untilMicros) {
            double rate = t < STEP_AT_MICROS ? OTHER_RATE : HOT_RATE;
            t += -Math.log(1 - random.nextDouble()) * 1e6 / rate;
            if (t < untilMicros) arrivals.add(new Arrival((long) t, ModelLoad.DEFAULT_TENANT, HOT, SLO_MS));
        }
        return ArrivalSource.replay(arrivals).start(seed, untilMicros);
    }

    @Override
    public List<String> probeColumns() {
        return List.of("hot_attainment_after_10s", "recovery_s", "loads", "max_loads_per_device");
    }

    @Override
    public Probe probe(Point point) {
        return new HotModelProbe(point.get(0).equals("step"));
    }

    /** The hot model's fates in quarter seconds of arrival, and the loads per device. */
    static final class HotModelProbe implements Probe {
        private final boolean step;
        private final long[] ok = new long[400];
        private final long[] all = new long[400];
        private final int[] loads = new int[DEVICES];

        HotModelProbe(boolean step) {
            this.step = step;
        }

        @Override
        public void onFate(Request request, ResultStatus status, long endMicros, int batchSize) {
            if (!request.model().equals(HOT)) return;
            int bin = (int) Math.min(ok.length - 1, request.arrivalMicros() / BIN_MICROS);
            all[bin]++;
            if (status == ResultStatus.OK) ok[bin]++;
        }

        @Override
        public void onLoad(int device, String model, long startMicros, long endMicros) {
            loads[device]++;
        }

        @Override
        public List<String> values() {
            long okAfter = 0;
            long allAfter = 0;
            for (int bin = (int) (AFTER_MICROS / BIN_MICROS); bin < ok.length; bin++) {
                okAfter += ok[bin];
                allAfter += all[bin];
            }
            int total = 0;
            int most = 0;
            for (int n : loads) {
                total += n;
                most = Math.max(most, n);
            }
            return List.of(num(allAfter == 0 ? Double.NaN : (double) okAfter / allAfter), step ? num(recoverySeconds()) : "",
                    Integer.toString(total), Integer.toString(most));
        }

        /** From the step to the end of the last quarter second whose arrivals were under 99 % within SLO; 0 if none was. */
        private double recoverySeconds() {
            int first = (int) (STEP_AT_MICROS / BIN_MICROS);
            int lastBad = -1;
            for (int bin = first; bin < ok.length; bin++) {
                if (all[bin] > 0 && ok[bin] < 0.99 * all[bin]) lastBad = bin;
            }
            return lastBad < 0 ? 0 : ((lastBad + 1) * BIN_MICROS - STEP_AT_MICROS) / 1e6;
        }

        private static String num(double v) {
            return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%.4f", v);
        }
    }

    @Override
    public String tableColumn() {
        return "case";
    }

    @Override
    public List<Path> drawFigures(ResultTable results, Path dir) throws IOException {
        return List.of(Figures.bars("case", "slo_attainment").scale(100).xAxis("case").yAxis("SLO attainment (%)", 0.0, 100.0)
                .title("A hot model on " + DEVICES + " devices with 300 ms loads: SLO attainment of each policy (median of seeds, range)")
                .save(results, dir.resolve("attainment.png")));
    }

    @Override
    public List<Claim> check(ResultTable results) {
        List<Claim> claims = new ArrayList<>();
        double hotTarget = Targets.of(NAME, "hot-attainment");
        double loadsTarget = Targets.of(NAME, "hot-loads-per-device");
        double afterTarget = Targets.of(NAME, "memory-bound-after-10s");
        double recoveryTarget = Targets.of(NAME, "step-recovery-s");
        for (String policy : List.of("kairos", "clockwork", "flex")) {
            if (!results.distinct("policy").contains(policy)) continue;
            double hot = median(results, "hot", policy, "slo_attainment");
            double most = max(results, "hot", policy, "max_loads_per_device");
            claims.add(new Claim(policy + String.format(Locale.ROOT, ": the hot case at least %s %% within SLO, each device loading the model at most %.0f time(s)", Numbers.significant(100 * hotTarget), loadsTarget),
                    hot >= hotTarget && most <= loadsTarget ? Claim.Verdict.PASS : Claim.Verdict.FAIL,
                    String.format(Locale.ROOT, "median %.2f %%, at most %.0f loads on a device", 100 * hot, most)));
            double after = median(results, "memory-bound", policy, "hot_attainment_after_10s");
            claims.add(new Claim(policy + ": memory-bound, the hot model at least " + Numbers.significant(100 * afterTarget) + " % within SLO after 10 s",
                    after >= afterTarget ? Claim.Verdict.PASS : Claim.Verdict.FAIL, String.format(Locale.ROOT, "median %.2f %%", 100 * after)));
            double recovery = median(results, "step", policy, "recovery_s");
            claims.add(new Claim(policy + ": after the step, 99 % again within one load time plus 2 s (" + Numbers.significant(recoveryTarget) + " s)",
                    recovery <= recoveryTarget ? Claim.Verdict.PASS : Claim.Verdict.FAIL, String.format(Locale.ROOT, "median %.2f s", recovery)));
        }
        return claims;
    }

    private static double median(ResultTable results, String c, String policy, String column) {
        return results.median(column, java.util.Map.of("case", c, "policy", policy));
    }

    private static double max(ResultTable results, String c, String policy, String column) {
        double most = Double.NEGATIVE_INFINITY;
        ResultTable rows = results.filter("case", c).filter("policy", policy);
        int at = rows.index(column);
        for (List<String> row : rows.rows()) most = Math.max(most, Double.parseDouble(row.get(at)));
        return most;
    }
}
