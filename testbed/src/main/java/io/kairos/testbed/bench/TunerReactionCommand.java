package io.kairos.testbed.bench;

import io.kairos.control.DecisionPublisher;
import io.kairos.control.inferline.PipelineDecisions;
import io.kairos.control.tuner.TunerSettings;
import io.kairos.core.device.DeviceSlots;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.pipeline.PipelineException;
import io.kairos.core.pipeline.PipelineSpec;
import io.kairos.core.time.WallClock;
import io.kairos.jobs.ServingJob;
import io.kairos.jobs.config.ServingConfig;
import io.kairos.jobs.options.ConfigFlags;
import io.kairos.jobs.tuner.TunerJob;
import io.kairos.jobs.tuner.TunerSetup;
import io.kairos.schema.DecisionOutcome;
import io.kairos.schema.DecisionStatus;
import io.kairos.tools.format.Numbers;
import io.kairos.tools.client.RequestProducer;
import io.kairos.tools.embedded.EmbeddedKafkaBroker;
import io.kairos.testbed.experiment.ResultTable;
import io.kairos.wire.AvroCodec;
import io.kairos.workload.ArrivalTrace;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code tuner-reaction}: how long the tuner takes, end to end, to answer a 2x rate step with a new
 * placement in the serving job. The load generator sends a pipeline's requests evenly at a share
 * of the rate it was planned for, then doubles its rate; the tuner job sees the step in its
 * envelope and publishes the stage's new placement to the control topic; the serving job decides
 * it (its outcome's {@code decided_at_micros}). The reaction is from the moment the generator
 * doubled its rate to that decision, split at the tuner's decision ({@code issued_at_micros}, the
 * tick that made it) into what the envelope and its tick took and what the control path took.
 * After each step the rate goes back down and the command waits for the tuner to give the replica
 * back (Algorithm 4: once the step has left its look-back) before the next.
 *
 * <p>By default everything runs in this process: an embedded broker, the serving job and the
 * tuner job on Flink mini-clusters. With {@code --bootstrap-servers} it runs against a cluster
 * where both jobs already run, the tuner job submitted with the same pipeline and trace
 * ({@code infra/cluster submit-tuner}), the plan published ({@code --publish-plan} does it).
 */
@Command(name = "tuner-reaction", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Measure the tuner's reaction time end to end: from the first second of a 2x rate step in the load generator to the "
                + "stage's new placement applied in the serving job (load generator -> requests topic -> tuner job -> control topic -> "
                + "serving job), over several steps; prints the median and p90 and writes reaction.csv. On an embedded broker and "
                + "mini-clusters unless --bootstrap-servers names a cluster where the serving job and the tuner job run."})
public class TunerReactionCommand implements Callable<Integer> {

    @Option(names = "--steps", paramLabel = "N", description = "Rate steps measured (default: ${DEFAULT-VALUE}).")
    int steps = 6;

    @Option(names = "--base-share", paramLabel = "F",
            description = "The load before each step, as a share of the sample trace's rate; the step doubles it (default: ${DEFAULT-VALUE}).")
    double baseShare = 0.9;

    @Option(names = "--pipeline", paramLabel = "FILE", description = "The pipeline's spec (default: testbed/experiments/tuner-reaction/pipeline.json in the checkout).")
    Path pipelineFile;

    @Option(names = "--trace", paramLabel = "FILE", description = "The sample trace it is planned on (default: testbed/experiments/tuner-reaction/trace.txt in the checkout).")
    Path traceFile;

    @Option(names = "--devices", paramLabel = "N", description = "Simulated devices of the serving job, as given to it and to the tuner job (default: ${DEFAULT-VALUE}).")
    int devices = 4;

    @Option(names = "--seed", description = "The planner's seed, as given to the tuner job (default: ${DEFAULT-VALUE}).")
    long seed = 1;

    @Option(names = "--tick-ms", paramLabel = "MS", description = "The embedded tuner job's tick (default: ${DEFAULT-VALUE}).")
    long tickMs = TunerSettings.DEFAULT.tickMicros() / 1000;

