package io.kairos.testbed.fidelity;

import io.kairos.control.DecisionPublisher;
import io.kairos.control.inferline.InferLinePlanner;
import io.kairos.control.inferline.PipelineDecisions;
import io.kairos.core.device.DeviceSlots;
import io.kairos.core.device.ExecutionNoise;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.pipeline.Edge;
import io.kairos.core.pipeline.PipelineSpec;
import io.kairos.jobs.ServingJob;
import io.kairos.jobs.config.ServingConfig;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.ResultStatus;
import io.kairos.schema.StageResult;
import io.kairos.schema.StageTimes;
import io.kairos.sim.Delay;
import io.kairos.sim.pipeline.JobCalibration;
import io.kairos.sim.pipeline.PipelineConfig;
import io.kairos.sim.pipeline.PipelineEstimate;
import io.kairos.sim.pipeline.PipelineEstimator;
import io.kairos.sim.pipeline.StageConfig;
import io.kairos.tools.format.Numbers;
import io.kairos.tools.client.OpenLoopPacer;
import io.kairos.tools.client.RequestProducer;
import io.kairos.tools.client.ResultConsumer;
import io.kairos.tools.embedded.EmbeddedKafkaBroker;
import io.kairos.testbed.experiment.Figures;
import io.kairos.testbed.experiment.ResultTable;
import io.kairos.tools.progress.ProgressLine;
import io.kairos.workload.ArrivalProcess;
import io.kairos.workload.ArrivalTrace;
import me.tongfei.progressbar.ProgressBar;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * InferLine's Fig 9: the estimator's P99 against the P99 of the serving job, for the planner's
 * configuration of each pipeline and a deliberately infeasible one (one replica fewer at the
 * bottleneck). Each configuration is published to the job as {@code kairos plan pipeline
 * --publish} publishes it ({@link PipelineDecisions}), the same trace is replayed into it at its
 * arrival times, and every request's end-to-end latency is taken from its one final result, from
 * the client's send to the last stage's result.
 *
 * <p>What the estimator does not see is the time between stages: each stage's request crosses
 * Kafka (the requests topic for the entry, the hops topic after), is admitted, and its result
 * emitted. The warm-up of each configuration measures it per stage visit: a request's end-to-end
 * latency less the time its stages held it in their queues and on their devices, divided by its
 * stages. Its median is given to the estimator as its hop overhead, with, inside the stages, the
 * warm-ups' hand-overs from each batch's dispatch to its device's start and the devices' runs
 * beyond their profiles, drawn as measured ({@link JobCalibration}): under load the hand-over's
 * tail is tens of milliseconds that no stage's scheduler books. Both estimates, so calibrated and
 * ideal, are written.
 *
 * <p>Simulated devices give no outputs, so a conditional edge is taken by its probability in the
 * job as in the estimator; the requests' SLO is a large multiple of the pipeline's so that no
 * stage drops one (the estimator sheds nothing), and latencies are judged against the pipeline's.
 */
final class PipelineFidelity {
    /** The client's SLO as a multiple of the pipeline's: nothing is dropped for its deadline. */
    static final int CLIENT_SLO_FACTOR = 20;

    /** A configuration to measure: the planner's, or one made infeasible on purpose. */
    record Case(PipelineSpec pipeline, String kind, PipelineConfig config) {}

    /** One configuration's two sides. */
    record Row(Case c, double costPerHour, long requests, long measuredP99Micros, long estimatedP99Micros, long rawEstimatedP99Micros,
               long overheadMicros, boolean estimatedFeasible) {
        long sloMicros() {
            return c.pipeline().sloP99Micros();
        }

        boolean measuredFeasible() {
            return measuredP99Micros <= sloMicros();
        }

        double gapRatio() {
            return (estimatedP99Micros - measuredP99Micros) / (double) Math.max(1, measuredP99Micros);
        }
    }

