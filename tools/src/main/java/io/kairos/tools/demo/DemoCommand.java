package io.kairos.tools.demo;

import io.kairos.core.device.DeviceSlots;
import io.kairos.core.metrics.ResultSummary;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.result.ResultStatus;
import io.kairos.core.scheduling.policy.LatestStartPolicy;
import io.kairos.jobs.config.ServingConfig;
import io.kairos.jobs.options.DevicesOption;
import io.kairos.jobs.options.LearnLatencyOption;
import io.kairos.jobs.options.PolicyOptions;
import io.kairos.jobs.options.SimulatedSpeedOption;
import io.kairos.onnx.examples.ExampleModels;
import io.kairos.tools.client.RequestProducer;
import io.kairos.tools.client.ResultConsumer;
import io.kairos.tools.embedded.EmbeddedKafkaBroker;
import io.kairos.tools.options.ArrivalsOption;
import io.kairos.tools.options.RunLengthOptions;
import io.kairos.tools.options.SeedOption;
import io.kairos.tools.progress.ProgressLine;
import io.kairos.wire.metrics.ResultRecords;
import io.kairos.workload.ArrivalSpec;
import io.kairos.workload.Workload;
import io.kairos.jobs.ServeCommand;
import io.kairos.jobs.options.ConfigFlags;
import io.kairos.jobs.ServingJob;
import me.tongfei.progressbar.ProgressBar;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code demo}: the whole system in one JVM. A real Kafka broker (KRaft) and a Flink mini-cluster
 * start in-process, the serving job runs on simulated devices with the built-in model profiles
 * (or, with {@code --onnx} or {@code --model-repository}, on ONNX Runtime CPU devices with real models),
 * and an open-loop load (Poisson unless {@code --arrivals} says otherwise) over several models with
 * different SLOs flows through it, with a live summary and a final table.
 */