    @Option(names = "--step-timeout-s", paramLabel = "S", description = "How long to wait for the tuner's answer to a step, and for its scale-down after (default: ${DEFAULT-VALUE}).")
    int stepTimeoutSeconds = 120;

    @Option(names = "--bootstrap-servers", paramLabel = "HOST:PORT", description = "A cluster's Kafka, where both jobs run; nothing is started here.")
    String bootstrapServers;

    @Option(names = "--publish-plan", description = "With --bootstrap-servers: publish the pipeline's plan first (what `kairos plan pipeline --publish` publishes).")
    boolean publishPlan;

    @Option(names = "--tuner-writer", description = "The tuner job's writer id (its --writer) (default: ${DEFAULT-VALUE}).")
    String tunerWriter = "kairos-tuner";

    @Option(names = "--requests-topic", description = "With --bootstrap-servers (default: ${DEFAULT-VALUE}).")
    String requestsTopic = ServingConfig.DEFAULTS.requestsTopic;

    @Option(names = "--control-topic", description = "With --bootstrap-servers (default: ${DEFAULT-VALUE}).")
    String controlTopic = ServingConfig.DEFAULTS.controlTopic;

    @Option(names = "--outcomes-topic", description = "With --bootstrap-servers (default: ${DEFAULT-VALUE}).")
    String outcomesTopic = ServingConfig.DEFAULTS.outcomesTopic;

    @Option(names = "--out", paramLabel = "DIR", description = "Output folder of reaction.csv (default: testbed/experiments/tuner-reaction in the checkout).")
    Path out;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    static final List<String> COLUMNS = List.of("step", "base_per_s", "step_per_s", "tuner_ms", "control_path_ms", "reaction_ms", "scale_down_s");

    /** One step: from the rate's doubling to the tuner's decision, to the serving job's, and how long the scale-down took after. */
    record Step(double tunerMs, double pathMs, double reactionMs, double scaleDownSeconds) {}

