package io.kairos.testbed.demo;

import io.kairos.core.metrics.ResultSummary;
import io.kairos.core.model.ModelCatalog;
import io.kairos.onnx.examples.ExampleModels;
import io.kairos.core.scheduling.policy.Policies;
import io.kairos.workload.ArrivalSpec;
import io.kairos.workload.Workload;
import io.kairos.jobs.ServeCommand;
import io.kairos.jobs.ServingConfig;
import io.kairos.jobs.ServingJob;
import io.kairos.testbed.client.RequestProducer;
import io.kairos.testbed.client.ResultConsumer;
import io.kairos.testbed.embedded.EmbeddedKafkaBroker;
import io.kairos.schema.ResultStatus;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
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
import java.util.LinkedHashMap;
import java.util.List;
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

    @Option(names = "--duration", description = "Seconds of load (default: ${DEFAULT-VALUE}).")
    int durationSeconds = 20;

    @Option(names = "--workload", description = "model:rate/s:SLO ms,... (default: " + SIMULATED_WORKLOAD + "; with ONNX models: " + ONNX_WORKLOAD + ").")
    String workload;

    static final String SIMULATED_WORKLOAD = "resnet50:150:100,googlenet:150:80,bert-tiny:50:300,mlp:600:50";
    static final String ONNX_WORKLOAD = "cnn:100:200,mlp:300:100";

    @Option(names = "--onnx", description = "Run the example ONNX models (an MLP and a small CNN, generated into .kairos/models if missing) on ONNX Runtime CPU devices instead of simulated ones.")
    boolean onnx;

    @Option(names = "--model-repository", paramLabel = "DIR", description = "Run the ONNX models of this model repository on ONNX Runtime devices (see README, \"Adding a model\").")
    Path modelRepository;

    @Option(names = "--arrivals", paramLabel = "PROCESS",
            description = "How each load's requests are spaced: poisson, fixed, gamma:cv2=N or mmpp:cv2=N (default: ${DEFAULT-VALUE}).")
    String arrivals = "poisson";

    @Option(names = "--policy", description = "Scheduling policy (default: ${DEFAULT-VALUE}).")
    String policy = "clockwork";

    @Option(names = "--policy-param", paramLabel = "KEY=VALUE", description = "Policy parameter, repeatable.")
    Map<String, String> policyParams = new LinkedHashMap<>();

    @Option(names = "--devices", description = "Devices (default: 4 simulated, or 2 ONNX Runtime CPU devices).")
    Integer devices;

    @Option(names = "--simulated-speed", description = "Multiplies every profiled latency (default: ${DEFAULT-VALUE}).")
    double speed = 1.0;

    @Option(names = "--warmup", description = "Seconds of the same load before the measured run, not counted: the JIT compiles the hot paths meanwhile (default: ${DEFAULT-VALUE}).")
    int warmupSeconds = 10;

    @Option(names = "--seed", description = "Seed of the arrivals (default: ${DEFAULT-VALUE}).")
    long seed = 1;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        ArrivalSpec arrivalSpec;
        try {
            arrivalSpec = ArrivalSpec.parse(arrivals);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--arrivals: " + e.getMessage());
        }
        if (onnx && modelRepository == null) {
            modelRepository = ExampleModels.writeRepository(Path.of(System.getProperty("kairos.home", "."), ".kairos", "models"));
        }
        boolean real = modelRepository != null;
        if (devices == null) devices = real ? 2 : 4;
        if (workload == null) workload = real ? ONNX_WORKLOAD : SIMULATED_WORKLOAD;
        Workload load = Workload.parse(workload, arrivalSpec);
        ServingConfig config = new ServingConfig();
        config.modelRepository = real ? modelRepository.toAbsolutePath().toString() : null;
        config.devices = devices;
        ModelCatalog catalog = ServeCommand.catalog(config);
        for (String model : load.models()) {
            if (!catalog.contains(model)) throw new CommandLine.ParameterException(spec.commandLine(), "--workload names unknown model '" + model + "'; models: " + catalog.names());
        }
        if (!Policies.names().contains(policy)) throw new CommandLine.ParameterException(spec.commandLine(), "--policy '" + policy + "' is unknown; known: " + Policies.names());
        ServeCommand.checkPolicyParams(spec, policy, policyParams);
        if (devices < 1 || durationSeconds < 1) throw new CommandLine.ParameterException(spec.commandLine(), "--devices and --duration must be at least 1");

        out.println("Kairos demo: " + load + " (" + arrivalSpec + " arrivals), policy " + policy + ", " + devices
                + (real ? " ONNX Runtime devices (" + modelRepository + ")" : " simulated devices") + ", " + durationSeconds + " s");
        out.print("starting Kafka broker (KRaft, in-process) ... ");
        out.flush();
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start()) {
            out.println(broker.bootstrapServers());
            config.bootstrapServers = broker.bootstrapServers();
            config.policy = policy;
            config.policyParams = policyParams;
            config.simulatedSpeed = speed;
            config.fromEarliest = true;
            for (String topic : config.topics()) broker.createTopic(topic, 1);

            out.print("starting Flink mini-cluster and the serving job ... ");
            out.flush();
            Configuration flink = new Configuration();
            flink.set(RestOptions.BIND_PORT, "0"); // any free port: several demos may run side by side
            StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(devices, flink);
            JobClient job = ServingJob.onKafka(config, catalog).start(env);
            try (RequestProducer producer = new RequestProducer(broker.bootstrapServers(), config.requestsTopic, catalog);
                 ResultConsumer results = new ResultConsumer(broker.bootstrapServers(), config.resultsTopic, ResultConsumer.StartAt.EARLIEST)) {
                results.awaitServing(producer, load.loads().get(0).model(), Duration.ofSeconds(90));
                out.println("job " + job.getJobID() + " is serving");
                if (warmupSeconds > 0) {
                    out.print("warming up for " + warmupSeconds + " s (not counted) ... ");
                    out.flush();
                    producer.run(load, seed + 1, Duration.ofSeconds(warmupSeconds));
                    results.awaitResults(producer.acked(), Duration.ofSeconds(3), Duration.ofSeconds(30));
                    out.println("done");
                }
                ResultSummary served = run(out, producer, results, load);
                out.println();
                out.println(served.table());
                out.println();
                out.println(stages.table());
                reasons.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(5)
                        .forEach(e -> out.printf("%8d  %s%n", e.getValue(), e.getKey()));
                ResultSummary.Stats all = served.overall();
                out.printf("%d requests: %.1f%% met their SLO, goodput %.0f/s, p99 %.1f ms, mean batch %.2f; %d dropped, %d late%n",
                        all.total(), 100 * all.sloAttainment(), all.goodputPerSecond(), all.p99Micros() / 1000.0, all.meanBatchSize(),
                        all.count(ResultStatus.DROPPED), all.count(ResultStatus.LATE));
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
            served.add(r);
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
        try (ProgressBar bar = new ProgressBarBuilder().setTaskName("serving").setInitialMax(durationSeconds * 1000L)
                .setUnit(" s", 1000).setStyle(ProgressBarStyle.ASCII).setUpdateIntervalMillis(250).showSpeed().build()) {
            RequestProducer.PacingReport pacing = producer.run(load, seed, Duration.ofSeconds(durationSeconds), (sent, offsetMicros, behind) -> {
                bar.stepTo(offsetMicros / 1000);
                bar.setExtraMessage(live[0]);
            });
            bar.stepTo(durationSeconds * 1000L);
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

    private static String liveLine(ResultSummary s) {
        ResultSummary.Stats a = s.overall();
        if (a.total() == 0) return "";
        return String.format("%,d done, SLO %.1f%%, p50 %.1f ms, p99 %.1f ms, batch %.1f, dropped %d",
                a.total(), 100 * a.sloAttainment(), a.p50Micros() / 1000.0, a.p99Micros() / 1000.0, a.meanBatchSize(), a.count(ResultStatus.DROPPED));
    }
}
