package io.kairos.testbed.fidelity;

import io.kairos.core.model.ModelCatalog;
import io.kairos.core.scheduling.policy.Policies;
import io.kairos.sim.ArrivalSource;
import io.kairos.sim.Delay;
import io.kairos.sim.Simulation;
import io.kairos.sim.TimedDecision;
import io.kairos.workload.Arrival;
import io.kairos.workload.Workload;
import io.kairos.jobs.ServingConfig;
import io.kairos.jobs.ServingJob;
import io.kairos.testbed.client.RequestProducer;
import io.kairos.testbed.client.ResultConsumer;
import io.kairos.testbed.embedded.EmbeddedKafkaBroker;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.InferenceResult;
import io.kairos.wire.AvroCodec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import io.kairos.schema.ResultStatus;
import io.kairos.testbed.experiment.Figures;
import io.kairos.testbed.experiment.ResultTable;
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

    @Option(names = "--devices", description = "Simulated devices (default: ${DEFAULT-VALUE}).")
    int devices = 2;

    @Option(names = "--policy", description = "Scheduling policy (default: ${DEFAULT-VALUE}).")
    String policy = "clockwork";

    @Option(names = "--duration", description = "Seconds of measured load (default: ${DEFAULT-VALUE}).")
    int durationSeconds = 60;

    @Option(names = "--warmup", description = "Seconds of the same load before, not compared; the simulator's hand-over delay is measured then (default: ${DEFAULT-VALUE}).")
    int warmupSeconds = 10;

    @Option(names = "--handover-keep", description = "Percent of the warm-up's hand-over samples, the shortest, that calibrate the simulator; the longest are stalls of the warm-up itself (default: ${DEFAULT-VALUE}).")
    double handoverKeep = 99;

    private final HandoverDelays handovers = new HandoverDelays();

    @Option(names = "--placement-change", paramLabel = "SECONDS:DEVICE=MODEL+MODEL/...",
            description = "A placement for serving group 'default' sent to the job's control topic this many seconds into the measured run, "
                    + "and replayed at the same instant in the simulator, e.g. 30:0=resnet50+googlenet/1=mlp.")
    String placementChangeSpec;

    private PlacementChange placementChange;
    // When the job was sent the placement change, on the clock of its admission times; 0 until then.
    private final AtomicLong placementSentAt = new AtomicLong();

    @Option(names = "--seed", description = "Seed of the arrivals (default: ${DEFAULT-VALUE}).")
    long seed = 1;

    @Option(names = "--out", description = "Directory for summary.csv and latency-cdf.csv (default: ${DEFAULT-VALUE}).")
    Path out = Path.of("testbed/experiments/fidelity");

    @Override
    public Integer call() throws Exception {
        PrintWriter console = spec.commandLine().getOut();
        Workload load;
        try {
            load = Workload.parse(workload);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        if (!Policies.names().contains(policy)) throw new ParameterException(spec.commandLine(), "unknown policy '" + policy + "'; known: " + Policies.names());
        if (devices < 1 || durationSeconds < 1 || warmupSeconds < 1) {
            throw new ParameterException(spec.commandLine(), "--devices, --duration and --warmup must be positive");
        }
        ModelCatalog catalog = ModelCatalog.builtIn();
        for (String m : load.models()) {
            if (!catalog.contains(m)) throw new ParameterException(spec.commandLine(), "unknown model '" + m + "'; known: " + catalog.names());
        }
        if (placementChangeSpec != null) {
            try {
                placementChange = PlacementChange.parse(placementChangeSpec, devices, load.models(), durationSeconds);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--placement-change: " + e.getMessage());
            }
        }

        List<ServedRequest> job = runJob(console, catalog, load);
        List<ServedRequest> simulated = simulate(catalog, job);
        FateStats j = FateStats.of("flink-job", job);
        FateStats s = FateStats.of("simulator", simulated);
        Comparison c = new Comparison(j, s);
        console.println();
        console.println(c.table());
        write(c);
        console.println("wrote summary.csv, latency-cdf.csv and latency-cdf.png to " + out);
        return 0;
    }

    private List<ServedRequest> runJob(PrintWriter console, ModelCatalog catalog, Workload load) throws Exception {
        List<ServedRequest> fates = new ArrayList<>();
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start()) {
            ServingConfig config = new ServingConfig();
            config.bootstrapServers = broker.bootstrapServers();
            config.policy = policy;
            config.devices = devices;
            config.simulatedSpeed = 1.0;
            config.fromEarliest = true;
            for (String topic : config.topics()) broker.createTopic(topic, 1);
            Configuration flink = new Configuration();
            flink.set(RestOptions.BIND_PORT, "0");
            console.println("starting the broker, the Flink mini-cluster and the serving job (" + devices + " simulated devices, " + policy + ") ...");
            JobClient jobClient = ServingJob.onKafka(config, catalog).start(StreamExecutionEnvironment.createLocalEnvironment(devices, flink));
            try (RequestProducer producer = new RequestProducer(broker.bootstrapServers(), config.requestsTopic, catalog);
                 ResultConsumer results = new ResultConsumer(broker.bootstrapServers(), config.resultsTopic, ResultConsumer.StartAt.EARLIEST)) {
                results.awaitServing(producer, load.loads().get(0).model(), Duration.ofSeconds(90));
                console.println("warming up for " + warmupSeconds + " s, measuring the hand-over to the devices (not compared) ...");
                // The first half of the warm-up is the JIT's; the hand-over is measured in the second.
                long calibrateFrom = io.kairos.core.time.WallClock.nowMicros() + warmupSeconds * 500_000L;
                results.onResult((r, receivedAt) -> {
                    if (r.getTimings().getSent() >= calibrateFrom) handovers.add(r);
                });
                producer.run(load, seed + 1, Duration.ofSeconds(warmupSeconds));
                results.awaitResults(producer.acked(), Duration.ofSeconds(3), Duration.ofSeconds(60));
                long runStart = io.kairos.core.time.WallClock.nowMicros();
                results.onResult((r, receivedAt) -> {
                    if (r.getTimings().getSent() >= runStart) fate(r, fates);
                });
                AtomicBoolean sending = new AtomicBoolean(true);
                Thread reader = new Thread(() -> {
                    while (sending.get()) results.poll(Duration.ofMillis(50));
                }, "fidelity-results");
                reader.start();
                Thread decider = placementChange == null ? null : sendPlacementChange(broker.bootstrapServers(), config.controlTopic, runStart);
                try (ProgressBar bar = new ProgressBarBuilder().setTaskName("flink job").setInitialMax(durationSeconds * 1000L)
                        .setUnit(" s", 1000).setStyle(ProgressBarStyle.ASCII).setUpdateIntervalMillis(250).build()) {
                    producer.run(load, seed, Duration.ofSeconds(durationSeconds), (sent, offsetMicros, behind) -> bar.stepTo(offsetMicros / 1000));
                    bar.stepTo(durationSeconds * 1000L);
                    producer.flush();
                } finally {
                    sending.set(false);
                    reader.join();
                    if (decider != null) decider.join();
                }
                if (placementChange != null && placementSentAt.get() == 0) throw new IllegalStateException("the placement change was not sent");
                results.awaitResults(producer.acked(), Duration.ofSeconds(5), Duration.ofSeconds(60));
            } finally {
                jobClient.cancel().get();
            }
        }
        return fates;
    }

    /**
     * Sends the placement change to the job's control topic at its second of the measured run
     * (from {@code runStart}), on a thread of its own, beside the requests.
     */
    private Thread sendPlacementChange(String bootstrap, String topic, long runStart) {
        Thread t = new Thread(() -> {
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of("bootstrap.servers", bootstrap, "linger.ms", 0),
                    new ByteArraySerializer(), new ByteArraySerializer())) {
                long wait = runStart + placementChange.atMicros() - io.kairos.core.time.WallClock.nowMicros();
                if (wait > 0) Thread.sleep(wait / 1000, (int) (wait % 1000) * 1000);
                long now = io.kairos.core.time.WallClock.nowMicros();
                ControlDecision d = placementChange.decision(1, now);
                byte[] key = ("SetPlacement/" + io.kairos.core.plan.ServingPlan.DEFAULT_GROUP).getBytes(java.nio.charset.StandardCharsets.UTF_8);
                producer.send(new ProducerRecord<>(topic, key, AvroCodec.of(ControlDecision.class).encode(d))).get();
                placementSentAt.set(now);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                throw new IllegalStateException("could not send the placement change: " + e.getMessage(), e);
            }
        }, "fidelity-placement-change");
        t.start();
        return t;
    }

    /** Keeps what reached the scheduler; requests rejected at admission never queued. */
    private static void fate(InferenceResult r, List<ServedRequest> fates) {
        ResultStatus st = r.getStatus();
        if (st != ResultStatus.OK && st != ResultStatus.LATE && st != ResultStatus.DROPPED) return;
        var t = r.getTimings();
        // A request dropped before it was queued (expired on arrival) has no admission time.
        if (t.getEnqueued() == null) return;
        boolean ran = st != ResultStatus.DROPPED && t.getExecEnd() != null;
        fates.add(new ServedRequest(r.getModel(), st, t.getEnqueued(), t.getDeadline(), ran ? t.getExecEnd() : 0, ran ? r.getBatchSize() : 0));
    }

    /** The same arrivals, at the instants the job's scheduler admitted them, through the simulator. */
    private List<ServedRequest> simulate(ModelCatalog catalog, List<ServedRequest> job) {
        if (job.isEmpty()) throw new IllegalStateException("the job returned no result for the measured run");
        List<ServedRequest> byArrival = new ArrayList<>(job);
        byArrival.sort(Comparator.comparingLong(ServedRequest::enqueuedMicros));
        long t0 = byArrival.get(0).enqueuedMicros();
        List<Arrival> arrivals = new ArrayList<>();
        for (ServedRequest f : byArrival) {
            arrivals.add(new Arrival(f.enqueuedMicros() - t0, "fidelity", f.model(), (f.deadlineMicros() - f.enqueuedMicros()) / 1000.0));
        }
        long last = arrivals.get(arrivals.size() - 1).offsetMicros();
        List<ServedRequest> out = new ArrayList<>();
        long[] handover = handovers.samplesMicros();
        if (handover.length == 0) throw new IllegalStateException("the warm-up ran no batch to measure the hand-over delay on");
        long[] sorted = handover.clone();
        java.util.Arrays.sort(sorted);
        System.out.printf(Locale.ROOT, "hand-over to the device in the warm-up: %d batches, p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms%n", sorted.length,
                sorted[sorted.length / 2] / 1000.0, sorted[(int) (sorted.length * 0.9)] / 1000.0, sorted[(int) (sorted.length * 0.99)] / 1000.0, sorted[sorted.length - 1] / 1000.0);
        if (placementChange != null) {
            spec.commandLine().getOut().printf(Locale.ROOT, "placement change %s sent to the job %.3f s into its measured requests, replayed then in the simulator%n",
                    placementChange.devices(), (placementSentAt.get() - t0) / 1e6);
        }
        // The placement change at the instant the job was sent it, on the simulator's clock.
        List<TimedDecision> decisions = placementChange == null ? List.of()
                : List.of(new TimedDecision(Math.max(0, placementSentAt.get() - t0), placementChange.decision(1, placementSentAt.get())));
        // The job cannot abort a batch handed to a device, so neither may the simulated devices.
        Simulation.builder(catalog).devices(devices).policy(policy).decisions(decisions).load(ArrivalSource.replay(arrivals))
                .dispatchDelay(Delay.empirical(java.util.Arrays.copyOf(sorted, Math.max(1, (int) Math.ceil(sorted.length * handoverKeep / 100.0))))).preemption(false).duration(last + 1).seed(seed).build()
                .run((req, status, end, batch) -> out.add(new ServedRequest(req.model(), status, req.arrivalMicros(),
                        req.deadlineMicros(), status == ResultStatus.DROPPED ? 0 : end, batch)));
        return out;
    }

    private void write(Comparison c) throws IOException {
        Files.createDirectories(out);
        Files.writeString(out.resolve("summary.csv"), c.csv());
        Files.writeString(out.resolve("latency-cdf.csv"), c.cdfCsv());
        ResultTable cdf = new ResultTable(List.of("source", "latency_ms", "percentile"));
        for (FateStats f : List.of(c.job(), c.sim())) {
            for (double p = 0; p <= 99.9; p += 0.1) {
                cdf.add(List.of(f.source(), String.format(Locale.ROOT, "%.3f", f.latencyMicros().getValueAtPercentile(p) / 1000.0),
                        String.format(Locale.ROOT, "%.1f", p)));
            }
        }
        Figures.lines("latency_ms", "percentile").numericX().series("source")
                .xAxis("latency from admission to batch end (ms)").yAxis("percentile", 0.0, 100.0)
                .save(cdf, out.resolve("latency-cdf.png"));
    }

    /** The two sides and the fidelity targets: attainment within 2 points, p99 within 10 %. */
    record Comparison(FateStats job, FateStats sim) {
        double attainmentGapPoints() {
            return 100 * Math.abs(job.attainment() - sim.attainment());
        }

        double p99GapRatio() {
            return Math.abs(job.p99Micros() - sim.p99Micros()) / (double) Math.max(1, job.p99Micros());
        }

        String table() {
            StringBuilder s = new StringBuilder();
            s.append(String.format(Locale.ROOT, "%-10s %9s %8s %6s %8s %9s %9s %7s%n", "", "requests", "SLO met", "late", "dropped", "p50 ms", "p99 ms", "batch"));
            for (FateStats f : List.of(job, sim)) {
                s.append(String.format(Locale.ROOT, "%-10s %9d %7.2f%% %6d %8d %9.2f %9.2f %7.2f%n", f.source(), f.requests(), 100 * f.attainment(),
                        f.late(), f.dropped(), f.p50Micros() / 1000.0, f.p99Micros() / 1000.0, f.meanBatch()));
            }
            s.append(String.format(Locale.ROOT, "attainment gap %.2f points (target <= 2): %s%n", attainmentGapPoints(), attainmentGapPoints() <= 2 ? "PASS" : "FAIL"));
            s.append(String.format(Locale.ROOT, "p99 gap %.1f %% (target <= 10 %%): %s", 100 * p99GapRatio(), p99GapRatio() <= 0.10 ? "PASS" : "FAIL"));
            return s.toString();
        }

        String csv() {
            StringBuilder s = new StringBuilder("source,requests,ok,late,dropped,slo_attainment,p50_ms,p99_ms,mean_batch\n");
            for (FateStats f : List.of(job, sim)) {
                s.append(String.format(Locale.ROOT, "%s,%d,%d,%d,%d,%.6f,%.3f,%.3f,%.4f%n", f.source(), f.requests(), f.ok(), f.late(), f.dropped(),
                        f.attainment(), f.p50Micros() / 1000.0, f.p99Micros() / 1000.0, f.meanBatch()));
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
                s.append(String.format(Locale.ROOT, "%.1f,%.3f,%.3f%n", p, job.latencyMicros().getValueAtPercentile(p) / 1000.0,
                        sim.latencyMicros().getValueAtPercentile(p) / 1000.0));
            }
            return s.toString();
        }
    }
}