    @Override
    public Integer call() throws Exception {
        PrintWriter w = spec.commandLine().getOut();
        CommandLine cl = spec.commandLine();
        if (steps < 1) throw new CommandLine.ParameterException(cl, "--steps must be at least 1, got " + steps);
        if (!(baseShare > 0) || baseShare > 1) throw new CommandLine.ParameterException(cl, "--base-share must be in (0, 1], got " + baseShare);
        if (devices < 1) throw new CommandLine.ParameterException(cl, "--devices must be at least 1, got " + devices);
        if (tickMs < 1) throw new CommandLine.ParameterException(cl, "--tick-ms must be at least 1, got " + tickMs);
        if (stepTimeoutSeconds < 1) throw new CommandLine.ParameterException(cl, "--step-timeout-s must be at least 1, got " + stepTimeoutSeconds);
        if (publishPlan && bootstrapServers == null) throw new CommandLine.ParameterException(cl, "--publish-plan goes with --bootstrap-servers (the embedded run publishes its plan itself)");
        Path home = Path.of(System.getProperty("kairos.home", "")).resolve("testbed").resolve("experiments").resolve("tuner-reaction");
        Path dir = out != null ? out : home;
        Path pipelinePath = pipelineFile != null ? pipelineFile : home.resolve("pipeline.json");
        Path tracePath = traceFile != null ? traceFile : home.resolve("trace.txt");
        PipelineSpec pipeline;
        try {
            pipeline = PipelineSpec.load(pipelinePath);
        } catch (PipelineException e) {
            throw new CommandLine.ParameterException(cl, "--pipeline " + e.getMessage());
        }
        ArrivalTrace trace;
        try {
            trace = ArrivalTrace.read(tracePath);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(cl, "--trace " + e.getMessage());
        }
        ModelCatalog catalog = ModelCatalog.builtIn();
        DeviceSlots slots = DeviceSlots.of(devices, catalog);
        TunerSettings d = TunerSettings.DEFAULT;
        TunerSettings settings = new TunerSettings(d.bucketMicros(), d.windowsMicros(), d.lookbackMicros(), d.scaleDownQuietMicros(), tickMs * 1000);
        TunerSetup setup;
        try {
            setup = TunerSetup.plan(pipeline, trace, catalog, slots, pipeline.sloP99Micros(), seed, settings);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(cl, "--pipeline " + pipelinePath + ": " + e.getMessage());
        }
        double planned = trace.meanRatePerSecond();
        double base = baseShare * planned;
        String entryModel = pipeline.entry().model();
        w.printf(Locale.ROOT, "tuner-reaction: pipeline %s (entry %s), planned for %.4g requests/s: %s replica(s) on %d simulated devices; "
                        + "load %.4g/s, steps to %.4g/s; %d steps, tick %d ms, %d cores%n",
                pipeline.id(), entryModel, planned, Arrays.toString(setup.plan().plannedReplicas()), devices, base, 2 * base, steps, tickMs,
                Runtime.getRuntime().availableProcessors());
        w.flush();
        List<Step> measured;
        if (bootstrapServers == null) {
            measured = embedded(w, catalog, slots, setup, base, entryModel);
        } else {
            if (publishPlan) publish(w, bootstrapServers, setup);
            measured = run(w, bootstrapServers, requestsTopic, outcomesTopic, catalog, pipeline.id(), entryModel, base);
        }
        ResultTable table = new ResultTable(COLUMNS);
        for (int i = 0; i < measured.size(); i++) {
            Step s = measured.get(i);
            table.add(List.of(Integer.toString(i + 1), Numbers.threeDecimals(base), Numbers.threeDecimals(2 * base), Numbers.threeDecimals(s.tunerMs()), Numbers.threeDecimals(s.pathMs()), Numbers.threeDecimals(s.reactionMs()), Numbers.threeDecimals(s.scaleDownSeconds())));
        }
        Files.createDirectories(dir);
        table.write(dir.resolve("reaction.csv"));
        double[] reaction = measured.stream().mapToDouble(Step::reactionMs).toArray();
        double[] tuner = measured.stream().mapToDouble(Step::tunerMs).toArray();
        double[] path = measured.stream().mapToDouble(Step::pathMs).toArray();
        w.printf(Locale.ROOT, "reaction, 2x step to the placement applied in the serving job, over %d steps: median %.0f ms, p90 %.0f ms (min %.0f, max %.0f)%n",
                reaction.length, percentile(reaction, 50), percentile(reaction, 90), Arrays.stream(reaction).min().orElse(0), Arrays.stream(reaction).max().orElse(0));
        w.printf(Locale.ROOT, "  of which the tuner (envelope and tick): median %.0f ms, p90 %.0f ms; the control path (control topic to the serving job's decision): median %.0f ms, p90 %.0f ms%n",
                percentile(tuner, 50), percentile(tuner, 90), percentile(path, 50), percentile(path, 90));
        w.println("wrote " + dir.resolve("reaction.csv"));
        return 0;
    }

