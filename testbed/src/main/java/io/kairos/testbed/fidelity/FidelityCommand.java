package io.kairos.testbed.fidelity;

import io.kairos.core.device.ExecutionNoise;
import io.kairos.core.model.LatencyEstimator;
import io.kairos.jobs.options.DevicesOption;
import io.kairos.jobs.options.LearnLatencyOption;
import io.kairos.jobs.options.PolicyOptions;
import io.kairos.tools.demo.HandoverDelays;
import io.kairos.tools.options.RunLengthOptions;
import io.kairos.tools.options.SeedOption;
import picocli.CommandLine.Mixin;
import io.kairos.control.DecisionPublisher;
import io.kairos.core.metrics.ResultSummary;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.result.ResultStatus;
import io.kairos.core.time.WallClock;
import io.kairos.jobs.ServingJob;
import io.kairos.jobs.config.ServingConfig;
import io.kairos.jobs.options.ReportCoalescingOptions;
import io.kairos.schema.DecisionOutcome;
import io.kairos.schema.DecisionStatus;
import io.kairos.schema.InferenceResult;
import io.kairos.sim.ArrivalSource;
import io.kairos.sim.Delay;
import io.kairos.sim.Simulation;
import io.kairos.sim.TimedDecision;
import io.kairos.tools.client.RequestProducer;
import io.kairos.tools.client.ResultConsumer;
import io.kairos.tools.embedded.EmbeddedKafkaBroker;
import io.kairos.jobs.options.ConfigFlags;
import io.kairos.testbed.experiment.Figures;
import io.kairos.testbed.experiment.ResultTable;
import io.kairos.wire.result.ResultStatuses;
import io.kairos.workload.Arrival;
import io.kairos.workload.Workload;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Experiment 4, fidelity: one workload through the real Flink job (embedded broker and
 * mini-cluster, simulated devices) and then through the simulator, which replays exactly the
 * arrivals the job's scheduler saw, with their deadlines. Both are measured inside the serving
 * group, from admission by the scheduler to the end of the batch, because that is what the
 * simulator models; Kafka's hops are the pipeline's business and are measured by {@code bench}.
 *
 * <p>With {@code --placement-change}, a {@code SetPlacement} goes to the job's control topic during
 * the measured run, and the simulator replays the same decision at the same instant of its run,
 * applied by the same core code: the fidelity of a plan that changes under load.
 */
@Command(name = "fidelity", mixinStandardHelpOptions = true,
        description = "Runs a workload through the Flink job and through the simulator, and compares SLO attainment and p99.")