    private final ModelCatalog catalog;
    private final double rate;
    private final long traceMicros;
    private final long warmupMicros;
    private final long seed;
    private final Long fixedOverheadMicros;
    private final PrintWriter out;
    // Each batch's execution beyond its profile, in the warm-ups: what the devices add under load.
    private final List<Long> overruns = new ArrayList<>();
    // Each batch's hand-over, from its dispatch by the scheduler to its start on the device, in the warm-ups.
    private final List<Long> handovers = new ArrayList<>();
    private String measuredOverheads = "";

    PipelineFidelity(ModelCatalog catalog, double rate, long traceMicros, long warmupMicros, long seed, Long fixedOverheadMicros, PrintWriter out) {
        this.catalog = catalog;
        this.rate = rate;
        this.traceMicros = traceMicros;
        this.warmupMicros = warmupMicros;
        this.seed = seed;
        this.fixedOverheadMicros = fixedOverheadMicros;
        this.out = out;
    }

    /** The catalog with every model's input cut to 16 values: hops carry small records; the latencies are the profiles'. */
    static ModelCatalog smallInputs(String json, String source) {
        return slowed(json, source, 1);
    }

    private static final java.util.regex.Pattern LINEAR = java.util.regex.Pattern.compile(
            "\"latency_ms\"\\s*:\\s*\\{\\s*\"alpha\"\\s*:\\s*([0-9.eE+-]+)\\s*,\\s*\"beta\"\\s*:\\s*([0-9.eE+-]+)\\s*}");

