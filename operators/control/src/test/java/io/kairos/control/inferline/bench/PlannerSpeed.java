package io.kairos.control.inferline.bench;

import io.kairos.control.inferline.InferLinePlanner;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.pipeline.PipelineSpec;
import io.kairos.sim.pipeline.PipelineEstimate;
import io.kairos.sim.pipeline.PipelineEstimator;
import io.kairos.workload.ArrivalProcess;
import io.kairos.workload.ArrivalTrace;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;

/**
 * The InferLine planner's and estimator's speed on one pipeline and a generated trace, in CPU time
 * of the planning thread (on a shared machine the wall time measures the other processes). Each
 * planner run starts from a fresh estimator, so nothing is cached between runs; the estimator's
 * speed is {@code estimateAll} of the planned configuration on a fresh estimator, in pipeline
 * requests and in stage visits per second.
 *
 * <pre>{@code
 * mvn -B -q -Pbenchmarks -pl operators/control -am test-compile
 * cd operators/control && java -cp target/test-classes:target/classes:$(cat target/benchmark-classpath.txt) \
 *     io.kairos.control.inferline.bench.PlannerSpeed models.json pipeline.json [rate=150] [cv2=1] [seconds=3600] [slo-ms=spec] [runs=5]
 * }</pre>
 */
public final class PlannerSpeed {
    private PlannerSpeed() {}

    public static void main(String[] args) {
        ModelCatalog catalog = ModelCatalog.load(Path.of(args[0]));
        PipelineSpec pipeline = PipelineSpec.load(Path.of(args[1]));
        double rate = 150;
        double cv2 = 1;
        long seconds = 3600;
        long slo = pipeline.sloP99Micros();
        int runs = 5;
        boolean steps = false;
        for (int i = 2; i < args.length; i++) {
            String[] kv = args[i].split("=", 2);
            switch (kv[0]) {
                case "rate" -> rate = Double.parseDouble(kv[1]);
                case "cv2" -> cv2 = Double.parseDouble(kv[1]);
                case "seconds" -> seconds = Long.parseLong(kv[1]);
                case "slo-ms" -> slo = Math.round(Double.parseDouble(kv[1]) * 1000);
                case "runs" -> runs = Integer.parseInt(kv[1]);
                case "steps" -> steps = true;
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        ArrivalProcess process = cv2 == 1 ? ArrivalProcess.poisson(rate) : ArrivalProcess.gamma(rate, cv2);
        ArrivalTrace trace = ArrivalTrace.generate(process, seconds * 1_000_000, 1);
        System.out.printf(Locale.ROOT, "%s, %s, SLO %.1f ms%n", pipeline.id(), trace, slo / 1000.0);
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        double[] planSeconds = new double[runs];
        InferLinePlanner.Plan plan = null;
        for (int i = 0; i < runs + 1; i++) { // the first run warms the compiler and is not counted
            PipelineEstimator estimator = new PipelineEstimator(catalog, pipeline, trace, 1);
            long cpu0 = mx.getCurrentThreadCpuTime();
            long wall0 = System.nanoTime();
            plan = new InferLinePlanner(estimator, slo, trace.meanRatePerSecond()).plan();
            double cpu = (mx.getCurrentThreadCpuTime() - cpu0) / 1e9;
            double wall = (System.nanoTime() - wall0) / 1e9;
            if (i > 0) planSeconds[i - 1] = cpu;
            System.out.printf(Locale.ROOT, "plan %d: %.2f s CPU (%.2f s wall), %d configurations estimated, %d stage simulations, %,d stage visits simulated%s%n",
                    i, cpu, wall, plan.estimates(), estimator.simulations(), estimator.simulatedRequests(), i == 0 ? " (warm-up)" : "");
        }
 if (steps) plan.steps().forEach(st -> System.out.println("  " + st.text()));
        System.out.println(plan.feasible() ? "plan: " + plan.config() + String.format(Locale.ROOT, ", cost %.4f/h, %s", plan.costPerHour(), plan.estimate().describe())
                : plan.infeasibility());
        System.out.printf(Locale.ROOT, "planner: median %.2f s CPU, runs %s%n", median(planSeconds), Arrays.toString(planSeconds));
        if (!plan.feasible()) return;
        double[] perSecond = new double[runs];
        double[] visitsPerSecond = new double[runs];
        long visits = 0;
        for (int i = 0; i < runs + 1; i++) {
            PipelineEstimator estimator = new PipelineEstimator(catalog, pipeline, trace, 1);
            long cpu0 = mx.getCurrentThreadCpuTime();
            PipelineEstimate e = estimator.estimateAll(plan.config(), slo);
            double cpu = (mx.getCurrentThreadCpuTime() - cpu0) / 1e9;
            visits = e.simulatedRequests();
            if (i > 0) {
                perSecond[i - 1] = e.requests() / cpu;
                visitsPerSecond[i - 1] = visits / cpu;
            }
        }
        System.out.printf(Locale.ROOT, "estimator: %,d requests, %,d stage visits; median %.3f M requests/s, %.3f M stage visits/s of CPU%n",
                trace.size(), visits, median(perSecond) / 1e6, median(visitsPerSecond) / 1e6);
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }
}