public class FidelityCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--workload", description = "model:rate:sloMs,... (default: ${DEFAULT-VALUE})")
    String workload = "resnet50:250:40,googlenet:400:25,mlp:300:20";

    /** Simulated devices, in the job and in the simulator. */
    @Mixin
    DevicesOption devices = new DevicesOption(2);

    /** The same policy and parameters in the job and in the simulator. */
    @Mixin
    PolicyOptions policy = new PolicyOptions();

    /** Whether the schedulers learn the latency from the devices' reports, in the job and in the simulator alike. */
    @Mixin
    LearnLatencyOption learn = new LearnLatencyOption();

    /** How the job's devices gather their reports (the simulator's scheduler learns each batch's end when it ends). */
    @Mixin
    ReportCoalescingOptions coalescing = new ReportCoalescingOptions();

    /** The simulator's hand-over delay is measured in the warm-up. */
    @Mixin
    RunLengthOptions runLength = new RunLengthOptions(60, 10);

    @Option(names = "--handover-keep", description = "Percent of the warm-up's hand-over samples, the shortest, that calibrate the simulator; the longest are stalls of the warm-up itself (default: ${DEFAULT-VALUE}).")
    double handoverKeep = 99;

    /** How the simulator takes the warm-up's hand-overs: replayed in time, or drawn one by one. */
    enum HandoverReplay { time, draw }

    @Option(names = "--handover-replay", description = "How the simulator takes the warm-up's hand-overs: 'time' replays them at the times they happened "
            + "(a stall delays every batch of its milliseconds, on both devices), 'draw' draws each batch's on its own (default: ${DEFAULT-VALUE}).")
    HandoverReplay handoverReplay = HandoverReplay.time;

    private final HandoverDelays handovers = new HandoverDelays();
    // The measured run's own hand-overs: reported beside the warm-up's, never given to the simulator.
    private final HandoverDelays measuredHandovers = new HandoverDelays();

    @Mixin
    SeedOption seed = new SeedOption();

    @Option(names = "--placement-change", paramLabel = "SECONDS:DEVICE=MODEL+MODEL/...",
            description = "A placement for serving group 'default' sent to the job's control topic this many seconds into the measured run, "
                    + "and replayed at the same instant in the simulator, e.g. 30:0=resnet50+googlenet/1=mlp.")
    String placementChangeSpec;

    private PlacementChange placementChange;
    // When the job was sent the placement change, on the clock of its admission times; 0 until then.
    private final AtomicLong placementSentAt = new AtomicLong();
    // Why the placement change did not take, if it did not: the run then fails with it.
    private final AtomicReference<String> placementProblem = new AtomicReference<>();

    @Option(names = "--out", description = "Directory for summary.csv and latency-cdf.csv (default: testbed/experiments/fidelity, or with --pipeline testbed/experiments/inferline).")
    Path out;

    @Option(names = "--pipeline", paramLabel = "FILE", split = ",",
            description = "Pipelines' specs: compare the estimator's end-to-end P99 with the job's for the planner's configuration of each and one replica fewer "
                    + "at its bottleneck, on the same trace (InferLine's Fig 9: fig9-p99.csv, fig9-p99.png, fig9-summary.md). --duration is the trace's length, "
                    + "--warmup each configuration's warm-up, which measures the time between stages.")
    List<Path> pipelines;

    @Option(names = "--models", paramLabel = "FILE", description = "With --pipeline: the models' profiles per hardware type and the types' prices "
            + "(default: the InferLine experiment's catalog); every model's input is cut to 16 values, so that hops carry small records.")
    Path modelsFile;

    @Option(names = "--rate", description = "With --pipeline: the trace's Poisson rate, requests per second (default: ${DEFAULT-VALUE}).")
    double rate = 50;

    @Option(names = "--slowdown", description = "With --pipeline: every profile and every SLO this many times longer; give a rate as many times lower "
            + "for the same queueing system on a slower clock, on which the job's own time between stages weighs less (default: ${DEFAULT-VALUE}).")
    double slowdown = 1;

    @Option(names = "--hop-overhead-ms", description = "With --pipeline: the estimator's time between stages per stage visit; default: the median the warm-ups measure.")
    Double hopOverheadMs;

    @Option(names = "--redraw", description = "Run nothing: draw latency-cdf.png again from the latency-cdf.csv in --out.")
    boolean redraw;

    @Override
    public Integer call() throws Exception {
        PrintWriter console = spec.commandLine().getOut();
        if (pipelines != null) return runPipelines(console);
        if (out == null) out = Path.of("testbed/experiments/fidelity");
        if (redraw) {
            Path csv = out.resolve("latency-cdf.csv");
            if (!Files.isRegularFile(csv)) throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--redraw: no " + csv + "; run fidelity first");
            console.println("drew " + drawCdf(ResultTable.read(csv), out.resolve("latency-cdf.png")));
            return 0;
        }
        Workload load;
        try {
            load = Workload.parse(workload);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        policy.check(spec.commandLine());
        devices.checkCount(spec.commandLine());
        if (runLength.durationSeconds < 1 || runLength.warmupSeconds < 1) {
            throw new ParameterException(spec.commandLine(), "--duration and --warmup must be positive");
        }
        ModelCatalog catalog = ModelCatalog.builtIn();
        for (String m : load.models()) {
            if (!catalog.contains(m)) throw new ParameterException(spec.commandLine(), "unknown model '" + m + "'; known: " + catalog.names());
        }
        if (placementChangeSpec != null) {
            try {
                placementChange = PlacementChange.parse(placementChangeSpec, devices.count(), load.models(), runLength.durationSeconds);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--placement-change: " + e.getMessage());
            }
        }

        List<ServedRequest> job = runJob(console, catalog, load);
        ResultTable handoverTable = reportHandovers(catalog);
        Replay replay = replay(job);
        long[] overruns = handovers.overrunsMicros(catalog);
        if (placementChange != null) {
            console.printf(Locale.ROOT, "placement change %s sent to the job %.3f s into its measured requests, replayed then in the simulator%n",
                    placementChange.devices(), (placementSentAt.get() - replay.t0()) / 1e6);
        }
        ResultSummary.Stats j = stats("flink-job", job);
        ResultSummary.Stats s = stats("simulator", simulate(catalog, replay, overruns, handoverDelay(handoverReplay)));
        // The other way of taking the hand-overs, on the same arrivals: what the choice is worth.
        HandoverReplay other = handoverReplay == HandoverReplay.time ? HandoverReplay.draw : HandoverReplay.time;
        ResultSummary.Stats alternative = stats("sim-" + other, simulate(catalog, replay, overruns, handoverDelay(other)));
        Comparison c = new Comparison(j, s, alternative);
        console.println();
        console.println(c.table());
        write(c, handoverTable);
        console.println("wrote summary.csv, latency-cdf.csv and latency-cdf.png to " + out);
        return 0;
    }

    private List<ServedRequest> runJob(PrintWriter console, ModelCatalog catalog, Workload load) throws Exception {
        List<ServedRequest> fates = new ArrayList<>();
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start()) {
            ServingConfig.Builder builder = ServingConfig.builder();
            builder.bootstrapServers = broker.bootstrapServers();
            policy.applyTo(builder);
            builder.devices = devices.count();
            builder.simulatedSpeed = 1.0;
            builder.learnLatency = learn.learnLatency;
            coalescing.applyTo(builder, spec.commandLine());
            builder.fromEarliest = true;
            ServingConfig config = ConfigFlags.build(builder, spec.commandLine());
            for (String topic : config.topics()) broker.createTopic(topic, 1);
            Configuration flink = new Configuration();
            flink.set(RestOptions.BIND_PORT, "0");
            console.println("starting the broker, the Flink mini-cluster and the serving job (" + devices.count() + " simulated devices, " + policy.policy + ") ...");
            JobClient jobClient = ServingJob.onKafka(config, catalog).start(StreamExecutionEnvironment.createLocalEnvironment(devices.count(), flink));
            try (RequestProducer producer = new RequestProducer(broker.bootstrapServers(), config.requestsTopic, catalog);
                 ResultConsumer results = new ResultConsumer(broker.bootstrapServers(), config.resultsTopic, ResultConsumer.StartAt.EARLIEST)) {
                results.awaitServing(producer, load.loads().get(0).model(), Duration.ofSeconds(90));
                console.println("warming up for " + runLength.warmupSeconds + " s, measuring the hand-over to the devices (not compared) ...");
                // The first half of the warm-up is the JIT's; the hand-over is measured in the second.
                long calibrateFrom = io.kairos.core.time.WallClock.nowMicros() + runLength.warmupSeconds * 500_000L;
                results.onResult((r, receivedAt) -> {
                    if (r.getTimings().getSent() >= calibrateFrom) handovers.add(r);
                });
                producer.run(load, seed.seed + 1, Duration.ofSeconds(runLength.warmupSeconds));
                results.awaitResults(producer.acked(), Duration.ofSeconds(3), Duration.ofSeconds(60));
                long runStart = io.kairos.core.time.WallClock.nowMicros();
                results.onResult((r, receivedAt) -> {
                    if (r.getTimings().getSent() >= runStart) {
                        fate(r, fates);
                        measuredHandovers.add(r);
                    }
                });
                AtomicBoolean sending = new AtomicBoolean(true);
                Thread reader = new Thread(() -> {
                    while (sending.get()) results.poll(Duration.ofMillis(50));
                }, "fidelity-results");
                reader.start();
                Thread decider = placementChange == null ? null : sendPlacementChange(broker.bootstrapServers(), config, runStart);
                try (ProgressBar bar = new ProgressBarBuilder().setTaskName("flink job").setInitialMax(runLength.durationSeconds * 1000L)
                        .setUnit(" s", 1000).setStyle(ProgressBarStyle.ASCII).setUpdateIntervalMillis(250).build()) {
                    producer.run(load, seed.seed, Duration.ofSeconds(runLength.durationSeconds), (sent, offsetMicros, behind) -> bar.stepTo(offsetMicros / 1000));
                    bar.stepTo(runLength.durationSeconds * 1000L);
                    producer.flush();
                } finally {
                    sending.set(false);
                    reader.join();
                    if (decider != null) decider.join();
                }
                if (placementProblem.get() != null) throw new IllegalStateException(placementProblem.get());
                if (placementChange != null && placementSentAt.get() == 0) throw new IllegalStateException("the placement change was not sent");
                results.awaitResults(producer.acked(), Duration.ofSeconds(5), Duration.ofSeconds(60));
            } finally {
                jobClient.cancel().get();
            }
        }
        return fates;
    }

    /** InferLine's Fig 9 on the pipelines given: {@link PipelineFidelity}. */
    private int runPipelines(PrintWriter console) throws Exception {
        Path dir = out == null ? Path.of("testbed/experiments/inferline") : out;
        if (redraw) {
            Path csv = dir.resolve("fig9-p99.csv");
            if (!Files.isRegularFile(csv)) throw new ParameterException(spec.commandLine(), "--redraw: no " + csv + "; run fidelity --pipeline first");
            console.println("drew " + PipelineFidelity.draw(ResultTable.read(csv), dir.resolve("fig9-p99.png")));
            return 0;
        }
        if (!(rate > 0) || Double.isInfinite(rate)) throw new ParameterException(spec.commandLine(), "--rate must be a positive number of requests per second, got " + rate);
        if (!(slowdown >= 1) || Double.isInfinite(slowdown)) throw new ParameterException(spec.commandLine(), "--slowdown must be at least 1, got " + slowdown);
        if (hopOverheadMs != null && !(hopOverheadMs >= 0)) throw new ParameterException(spec.commandLine(), "--hop-overhead-ms must not be negative, got " + hopOverheadMs);
        if (runLength.durationSeconds < 1 || runLength.warmupSeconds < 1) {
            throw new ParameterException(spec.commandLine(), "--duration and --warmup must be positive");
        }
        ModelCatalog catalog;
        try {
            String json = modelsFile == null ? new String(FidelityCommand.class.getResourceAsStream("/inferline/models.json").readAllBytes(), java.nio.charset.StandardCharsets.UTF_8)
                    : Files.readString(modelsFile);
            catalog = PipelineFidelity.slowed(json, modelsFile == null ? "inferline/models.json" : modelsFile.toString(), slowdown);
        } catch (IOException | IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--models " + (modelsFile == null ? "inferline/models.json" : modelsFile) + ": " + e.getMessage());
        }
        PipelineFidelity fidelity = new PipelineFidelity(catalog, rate, runLength.durationSeconds * 1_000_000L, runLength.warmupSeconds * 1_000_000L, seed.seed,
                hopOverheadMs == null ? null : Math.round(hopOverheadMs * 1000), console);
        List<PipelineFidelity.Case> cases = new ArrayList<>();
        for (Path file : pipelines) {
            io.kairos.core.pipeline.PipelineSpec p;
            try {
                p = PipelineFidelity.byProbability(io.kairos.core.pipeline.PipelineSpec.load(file), slowdown);
                p.validate(catalog);
                cases.addAll(fidelity.cases(p));
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--pipeline " + file + ": " + e.getMessage());
            }
        }
        double loadBefore = PipelineFidelity.loadAverage();
        List<PipelineFidelity.Row> rows = fidelity.run(cases);
        double loadAfter = PipelineFidelity.loadAverage();
        String header = String.format(Locale.ROOT, "Poisson arrivals at %s requests/s, %d s traces (seed %d), %d s warm-ups; simulated devices, profiles and SLOs %s times slower than the catalog's and the specs'; "
                        + "load average %.2f before and %.2f after the runs, on %d cores.", plain(rate), runLength.durationSeconds, seed.seed, runLength.warmupSeconds, plain(slowdown),
                loadBefore, loadAfter, Runtime.getRuntime().availableProcessors());
        header = header + "\n\n" + fidelity.measuredOverheads();
        PipelineFidelity.write(dir, rows, header);
        console.println();
        console.println(header);
        console.println(Files.readString(dir.resolve("fig9-summary.md")).lines().skip(6).collect(java.util.stream.Collectors.joining(System.lineSeparator())));
        console.println("wrote fig9-p99.csv, fig9-p99.png and fig9-summary.md to " + dir);
        return 0;
    }

    private static String plain(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }

    /** The figures of one side, latency from admission to batch end. */
    static ResultSummary.Stats stats(String source, List<ServedRequest> fates) {
        ResultSummary.Stats stats = new ResultSummary.Stats(source);
        for (ServedRequest f : fates) {
            // A drop has no batch end: it ends, for the span, where it began.
            stats.add(f.status(), f.enqueuedMicros(), f.served() ? f.endMicros() : f.enqueuedMicros(), f.batchSize());
        }
        return stats;
    }

    /**
     * Publishes the placement change on the job's control topic at its second of the measured run
     * (from {@code runStart}), on a thread of its own, beside the requests, and checks that the job
     * applied it.
     */
    private Thread sendPlacementChange(String bootstrap, ServingConfig config, long runStart) {
        Thread t = new Thread(() -> {
            try (DecisionPublisher publisher = new DecisionPublisher(bootstrap, config.controlTopic, config.outcomesTopic, "kairos-fidelity")) {
                long wait = runStart + placementChange.atMicros() - WallClock.nowMicros();
                if (wait > 0) Thread.sleep(wait / 1000, (int) (wait % 1000) * 1000);
                long now = WallClock.nowMicros();
                DecisionPublisher.Published sent = publisher.publish(placementChange.decision(1, now).getAction());
                placementSentAt.set(now);
                DecisionOutcome outcome = publisher.awaitOutcome(sent, Duration.ofSeconds(10))
                        .orElseThrow(() -> new IllegalStateException("the job gave no outcome of the placement change within 10 s"));
                if (outcome.getStatus() != DecisionStatus.APPLIED) {
                    throw new IllegalStateException("the job did not apply the placement change: " + outcome.getStatus() + " " + outcome.getReason());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                placementProblem.set(e.getMessage());
            }
        }, "fidelity-placement-change");
        t.start();
        return t;
    }

    /** Keeps what reached the scheduler; requests rejected at admission never queued. */
    private static void fate(InferenceResult r, List<ServedRequest> fates) {
        ResultStatus st = ResultStatuses.core(r.getStatus());
        if (st != ResultStatus.OK && st != ResultStatus.LATE && st != ResultStatus.DROPPED) return;
        var t = r.getTimings();
        // A request dropped before it was queued (expired on arrival) has no admission time.
        if (t.getEnqueued() == null) return;
        boolean ran = st != ResultStatus.DROPPED && t.getExecEnd() != null;
        fates.add(new ServedRequest(r.getModel(), st, t.getEnqueued(), t.getDeadline(), ran ? t.getExecEnd() : 0, ran ? r.getBatchSize() : 0));
    }

    /**
     * Prints the hand-overs of the warm-up (the simulator's calibration) and of the measured run,
     * and the execution beyond the profile; returns both phases' hand-overs for handover.csv.
     */
    private ResultTable reportHandovers(ModelCatalog catalog) {
        long[] sorted = handovers.samplesMicros();
        if (sorted.length == 0) throw new IllegalStateException("the warm-up ran no batch to measure the hand-over delay on");
        java.util.Arrays.sort(sorted);
        System.out.println(handoverLine("hand-over to the device in the warm-up", sorted));
        long[] measured = measuredHandovers.samplesMicros();
        java.util.Arrays.sort(measured);
        if (measured.length > 0) System.out.println(handoverLine("hand-over in the measured run (reported, not given to the simulator)", measured));
        long[] overrunsSorted = handovers.overrunsMicros(catalog);
        java.util.Arrays.sort(overrunsSorted);
        System.out.printf(Locale.ROOT, "execution beyond the profile in the warm-up: p50 %.2f ms, p90 %.2f ms, p99 %.2f ms%n",
                overrunsSorted[overrunsSorted.length / 2] / 1000.0, overrunsSorted[(int) (overrunsSorted.length * 0.9)] / 1000.0,
                overrunsSorted[(int) (overrunsSorted.length * 0.99)] / 1000.0);
        return handoverTable(sorted, measured);
    }

    /** The job's requests as the simulator replays them: offsets from {@code t0}, the first admission. */
    private record Replay(long t0, List<Arrival> arrivals) {}

    private static Replay replay(List<ServedRequest> job) {
        if (job.isEmpty()) throw new IllegalStateException("the job returned no result for the measured run");
        List<ServedRequest> byArrival = new ArrayList<>(job);
        byArrival.sort(Comparator.comparingLong(ServedRequest::enqueuedMicros));
        long t0 = byArrival.get(0).enqueuedMicros();
        List<Arrival> arrivals = new ArrayList<>();
        for (ServedRequest f : byArrival) {
            arrivals.add(new Arrival(f.enqueuedMicros() - t0, "fidelity", f.model(), (f.deadlineMicros() - f.enqueuedMicros()) / 1000.0));
        }
        return new Replay(t0, arrivals);
    }

    /** The same arrivals, at the instants the job's scheduler admitted them, through the simulator, with {@code handover} to each device. */
    private List<ServedRequest> simulate(ModelCatalog catalog, Replay replay, long[] overruns, Delay handover) {
        List<Arrival> arrivals = replay.arrivals();
        long last = arrivals.get(arrivals.size() - 1).offsetMicros();
        List<ServedRequest> out = new ArrayList<>();
        // The placement change at the instant the job was sent it, on the simulator's clock.
        List<TimedDecision> decisions = placementChange == null ? List.of()
                : List.of(new TimedDecision(Math.max(0, placementSentAt.get() - replay.t0()), placementChange.decision(1, placementSentAt.get())));
        // The job cannot abort a batch handed to a device, so neither may the simulated devices.
        Simulation.builder(catalog).devices(devices.count()).policy(policy.policy, policy.params).decisions(decisions).load(ArrivalSource.replay(arrivals))
                .dispatchDelay(handover).noise(ExecutionNoise.overrun(overruns)).preemption(false).learnLatency(learn.learnLatency ? LatencyEstimator.Settings.DEFAULT : null)
                .duration(last + 1).seed(seed.seed).build()
                .run((req, status, end, batch) -> out.add(new ServedRequest(req.model(), status, req.arrivalMicros(),
                        req.deadlineMicros(), status == ResultStatus.DROPPED ? 0 : end, batch)));
        return out;
    }

    /** The simulator's hand-over: the warm-up's, the shortest {@code --handover-keep} percent, replayed in time or drawn. */
    private Delay handoverDelay(HandoverReplay replay) {
        if (replay == HandoverReplay.draw) return Delay.empirical(handovers.shortestMicros(handoverKeep));
        HandoverDelays.Timeline t = handovers.timeline(handoverKeep);
        return Delay.timeline(t.dispatchedMicros(), t.handOversMicros());
    }

    private static String handoverLine(String what, long[] sorted) {
        return String.format(Locale.ROOT, "%s: %d batches, p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms", what, sorted.length,
                sorted[sorted.length / 2] / 1000.0, sorted[(int) (sorted.length * 0.9)] / 1000.0, sorted[(int) (sorted.length * 0.99)] / 1000.0, sorted[sorted.length - 1] / 1000.0);
    }

    /** The hand-over's percentiles in the warm-up (the simulator's calibration) and in the measured run, for handover.csv. */
    static ResultTable handoverTable(long[] warmupSorted, long[] measuredSorted) {
        ResultTable t = new ResultTable(List.of("phase", "batches", "p10_ms", "p50_ms", "p90_ms", "p99_ms", "max_ms", "mean_ms"));
        String[] phases = {"warm-up", "measured"};
        long[][] samples = {warmupSorted, measuredSorted};
        for (int i = 0; i < phases.length; i++) {
            long[] x = samples[i];
            if (x.length == 0) continue;
            List<String> row = new ArrayList<>(List.of(phases[i], Integer.toString(x.length)));
            for (double q : new double[] {0.1, 0.5, 0.9, 0.99}) row.add(String.format(Locale.ROOT, "%.3f", x[(int) (x.length * q)] / 1000.0));
            row.add(String.format(Locale.ROOT, "%.3f", x[x.length - 1] / 1000.0));
            row.add(String.format(Locale.ROOT, "%.3f", java.util.Arrays.stream(x).average().orElse(0) / 1000.0));
            t.add(row);
        }
        return t;
    }

    private void write(Comparison c, ResultTable handoverTable) throws IOException {
        Files.createDirectories(out);
        handoverTable.write(out.resolve("handover.csv"));
        Files.writeString(out.resolve("summary.csv"), c.csv());
        Files.writeString(out.resolve("latency-cdf.csv"), c.cdfCsv());
        drawCdf(ResultTable.read(out.resolve("latency-cdf.csv")), out.resolve("latency-cdf.png"));
    }

    /** The two latency distributions of latency-cdf.csv (percentile, flink_job_ms, simulator_ms) as CDFs in one panel. */
    static Path drawCdf(ResultTable csv, Path png) throws IOException {
        ResultTable cdf = new ResultTable(List.of("source", "latency_ms", "percentile"));
        for (List<String> row : csv.rows()) {
            String p = row.get(csv.index("percentile"));
            cdf.add(List.of("Flink job", row.get(csv.index("flink_job_ms")), p));
            cdf.add(List.of("simulator", row.get(csv.index("simulator_ms")), p));
        }
        return Figures.lines("latency_ms", "percentile").numericX().noMarkers().series("source")
                .xAxis("latency from admission to batch end (ms)").yAxis("requests at or below (%)", 0.0, 100.0)
                .title("Latency in the serving group: the Flink job against the simulator replaying its arrivals (CDF)")
                .save(cdf, png);
    }

    /**
     * The two sides and the fidelity targets (attainment within 2 points, p99 within 10 %); and the
     * simulator with the hand-overs taken the other way, reported beside them and not judged.
     */
    record Comparison(ResultSummary.Stats job, ResultSummary.Stats sim, ResultSummary.Stats alternative) {
        Comparison(ResultSummary.Stats job, ResultSummary.Stats sim) {
            this(job, sim, null);
        }

        private List<ResultSummary.Stats> sides() {
            return alternative == null ? List.of(job, sim) : List.of(job, sim, alternative);
        }

        double attainmentGapPoints() {
            return 100 * Math.abs(job.sloAttainment() - sim.sloAttainment());
        }

        double p99GapRatio() {
            return Math.abs(job.p99Micros() - sim.p99Micros()) / (double) Math.max(1, job.p99Micros());
        }

        String table() {
            StringBuilder s = new StringBuilder();
            s.append(String.format(Locale.ROOT, "%-10s %9s %8s %6s %8s %9s %9s %7s%n", "", "requests", "SLO met", "late", "dropped", "p50 ms", "p99 ms", "batch"));
            for (ResultSummary.Stats f : sides()) {
                s.append(String.format(Locale.ROOT, "%-10s %9d %7.2f%% %6d %8d %9.2f %9.2f %7.2f%n", f.name(), f.total(), 100 * f.sloAttainment(),
                        f.count(ResultStatus.LATE), f.count(ResultStatus.DROPPED), f.p50Micros() / 1000.0, f.p99Micros() / 1000.0, meanBatch(f)));
            }
            double points = io.kairos.testbed.experiment.Targets.of("fidelity", "attainment-gap-points");
            double p99 = io.kairos.testbed.experiment.Targets.of("fidelity", "p99-gap");
            s.append(String.format(Locale.ROOT, "attainment gap %.2f points (target <= %s): %s%n", attainmentGapPoints(), io.kairos.tools.format.Numbers.significant(points),
                    attainmentGapPoints() <= points ? "PASS" : "FAIL"));
            s.append(String.format(Locale.ROOT, "p99 gap %.1f %% (target <= %s %%): %s", 100 * p99GapRatio(), io.kairos.tools.format.Numbers.significant(100 * p99),
                    p99GapRatio() <= p99 ? "PASS" : "FAIL"));
            if (alternative != null) {
                Comparison other = new Comparison(job, alternative);
                s.append(String.format(Locale.ROOT, "%n%s (not judged): attainment gap %.2f points, p99 gap %.1f %%", alternative.name(),
                        other.attainmentGapPoints(), 100 * other.p99GapRatio()));
            }
            return s.toString();
        }

        String csv() {
            StringBuilder s = new StringBuilder("source,requests,ok,late,dropped,slo_attainment,p50_ms,p99_ms,mean_batch\n");
            for (ResultSummary.Stats f : sides()) {
                s.append(String.format(Locale.ROOT, "%s,%d,%d,%d,%d,%.6f,%.3f,%.3f,%.4f%n", f.name(), f.total(), f.count(ResultStatus.OK),
                        f.count(ResultStatus.LATE), f.count(ResultStatus.DROPPED), f.sloAttainment(), f.p50Micros() / 1000.0, f.p99Micros() / 1000.0, meanBatch(f)));
            }
            return s.toString();
        }

        /** Latency at every percentile from 0 to 100 in steps of 0.5 (99 to 100 in 0.1), both sides. */
        String cdfCsv() {
            StringBuilder s = new StringBuilder("percentile,flink_job_ms,simulator_ms\n");
            List<Double> ps = new ArrayList<>();
            for (double p = 0; p < 99; p += 0.5) ps.add(p);
            for (double p = 99; p <= 100.0001; p += 0.1) ps.add(Math.min(100, p));
            for (double p : ps) {
                s.append(String.format(Locale.ROOT, "%.1f,%.3f,%.3f%n", p, job.latencyMicrosAt(p) / 1000.0, sim.latencyMicrosAt(p) / 1000.0));
            }
            return s.toString();
        }

        /** 0 when nothing ran, as before the figures were shared. */
        private static double meanBatch(ResultSummary.Stats f) {
            return Double.isNaN(f.meanBatchSize()) ? 0 : f.meanBatchSize();
        }
    }
}
