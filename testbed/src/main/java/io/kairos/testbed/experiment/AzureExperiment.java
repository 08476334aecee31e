package io.kairos.testbed.experiment;

import io.kairos.core.model.ModelCatalog;
import io.kairos.sim.Simulation;
import io.kairos.workload.AzureLikeTrace;
import io.kairos.workload.AzureTrace;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The RL thesis' Azure-scale run: 12 devices, each holding every model; 61 models duplicated 66
 * times (4,026 instances, each its own queue, all with ResNet50's latency profile as in the
 * thesis); the Azure Functions trace mapped onto the instances (function f to instance f mod
 * 4,026), its rate scaled to about 9,500 requests/s; one simulated hour; SLO 100 ms for all.
 *
 * <p>The functions of one instance arrive as one stream ({@link AzureTrace#toInstanceWorkload}),
 * the same arrivals in distribution with a tenth of the streams to merge.
 *
 * <p>The trace is an {@link AzureLikeTrace} of 46,000 functions over 60 minutes (seed 1, the same
 * for every run, so that policies are compared on the same arrivals' rates), or the real trace's
 * CSV when the system property {@value #TRACE_PROPERTY} names one (its first 60 minutes). The
 * thesis reports that goodput equals throughput for Clockwork: nothing is late or dropped.
 *
 * <p>Points: the total rate. 9,500 requests/s is the thesis'; 12,000 shows the approach to capacity
 * (12 devices at batch 16 serve 13,060 requests/s).
 */
public final class AzureExperiment implements Experiment {
    public static final String NAME = "azure";
    /** A path to the real Azure Functions trace (per-minute counts CSV); unset: a generated one. */
    public static final String TRACE_PROPERTY = "kairos.azure.trace";
    static final String MODEL = "resnet50";
    static final int DEVICES = 12;
    static final int MODELS = 61;
    static final int COPIES = 66;
    static final int FUNCTIONS = 46_000;
    static final int MINUTES = 60;
    static final double SLO_MS = 100;
    static final List<Integer> RATES = List.of(9500, 12000);

    private AzureTrace trace; // immutable once made; shared by every run of the sweep

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "RL thesis' Azure run: 4,026 ResNet50 instances on 12 devices, Azure-Functions-like trace at 9,500 and 12,000 req/s, SLO 100 ms";
    }

    @Override
    public Settings defaults() {
        // One simulated hour per run: triton's grid would take 15 of them per point.
        return Settings.of(3600, 60, 1).withTritonGrid(false);
    }

    @Override
    public List<String> pointColumns() {
        return List.of("slo_ms", "rate");
    }

    @Override
    public List<Point> points() {
        List<Point> points = new ArrayList<>();
        for (int rate : RATES) points.add(Point.of((int) SLO_MS, rate));
        return points;
    }

    @Override
    public Simulation.Builder setup(Point point) {
        double rate = Double.parseDouble(point.get(1));
        AzureTrace t = trace();
        List<String> instances = instances();
        return Simulation.builder(ModelCatalog.builtIn()).devices(DEVICES)
                .workload(t.toInstanceWorkload(instances, SLO_MS, t.rateScaleFor(rate, 0, MINUTES), 0, MINUTES));
    }

    /** The 4,026 instance names: 66 copies of each of 61 models, all served with ResNet50's profile. */
    static List<String> instances() {
        List<String> names = new ArrayList<>(MODELS * COPIES);
        for (int i = 0; i < MODELS * COPIES; i++) names.add(ModelCatalog.instanceName(MODEL, i));
        return Collections.unmodifiableList(names);
    }

    @Override
    public List<Claim> check(ResultTable results) {
        PolicyComparison kairos = new PolicyComparison(results, pointColumns(), "kairos");
        return List.of(
                kairos.betterThanTheBest("kairos has more goodput than every other policy", "goodput_per_s", true, Double.NaN),
                kairos.betterThanTheBest("kairos uses fewer provisioned GPU-seconds per 1,000 good requests than every other policy",
                        "provisioned_gpu_s_per_1000_good", false, Double.NaN),
                kairos.betterThanTheBest("kairos uses fewer busy GPU-seconds per 1,000 good requests than every other policy",
                        "busy_gpu_s_per_1000_good", false, Double.NaN));
    }

    private synchronized AzureTrace trace() {
        if (trace == null) {
            String file = System.getProperty(TRACE_PROPERTY);
            trace = file != null ? AzureTrace.read(Path.of(file)) : AzureLikeTrace.of(FUNCTIONS, 9500, MINUTES).generate(1);
        }
        return trace;
    }

    @Override
    public String tableColumn() {
        return "rate";
    }

    @Override
    public List<Path> drawFigures(ResultTable results, Path dir) throws IOException {
        return List.of(
                Figures.bars("rate", "goodput_per_s").xAxis("offered load (requests/s)").yAxis("goodput (requests/s within SLO)", 0.0, null)
                        .title("Goodput of each policy on an Azure-Functions-like trace: " + DEVICES + " devices, SLO 100 ms")
                        .save(results, dir.resolve("goodput.png")),
                Figures.bars("rate", "mean_batch").xAxis("offered load (requests/s)").yAxis("mean batch size (per request)", 0.0, null)
                        .title("Mean batch size of each policy on an Azure-Functions-like trace: " + DEVICES + " devices, SLO 100 ms")
                        .save(results, dir.resolve("mean-batch.png")),
                Figures.bars("rate", "busy_gpu_s_per_1000_good").xAxis("offered load (requests/s)")
                        .yAxis("busy GPU-seconds per 1,000 good requests", 0.0, null)
                        .title("Device time each policy spends per 1,000 requests served within the SLO, Azure-Functions-like trace")
                        .save(results, dir.resolve("gpu-seconds.png")));
    }
}