@Command(name = "demo", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Run the serving job on an embedded Kafka broker and Flink mini-cluster with a generated load.")
public class DemoCommand implements Callable<Integer> {

    @Option(names = "--workload", description = "model:rate/s:SLO ms,... (default: " + SIMULATED_WORKLOAD + "; with ONNX models: " + ONNX_WORKLOAD + ").")
    String workload;

    /**
     * About 950 requests/s, which the 2-core development machine carries beside the broker and the
     * job. bert-tiny comes faster than the two devices serve it one request at a time (5.5 ms each:
     * 450/s alone would keep 2.5 devices busy) but well within what they serve in batches (2 ms a
     * request at 8): its queue holds several requests whenever a device frees, so batches form,
     * and its SLO of 300 ms leaves them room. The others share the devices and batch a little.
     */
    static final String SIMULATED_WORKLOAD = "resnet50:100:100,googlenet:100:80,bert-tiny:450:300,mlp:300:50";
    static final int DEFAULT_DEVICES = 2;
    static final String ONNX_WORKLOAD = "cnn:100:200,mlp:300:100";

    @Option(names = "--onnx", description = "Run the example ONNX models (an MLP and a small CNN, generated into .kairos/models if missing) on ONNX Runtime CPU devices instead of simulated ones.")
    boolean onnx;

    @Option(names = "--model-repository", paramLabel = "DIR", description = "Run the ONNX models of this model repository on ONNX Runtime devices (see docs/models.md, \"Adding a model\").")
    Path modelRepository;

    @CommandLine.Mixin
    ArrivalsOption arrivals = new ArrivalsOption();

    /**
     * The demo runs Kairos' own policy: {@code clockwork}, the job's default, books a device 5 ms
     * ahead to hide a network hop that the job's in-process hand-over (a fraction of a millisecond)
     * does not have, so its batches wait on a busy device for most of those 5 ms, where
     * {@code kairos} dispatches just in time (docs/benchmarks/history.md).
     */
    public static final String DEFAULT_POLICY = LatestStartPolicy.KAIROS;

    @CommandLine.Mixin
    PolicyOptions policy = new PolicyOptions(DEFAULT_POLICY);

    @CommandLine.Mixin
    DevicesOption devices = new DevicesOption(DEFAULT_DEVICES);

    @CommandLine.Mixin
    SimulatedSpeedOption speed = new SimulatedSpeedOption();

    @CommandLine.Mixin
    RunLengthOptions runLength = new RunLengthOptions(20, 10);

    @CommandLine.Mixin
    LearnLatencyOption learn = new LearnLatencyOption();

    @CommandLine.Mixin
    SeedOption seed = new SeedOption();

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        ArrivalSpec arrivalSpec = arrivals.parse(spec.commandLine());
        if (onnx && modelRepository == null) {
            modelRepository = ExampleModels.writeRepository(Path.of(System.getProperty("kairos.home", "."), ".kairos", "models"));
        }
        boolean real = modelRepository != null;
        if (workload == null) workload = real ? ONNX_WORKLOAD : SIMULATED_WORKLOAD;
        Workload load = Workload.parse(workload, arrivalSpec);
        ServingConfig.Builder config = ServingConfig.builder();
        config.modelRepository = real ? modelRepository.toAbsolutePath().toString() : null;
        devices.check(spec.commandLine());
        devices.applyTo(config);
        ModelCatalog catalog = ServeCommand.catalog(ConfigFlags.build(config, spec.commandLine()));
        DeviceSlots slots = devices.slots(spec.commandLine(), catalog);
        for (String model : load.models()) {
            if (!catalog.contains(model)) throw new CommandLine.ParameterException(spec.commandLine(), "--workload names unknown model '" + model + "'; models: " + catalog.names());
        }
        policy.check(spec.commandLine());
        speed.check(spec.commandLine());
        if (runLength.durationSeconds < 1) throw new CommandLine.ParameterException(spec.commandLine(), "--duration must be at least 1");

        out.println("Kairos demo: " + load + " (" + arrivalSpec + " arrivals), policy " + policy.policy + ", " + slots.count()
                + (real ? " ONNX Runtime devices (" + modelRepository + ")" : " simulated devices") + (slots.uniform() ? "" : " (" + slots + ")") + ", " + runLength.durationSeconds + " s"
                + (c1Only() ? "; JIT: C1 only on this " + Runtime.getRuntime().availableProcessors() + "-core machine (KAIROS_JAVA_OPTS to choose)" : ""));
        out.print("starting Kafka broker (KRaft, in-process) ... ");
        out.flush();
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start()) {
            out.println(broker.bootstrapServers());
            config.bootstrapServers = broker.bootstrapServers();
            policy.applyTo(config);
            config.simulatedSpeed = speed.simulatedSpeed;
            config.learnLatency = learn.learnLatency;
            config.fromEarliest = true;
            for (String topic : config.topics()) broker.createTopic(topic, 1);

            out.print("starting Flink mini-cluster and the serving job ... ");
            out.flush();
            Configuration flink = new Configuration();
            flink.set(RestOptions.BIND_PORT, "0"); // any free port: several demos may run side by side
            StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(slots.count(), flink);
            JobClient job = ServingJob.onKafka(ConfigFlags.build(config, spec.commandLine()), catalog).start(env);
            try (RequestProducer producer = new RequestProducer(broker.bootstrapServers(), config.requestsTopic, catalog);
                 ResultConsumer results = new ResultConsumer(broker.bootstrapServers(), config.resultsTopic, ResultConsumer.StartAt.EARLIEST)) {
                results.awaitServing(producer, load.loads().get(0).model(), Duration.ofSeconds(90));
                out.println("job " + job.getJobID() + " is serving");
                if (runLength.warmupSeconds > 0) {
                    out.print("warming up for " + runLength.warmupSeconds + " s (not counted) ... ");
                    out.flush();
                    producer.run(load, seed.seed + 1, Duration.ofSeconds(runLength.warmupSeconds));
                    results.awaitResults(producer.acked(), Duration.ofSeconds(3), Duration.ofSeconds(30));
                    out.println("done");
                }
                ResultSummary served = run(out, producer, results, load);
                out.println();
                out.println(served.table());
                out.println();
                out.print(stages.table());
                out.println(stages.pipelineLine());
                out.println();
                reasons.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(5)
                        .forEach(e -> out.printf("%8d  %s%n", e.getValue(), e.getKey()));
                ResultSummary.Stats all = served.overall();
                out.printf("%d requests: %.1f%% met their SLO, goodput %.0f/s, p99 %.1f ms, mean batch %.2f; %d dropped, %d late%n",
                        all.total(), 100 * all.sloAttainment(), all.goodputPerSecond(), all.p99Micros() / 1000.0, all.meanBatchSize(),
                        all.count(ResultStatus.DROPPED), all.count(ResultStatus.LATE));
                out.println(meanBatches(served));
                if (results.duplicates() > 0) out.printf("warning: %d requests had more than one result (the reader kept the first)%n", results.duplicates());
            } finally {
                job.cancel().get();
            }
        }
        return 0;
    }

    /** Why requests did not come back OK, with numbers blanked so that alike reasons count together. */
    private final Map<String, Long> reasons = new java.util.TreeMap<>();
    private final StageBreakdown stages = new StageBreakdown();

    private ResultSummary run(PrintWriter out, RequestProducer producer, ResultConsumer results, Workload load) throws Exception {
        ResultSummary served = new ResultSummary();
        results.onResult((r, receivedAt) -> {
            ResultRecords.addTo(served, r);
            stages.add(r, receivedAt);
            if (r.getReason() != null) reasons.merge(r.getStatus() + ": " + r.getReason().replaceAll("[0-9]+", "N"), 1L, Long::sum);
        });
        AtomicBoolean sending = new AtomicBoolean(true);
        // The consumer polls on its own thread; the summary is only read there, so the live line is built there too.
        String[] live = {""};
        Thread reader = new Thread(() -> {
            long nextLine = 0;
            while (sending.get()) {
                results.poll(Duration.ofMillis(50));
                long now = System.nanoTime();
                if (now >= nextLine) {
                    live[0] = liveLine(served);
                    nextLine = now + 250_000_000L;
                }
            }
        }, "demo-results");
        reader.start();
        try (ProgressBar bar = ProgressLine.bar("serving", runLength.durationSeconds * 1000L,
                s -> List.of(String.format(Locale.ROOT, "%d/%d s", s.getCurrent() / 1000, s.getMax() / 1000)))) {
            RequestProducer.PacingReport pacing = producer.run(load, seed.seed, Duration.ofSeconds(runLength.durationSeconds), (sent, offsetMicros, behind) -> {
                bar.stepTo(offsetMicros / 1000);
                bar.setExtraMessage(live[0]);
            });
            bar.stepTo(runLength.durationSeconds * 1000L);
            producer.flush();
            if (pacing.p99BehindMicros() > 10_000) {
                out.printf("%nnote: the load generator fell behind its schedule (p99 %.1f ms): this machine is saturated%n", pacing.p99BehindMicros() / 1000.0);
            }
        } finally {
            sending.set(false);
            reader.join();
        }
        out.println("waiting for the last results ...");
        long expected = producer.acked(); // every request acked so far, warm-up ones included, has its result
        results.awaitResults(expected, Duration.ofSeconds(5), Duration.ofSeconds(60));
        return served;
    }

    /** Whether this JVM compiles with C1 alone, as {@code bin/kairos} runs the demo on small machines. */
    private static boolean c1Only() {
        return java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments().contains("-XX:TieredStopAtLevel=1");
    }

    /** {@code mean batch: bert-tiny 3.01, googlenet 1.18, ...}: where batching happened. */
    static String meanBatches(ResultSummary s) {
        StringBuilder b = new StringBuilder("mean batch:");
        String sep = " ";
        for (String model : s.models()) {
            ResultSummary.Stats m = s.model(model);
            if (m.served() == 0) continue;
            b.append(sep).append(model).append(String.format(Locale.ROOT, " %.2f", m.meanBatchSize()));
            sep = ", ";
        }
        return b.toString();
    }

    private static String liveLine(ResultSummary s) {
        ResultSummary.Stats a = s.overall();
        if (a.total() == 0) return "";
        // Most telling first: the line drops fields from the right when the terminal is narrow.
        return ProgressLine.extra(
                String.format(Locale.ROOT, "SLO %.1f%%", 100 * a.sloAttainment()),
                String.format(Locale.ROOT, "batch %.2f", a.meanBatchSize()),
                String.format(Locale.ROOT, "p99 %.0f ms", a.p99Micros() / 1000.0),
                String.format(Locale.ROOT, "%,d done", a.total()),
                String.format(Locale.ROOT, "%,d dropped", a.count(ResultStatus.DROPPED)));
    }
}