    /** The broker, both jobs and the plan, here; then the steps. */
    private List<Step> embedded(PrintWriter w, ModelCatalog catalog, DeviceSlots slots, TunerSetup setup, double base, String entryModel) throws Exception {
        w.print("starting Kafka broker, the serving job and the tuner job on Flink mini-clusters ... ");
        w.flush();
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start()) {
            ServingConfig.Builder builder = ServingConfig.builder();
            builder.bootstrapServers = broker.bootstrapServers();
            builder.devices = devices;
            builder.checkpointIntervalMs = 0;
            builder.topicsNamed("reaction-");
            builder.consumerGroup = "reaction";
            ServingConfig config = ConfigFlags.build(builder, spec.commandLine());
            for (String topic : config.topics()) broker.createTopic(topic, 1);
            Configuration flink = new Configuration();
            flink.set(RestOptions.BIND_PORT, "0");
            JobClient serving = ServingJob.onKafka(config, catalog).start(StreamExecutionEnvironment.createLocalEnvironment(devices, flink));
            JobClient tuner = null;
            try {
                publish(w, config.bootstrapServers, config.controlTopic, config.outcomesTopic, setup);
                StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(1, flink);
                TunerJob.onKafka(config.bootstrapServers, Map.of(), config.requestsTopic, config.controlTopic, "reaction-tuner")
                        .build(env, setup.function(slots, tunerWriter));
                tuner = env.executeAsync("kairos-tuner " + setup.pipeline().id());
                w.println("running");
                return run(w, config.bootstrapServers, config.requestsTopic, config.outcomesTopic, catalog, setup.pipeline().id(), entryModel, base);
            } finally {
                if (tuner != null) tuner.cancel().get();
                serving.cancel().get();
            }
        }
    }

    private void publish(PrintWriter w, String bootstrap, TunerSetup setup) {
        publish(w, bootstrap, controlTopic, outcomesTopic, setup);
    }

    private static void publish(PrintWriter w, String bootstrap, String control, String outcomes, TunerSetup setup) {
        try (DecisionPublisher publisher = new DecisionPublisher(bootstrap, control, outcomes, "tuner-reaction")) {
            PipelineDecisions.Refusal refused = PipelineDecisions.publish(publisher, setup.actions(), Duration.ofSeconds(120), line -> {});
            if (refused != null) throw new IllegalStateException("the plan was not applied: " + refused.line());
        }
        w.print("plan applied; ");
        w.flush();
    }

    /**
     * The steps: a warm-up at the base rate (the tuner's envelope fills), then per step the rate
     * doubled until the serving job applied the tuner's placement, and back to the base rate until
     * the tuner gave the replicas back.
     */
    private List<Step> run(PrintWriter w, String bootstrap, String requests, String outcomes, ModelCatalog catalog, String pipeline, String model, double base)
            throws InterruptedException {
        List<Step> measured = new ArrayList<>();
        try (OutcomeReader reader = new OutcomeReader(bootstrap, outcomes, tunerWriter);
             RequestProducer producer = new RequestProducer(RequestProducer.lowLatencyConfig(bootstrap), requests, catalog).idPrefix("reaction-")) {
            Pacer pacer = new Pacer(producer, pipeline, model, base);
            Thread load = new Thread(pacer, "tuner-reaction-load");
            load.start();
            try (ProgressBar bar = new ProgressBarBuilder().setTaskName("tuner-reaction").setInitialMax(steps).setUnit(" steps", 1)
                    .setStyle(ProgressBarStyle.ASCII).setUpdateIntervalMillis(500).build()) {
                // 5 s at the base rate first. Should the tuner change the placement meanwhile (it should
                // not: the base rate is below the plan's), the steps wait until it has been quiet for
                // its look-back and 5 s, so that each starts from the planned replicas.
                Thread.sleep(5_000);
                long quietFor = TunerSettings.DEFAULT.lookbackMicros() + 5_000_000;
                long warmupEnd = WallClock.nowMicros() + stepTimeoutSeconds * 1_000_000L;
                while (reader.last() != null && WallClock.nowMicros() - reader.last().getDecidedAtMicros() < quietFor) {
                    if (WallClock.nowMicros() > warmupEnd) throw new IllegalStateException("the tuner kept changing the placement at the base rate for " + stepTimeoutSeconds + " s");
                    Thread.sleep(1_000);
                }
                reader.drain();
                for (int i = 0; i < steps; i++) {
                    long stepAt = pacer.setRate(2 * base);
                    DecisionOutcome up = reader.next(stepAt, Duration.ofSeconds(stepTimeoutSeconds));
                    pacer.setRate(base);
                    if (up == null) throw new IllegalStateException("step " + (i + 1) + ": no placement of the tuner (writer '" + tunerWriter + "') applied within "
                            + stepTimeoutSeconds + " s: is the tuner job running on this pipeline?");
                    long downFrom = WallClock.nowMicros();
                    DecisionOutcome down = reader.next(downFrom, Duration.ofSeconds(stepTimeoutSeconds));
                    if (down == null) throw new IllegalStateException("step " + (i + 1) + ": the tuner gave no replica back within " + stepTimeoutSeconds + " s");
                    measured.add(new Step((up.getIssuedAtMicros() - stepAt) / 1e3, (up.getDecidedAtMicros() - up.getIssuedAtMicros()) / 1e3,
                            (up.getDecidedAtMicros() - stepAt) / 1e3, (down.getDecidedAtMicros() - downFrom) / 1e6));
                    bar.step();
                    Thread.sleep(2_000);
                    reader.drain();
                }
            } finally {
                pacer.stop();
                load.join();
            }
        }
        return measured;
    }

    /** Sends the pipeline's requests evenly at a rate that can change; its thread runs {@link #run}. */
    static final class Pacer implements Runnable {
        private final RequestProducer producer;
        private final String pipeline;
        private final String model;
        private volatile double rate;
        private volatile boolean stopped;

        Pacer(RequestProducer producer, String pipeline, String model, double rate) {
            this.producer = producer;
            this.pipeline = pipeline;
            this.model = model;
            this.rate = rate;
        }

        /** The rate from now on; returns now, wall-clock microseconds: the next request is due within one gap of the old rate. */
        long setRate(double perSecond) {
            rate = perSecond;
            return WallClock.nowMicros();
        }

        void stop() {
            stopped = true;
        }

        @Override
        public void run() {
            // The first request fetches the topic's metadata: the pacing starts once it is out.
            producer.sendToPipeline("default", pipeline, model, 60_000);
            producer.flush();
            long next = System.nanoTime();
            while (!stopped) {
                long now = System.nanoTime();
                if (now < next) {
                    LockSupport.parkNanos(Math.min(next - now, 10_000_000));
                    continue;
                }
                producer.sendToPipeline("default", pipeline, model, 60_000);
                next += (long) (1e9 / rate);
                // Behind by more than 50 ms (a pause of this process): go on from now rather than send
                // the backlog in a burst the tuner would see as a step.
                if (now - next > 50_000_000L) next = now;
            }
            producer.flush();
        }
    }

    /** The serving job's outcomes of the tuner's decisions, read from the outcomes topic's end. */
    static final class OutcomeReader implements AutoCloseable {
        private final KafkaConsumer<byte[], byte[]> consumer;
        private final AvroCodec<DecisionOutcome> codec = AvroCodec.of(DecisionOutcome.class);
        private final String writer;
        private final LinkedBlockingQueue<DecisionOutcome> applied = new LinkedBlockingQueue<>();
        private final Thread poller;
        private volatile boolean closed;

        OutcomeReader(String bootstrap, String topic, String writer) {
            this.writer = writer;
            Properties p = new Properties();
            p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
            p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
            p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
            p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "5");
            consumer = new KafkaConsumer<>(p);
            List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                    .map(info -> new TopicPartition(topic, info.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToEnd(partitions);
            for (TopicPartition tp : partitions) consumer.position(tp, Duration.ofSeconds(30));
            poller = new Thread(this::poll, "tuner-reaction-outcomes");
            poller.start();
        }

        private void poll() {
            while (!closed) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(50))) {
                    if (r.value() == null) continue;
                    DecisionOutcome o;
                    try {
                        o = codec.decode(ByteBuffer.wrap(r.value()));
                    } catch (RuntimeException e) {
                        continue; // not an outcome this reader can read
                    }
                    if (writer.equals(o.getWriter()) && o.getStatus() == DecisionStatus.APPLIED) {
                        applied.add(o);
                        last = o;
                    }
                }
            }
        }

        /** The first outcome applied at or after {@code fromMicros}, waiting up to {@code timeout}; null if none came. */
        DecisionOutcome next(long fromMicros, Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (true) {
                long left = deadline - System.nanoTime();
                if (left <= 0) return null;
                DecisionOutcome o = applied.poll(left, TimeUnit.NANOSECONDS);
                if (o == null) return null;
                if (o.getDecidedAtMicros() >= fromMicros) return o;
            }
        }

        private volatile DecisionOutcome last;

        /** The latest outcome applied, or null. */
        DecisionOutcome last() {
            return last;
        }

        /** Forgets what came so far (a decision between two steps is no step's answer). */
        void drain() {
            applied.clear();
        }

        @Override
        public void close() throws InterruptedException {
            closed = true;
            poller.join();
            consumer.close();
        }
    }

    /** The p-th percentile, nearest rank. */
    static double percentile(double[] values, double p) {
        if (values.length == 0) return Double.NaN;
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(p / 100 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }
}