    /**
     * {@link #smallInputs}, with every linear profile ({@code alpha}, {@code beta}) {@code slowdown}
     * times slower: with the SLOs as much longer and the rate as much lower, the same queueing
     * system on a slower clock, in which the job's own time between stages weighs less.
     *
     * @throws IllegalArgumentException for a profile that is not linear, which it cannot slow down
     */
    static ModelCatalog slowed(String json, String source, double slowdown) {
        String small = json.replaceAll("\"shape\"\\s*:\\s*\\[[^\\]]*\\]", "\"shape\": [16]");
        if (slowdown == 1) return ModelCatalog.parse(small, source);
        if (small.contains("\"table\"")) throw new IllegalArgumentException("a profile given as a table cannot be slowed down; give alpha and beta");
        var m = LINEAR.matcher(small);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(out, String.format(Locale.ROOT, "\"latency_ms\": {\"alpha\": %s, \"beta\": %s}",
                    Double.parseDouble(m.group(1)) * slowdown, Double.parseDouble(m.group(2)) * slowdown));
        }
        m.appendTail(out);
        return ModelCatalog.parse(out.toString(), source);
    }

    /** The spec with its conditions replaced by their probabilities: a simulated device has no output to test. */
    static PipelineSpec byProbability(PipelineSpec p) {
        return byProbability(p, 1);
    }

    /** {@link #byProbability(PipelineSpec)} with the SLO {@code slowdown} times longer. */
    static PipelineSpec byProbability(PipelineSpec p, double slowdown) {
        List<Edge> edges = p.edges().stream().map(e -> new Edge(e.from(), e.to(), e.probability())).toList();
        return new PipelineSpec(p.id(), Math.round(p.sloP99Micros() * slowdown), p.stages(), edges);
    }

    ArrivalTrace trace(long salt, long micros) {
        return ArrivalTrace.generate(ArrivalProcess.poisson(rate), micros, seed + salt);
    }

    /** The planner's configuration on the trace, and the same with one replica fewer at its bottleneck where it has more than one. */
    List<Case> cases(PipelineSpec pipeline) {
        ArrivalTrace trace = trace(0, traceMicros);
        InferLinePlanner planner = new InferLinePlanner(new PipelineEstimator(catalog, pipeline, trace, seed), pipeline.sloP99Micros(),
                trace.meanRatePerSecond(), catalog.hardwareTypes().stream().map(t -> t.name()).toList());
        InferLinePlanner.Plan plan = planner.plan();
        if (!plan.feasible()) throw new IllegalArgumentException("pipeline '" + pipeline.id() + "': " + plan.infeasibility());
        List<Case> cases = new ArrayList<>(List.of(new Case(pipeline, "planned", plan.config())));
        // The most utilised stage that can lose a replica.
        PipelineConfig config = plan.config();
        String bottleneck = planner.bottleneck(config);
        if (config.stage(bottleneck).replicas() == 1) {
            bottleneck = null;
            for (String s : pipeline.topologicalOrder()) if (config.stage(s).replicas() > 1 && bottleneck == null) bottleneck = s;
        }
        if (bottleneck != null) {
            StageConfig c = config.stage(bottleneck);
            cases.add(new Case(pipeline, "bottleneck-1", config.with(bottleneck, c.withReplicas(c.replicas() - 1))));
        }
        return cases;
    }

    /** The job's slots: per type the most any case needs. */
    static String deviceTypes(List<Case> cases) {
        Map<String, Integer> most = new LinkedHashMap<>();
        for (Case c : cases) c.config().devicesByType().forEach((type, n) -> most.merge(type, n, Math::max));
        return String.join(",", most.entrySet().stream().map(e -> e.getKey() + ":" + e.getValue()).toList());
    }

    List<Row> run(List<Case> cases) throws Exception {
        String types = deviceTypes(cases);
        DeviceSlots slots = DeviceSlots.parse(types, catalog);
        List<long[]> measured = new ArrayList<>();
        List<Long> overheads = new ArrayList<>();
        overruns.clear();
        handovers.clear();
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start()) {
            ServingConfig.Builder builder = ServingConfig.builder();
            builder.bootstrapServers = broker.bootstrapServers();
            builder.devices = slots.count();
            builder.deviceTypes = types;
            builder.simulatedSpeed = 1.0;
            builder.fromEarliest = true;
            ServingConfig config = builder.build();
            for (String topic : config.topics()) broker.createTopic(topic, 1);
            Configuration flink = new Configuration();
            flink.set(RestOptions.BIND_PORT, "0");
            out.println("starting the broker, the Flink mini-cluster and the serving job (simulated devices " + types + ") ...");
            JobClient job = ServingJob.onKafka(config, catalog).start(StreamExecutionEnvironment.createLocalEnvironment(slots.count(), flink));
            try (DecisionPublisher publisher = new DecisionPublisher(broker.bootstrapServers(), config.controlTopic, config.outcomesTopic, "kairos-fidelity");
                 RequestProducer producer = new RequestProducer(broker.bootstrapServers(), config.requestsTopic, catalog);
                 ResultConsumer results = new ResultConsumer(ResultConsumer.lowLatencyConfig(broker.bootstrapServers()), config.resultsTopic,
                         ResultConsumer.StartAt.EARLIEST);
                 ProgressBar bar = ProgressLine.bar("pipelines in the job", cases.size(), s -> List.of(ProgressLine.count(s, "configurations"),
                         ProgressLine.remaining(s)))) {
                int i = 0;
                for (Case c : cases) {
                    List<Object> actions = PipelineDecisions.actions(c.pipeline(), c.config(), slots, c.pipeline().sloP99Micros());
                    // The first decision waits for the job to start.
                    PipelineDecisions.Refusal refused = PipelineDecisions.publish(publisher, actions, Duration.ofSeconds(i == 0 ? 120 : 30), line -> {});
                    if (refused != null) throw new IllegalStateException(c.pipeline().id() + " " + c.kind() + ": " + refused.line());
                    long[] warm = replay(producer, results, c, "w" + i + "-", trace(1 + i, warmupMicros));
                    for (long w : warm) if (w >= 0) overheads.add(w);
                    measured.add(replay(producer, results, c, measuredPrefix(i), null));
                    bar.step();
                    i++;
                }
            } finally {
                job.cancel().get();
            }
        }
        long overhead = fixedOverheadMicros != null ? fixedOverheadMicros : percentile(overheads, 50);
        measuredOverheads = String.format(Locale.ROOT, "Time between stages the estimator does not see, per stage visit, in the warm-ups (%,d requests): "
                        + "p50 %.2f ms, p90 %.2f ms, p99 %.2f ms; the estimator is given %.2f ms. Execution beyond the profile, per stage visit: p50 %.2f ms, p99 %.2f ms. "
                        + "Hand-over from the scheduler's dispatch to the device's start, per stage visit (part of the time in the stages): p50 %.2f ms, p90 %.2f ms, p99 %.2f ms. "
                        + "The estimator draws the hand-overs and overruns as measured.",
                overheads.size(), percentile(overheads, 50) / 1000.0, percentile(overheads, 90) / 1000.0, percentile(overheads, 99) / 1000.0, overhead / 1000.0,
                percentile(overruns, 50) / 1000.0, percentile(overruns, 99) / 1000.0,
                percentile(handovers, 50) / 1000.0, percentile(handovers, 90) / 1000.0, percentile(handovers, 99) / 1000.0);
        out.println(measuredOverheads);
        // The job as the warm-ups measured it: its time between stages, and inside the stages its
        // hand-over to the devices and their overruns, which the stages' schedulers do not see.
        JobCalibration calibration = new JobCalibration(overhead,
                handovers.isEmpty() ? Delay.NONE : Delay.empirical(handovers.stream().mapToLong(h -> Math.max(0, h)).toArray()),
                overruns.isEmpty() ? ExecutionNoise.none() : ExecutionNoise.overrun(overruns.stream().mapToLong(Long::longValue).toArray()));
        List<Row> rows = new ArrayList<>();
        ArrivalTrace trace = trace(0, traceMicros);
        for (int i = 0; i < cases.size(); i++) {
            Case c = cases.get(i);
            long slo = c.pipeline().sloP99Micros();
            // The paths the job's requests took: drawn from the ids they were sent under ("m<case>-<k>"), as the job draws them.
            String prefix = measuredPrefix(i);
            java.util.function.IntFunction<String> ids = k -> prefix + k;
            PipelineEstimate raw = new PipelineEstimator(catalog, c.pipeline(), trace, seed, JobCalibration.NONE, ids).estimateAll(c.config(), slo);
            PipelineEstimate with = new PipelineEstimator(catalog, c.pipeline(), trace, seed, calibration, ids).estimateAll(c.config(), slo);
            long[] latencies = measured.get(i);
            rows.add(new Row(c, c.config().costPerHour(catalog), latencies.length, p99(latencies), with.p99Micros(), raw.p99Micros(), overhead, with.feasible()));
        }
        return rows;
    }

    /** The ids of case {@code i}'s measured requests: this prefix and their index in the trace. */
    private static String measuredPrefix(int i) {
        return "m" + i + "-";
    }

    /**
     * Sends the trace's arrivals (the measured trace when {@code warmup} is null) into the case's
     * pipeline at their times and waits for their results. Returns, measured, each request's
     * end-to-end latency (a request without an OK or LATE result: the longest value); for a
     * warm-up, each request's time per stage visit outside its stages' queues and devices.
     */
    private long[] replay(RequestProducer producer, ResultConsumer results, Case c, String prefix, ArrivalTrace warmup) throws InterruptedException {
        ArrivalTrace trace = warmup != null ? warmup : trace(0, traceMicros);
        long[] times = trace.times();
        long[] values = new long[times.length];
        Arrays.fill(values, warmup != null ? -1 : Long.MAX_VALUE);
        long[] received = new long[1];
        results.onResult((r, at) -> {
            if (!r.getRequestId().startsWith(prefix)) return;
            int k = Integer.parseInt(r.getRequestId().substring(prefix.length()));
            received[0]++;
            if (r.getStatus() != ResultStatus.OK && r.getStatus() != ResultStatus.LATE) return;
            values[k] = warmup != null ? outsideStages(r) : r.getTimings().getEmitted() - r.getTimings().getSent();
            if (warmup != null) overruns(c, r);
        });
        String entry = c.pipeline().entry().model();
        double sloMs = CLIENT_SLO_FACTOR * c.pipeline().sloP99Micros() / 1000.0;
        producer.idPrefix(prefix);
        AtomicBoolean sending = new AtomicBoolean(true);
        Thread reader = new Thread(() -> {
            while (sending.get()) results.poll(Duration.ofMillis(20));
        }, "fidelity-results");
        reader.start();
        try {
            long first = times[0];
            OpenLoopPacer pacer = new OpenLoopPacer();
            for (long t : times) {
                pacer.awaitOffset(t - first);
                producer.sendToPipeline("fidelity", c.pipeline().id(), entry, sloMs);
            }
            producer.flush();
        } finally {
            sending.set(false);
            reader.join();
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (received[0] < times.length && System.nanoTime() < deadline) results.poll(Duration.ofMillis(50));
        return values;
    }

    /** Each stage's execution less its profile's time for the batch on the stage's hardware type. */
    private void overruns(Case c, InferenceResult r) {
        for (StageResult s : r.getStages()) {
            StageTimes t = s.getTimings();
            if (t.getExecStart() == null || t.getExecEnd() == null || s.getBatchSize() < 1) continue;
            long profile = c.config().stage(s.getStage()).profile(catalog.get(s.getModel())).latencyMicros(s.getBatchSize());
            overruns.add(t.getExecEnd() - t.getExecStart() - profile);
            if (t.getDispatched() != null) handovers.add(t.getExecStart() - t.getDispatched());
        }
    }

    /** What the warm-ups measured, in one paragraph. */
    String measuredOverheads() {
        return measuredOverheads;
    }

    /** A result's time outside its stages (end to end, less each stage's enqueue to batch end), per stage visited. */
    static long outsideStages(InferenceResult r) {
        long inside = 0;
        for (StageResult s : r.getStages()) {
            StageTimes t = s.getTimings();
            if (t.getEnqueued() == null || t.getExecEnd() == null) return -1;
            inside += t.getExecEnd() - t.getEnqueued();
        }
        return r.getStages().isEmpty() ? -1 : (r.getTimings().getEmitted() - r.getTimings().getSent() - inside) / r.getStages().size();
    }

    /** The nearest-rank P99, the estimator's: the ⌈0.99·N⌉-th smallest. */
    static long p99(long[] latencies) {
        long[] sorted = latencies.clone();
        Arrays.sort(sorted);
        return sorted[(int) ((99L * sorted.length + 99) / 100) - 1];
    }

    /** The nearest-rank percentile; 0 of none. */
    static long percentile(List<Long> values, double p) {
        if (values.isEmpty()) return 0;
        long[] v = values.stream().mapToLong(Long::longValue).toArray();
        Arrays.sort(v);
        return v[Math.max(0, (int) Math.ceil(p / 100 * v.length) - 1)];
    }

    static final List<String> COLUMNS = List.of("pipeline", "configuration", "kind", "cost_per_hour", "slo_ms", "requests", "measured_p99_ms",
            "estimated_p99_ms", "estimated_p99_without_overhead_ms", "hop_overhead_ms", "gap_pct", "measured_feasible", "estimated_feasible");

    static ResultTable table(List<Row> rows) {
        ResultTable t = new ResultTable(COLUMNS);
        for (Row r : rows) {
            t.add(List.of(r.c().pipeline().id(), r.c().config().toString().replace(',', ';'), r.c().kind(), String.format(Locale.ROOT, "%.3f", r.costPerHour()),
                    ms(r.sloMicros()), Long.toString(r.requests()), r.measuredP99Micros() == Long.MAX_VALUE ? "inf" : ms(r.measuredP99Micros()),
                    ms(r.estimatedP99Micros()), ms(r.rawEstimatedP99Micros()), ms(r.overheadMicros()), String.format(Locale.ROOT, "%.1f", 100 * r.gapRatio()),
                    Boolean.toString(r.measuredFeasible()), Boolean.toString(r.estimatedFeasible())));
        }
        return t;
    }

    private static String ms(long micros) {
        return String.format(Locale.ROOT, "%.3f", micros / 1000.0);
    }

    /**
     * The shape check: every configuration the job found feasible estimated within 10 % of its
     * P99, and none the job measured above its SLO estimated feasible.
     */
    static List<String> shapeCheck(List<Row> rows) {
        List<String> lines = new ArrayList<>();
        double gap = io.kairos.testbed.experiment.Targets.of("fidelity", "pipeline-p99-gap");
        boolean within = true;
        boolean safe = true;
        for (Row r : rows) {
            if (r.measuredFeasible() && Math.abs(r.gapRatio()) > gap) within = false;
            if (!r.measuredFeasible() && r.estimatedFeasible()) safe = false;
        }
        boolean any = rows.stream().anyMatch(Row::measuredFeasible);
        lines.add("every configuration feasible in the job estimated within " + io.kairos.tools.format.Numbers.significant(100 * gap) + " % of its measured P99: "
                + (!any ? "FAIL (none was feasible in the job: nothing compared)" : within ? "PASS" : "FAIL"));
        lines.add("no configuration above its SLO in the job estimated feasible: " + (safe ? "PASS" : "FAIL"));
        return lines;
    }

    /**
     * Estimated against measured P99, one marker per configuration, with y = x and the ±10 % band,
     * on logarithmic axes: an infeasible configuration's P99 can be many times its SLO.
     */
    static Path draw(ResultTable csv, Path png) throws IOException {
        ResultTable points = new ResultTable(List.of("series", "measured_ms", "estimated_ms"));
        double top = 0;
        double bottom = Double.MAX_VALUE;
        for (List<String> row : csv.rows()) {
            String m = row.get(csv.index("measured_p99_ms"));
            if (m.equals("inf")) continue;
            String e = row.get(csv.index("estimated_p99_ms"));
            points.add(List.of(row.get(csv.index("pipeline")) + " " + row.get(csv.index("kind")), m, e));
            double lo = Math.min(Double.parseDouble(m), Double.parseDouble(e));
            double hi = Math.max(Double.parseDouble(m), Double.parseDouble(e));
            top = Math.max(top, hi);
            bottom = Math.min(bottom, lo);
        }
        if (top == 0) bottom = top = 1;
        top *= 1.2;
        bottom /= 1.2;
        for (double f : new double[] {1.0, 1.1, 0.9}) {
            String name = f == 1.0 ? "y = x" : f > 1 ? "+10 %" : "-10 %";
            points.add(List.of(name, Numbers.threeDecimals(bottom), Numbers.threeDecimals(bottom * f)));
            points.add(List.of(name, Numbers.threeDecimals(top), Numbers.threeDecimals(top * f)));
        }
        return Figures.lines("measured_ms", "estimated_ms").logX().logY().series("series")
                .xAxis("P99 measured in the Flink job (ms)").yAxis("P99 estimated (ms)", null, null)
                .title("InferLine's Fig 9: the estimator against the serving job, planned and infeasible configurations")
                .save(points, png);
    }

    /** The system load average over the last minute, as the OS reports it; negative where it cannot. */
    static double loadAverage() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    static void write(Path dir, List<Row> rows, String header) throws IOException {
        Files.createDirectories(dir);
        ResultTable t = table(rows);
        Path csv = dir.resolve("fig9-p99.csv");
        t.write(csv);
        draw(ResultTable.read(csv), dir.resolve("fig9-p99.png"));
        StringBuilder s = new StringBuilder("# Fig 9: the estimator against the job\n\n").append(header).append("\n\n");
        s.append("| pipeline | configuration | kind | SLO ms | measured P99 ms | estimated P99 ms | without overhead ms | gap |\n");
        s.append("| --- | --- | --- | --- | --- | --- | --- | --- |\n");
        for (Row r : rows) {
            s.append(String.format(Locale.ROOT, "| %s | %s | %s | %.0f | %s | %.1f | %.1f | %+.1f %% |%n", r.c().pipeline().id(), r.c().config(), r.c().kind(),
                    r.sloMicros() / 1000.0, r.measuredP99Micros() == Long.MAX_VALUE ? "no result" : String.format(Locale.ROOT, "%.1f", r.measuredP99Micros() / 1000.0),
                    r.estimatedP99Micros() / 1000.0, r.rawEstimatedP99Micros() / 1000.0, 100 * r.gapRatio()));
        }
        s.append('\n');
        for (String line : shapeCheck(rows)) s.append("- ").append(line).append('\n');
        Files.writeString(dir.resolve("fig9-summary.md"), s.toString());
    }
}
