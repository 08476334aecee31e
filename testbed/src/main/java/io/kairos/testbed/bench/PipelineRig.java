package io.kairos.testbed.bench;

import io.kairos.core.metrics.ResultSummary;
import io.kairos.core.model.ModelCatalog;
import io.kairos.jobs.ServingJob;
import io.kairos.jobs.config.ServingConfig;
import io.kairos.tools.client.RequestProducer;
import io.kairos.tools.client.ResultConsumer;
import io.kairos.tools.embedded.EmbeddedKafkaBroker;
import io.kairos.wire.result.ResultStatuses;
import io.kairos.workload.ArrivalSpec;
import io.kairos.workload.ModelLoad;
import io.kairos.workload.Workload;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The serving job with zero-latency simulated devices on a broker, driven open loop, so that what
 * is measured is the pipeline itself: Kafka in, Flink, Kafka out. Latency is counted as the bare
 * round trip counts it: from the client's send to the client's receive of the result.
 */
final class PipelineRig implements AutoCloseable {
    private final EmbeddedKafkaBroker broker;
    private final ServingConfig config;
    private final ModelCatalog catalog;
    private final JobClient job;
    private final ResultConsumer results;
    private final String model;
    private final BrokerRecords records;

    PipelineRig(EmbeddedKafkaBroker broker, String name, int devices, String model, long bufferTimeoutMs) throws Exception {
        this(broker, name, devices, model, bufferTimeoutMs, ServingConfig.DEFAULTS.delivery, ServingConfig.DEFAULTS.checkpointIntervalMs);
    }

    /**
     * With {@code delivery} and checkpoints every {@code checkpointIntervalMs}: under exactly-once a
     * result is received (the client reads {@code read_committed}) once the checkpoint after it
     * has completed and its transaction is committed.
     */
    PipelineRig(EmbeddedKafkaBroker broker, String name, int devices, String model, long bufferTimeoutMs,
                ServingConfig.Delivery delivery, long checkpointIntervalMs) throws Exception {
        this(broker, name, devices, ModelCatalog.builtIn(), model, bufferTimeoutMs, delivery, checkpointIntervalMs);
    }

    PipelineRig(EmbeddedKafkaBroker broker, String name, int devices, ModelCatalog catalog, String model, long bufferTimeoutMs,
                ServingConfig.Delivery delivery, long checkpointIntervalMs) throws Exception {
        this(broker, name, devices, catalog, model, bufferTimeoutMs, delivery, checkpointIntervalMs, Map.of());
    }

    /**
     * Serving the models of {@code catalog}; {@code model} is the one {@link #run(double, Duration, Duration, Duration)}
     * offers. {@code consumerProperties} go over the settings of every consumer, the job's and the
     * results collector's (the job hands its Kafka properties to its producers too, which ignore
     * consumer settings).
     */
    PipelineRig(EmbeddedKafkaBroker broker, String name, int devices, ModelCatalog catalog, String model, long bufferTimeoutMs,
                ServingConfig.Delivery delivery, long checkpointIntervalMs, Map<String, String> consumerProperties) throws Exception {
        this(broker, name, devices, catalog, model, bufferTimeoutMs, delivery, checkpointIntervalMs, consumerProperties, c -> {});
    }

    /** With {@code configure} setting what else the job is to be (the gathering of the devices' reports). */
    PipelineRig(EmbeddedKafkaBroker broker, String name, int devices, ModelCatalog catalog, String model, long bufferTimeoutMs,
                ServingConfig.Delivery delivery, long checkpointIntervalMs, Map<String, String> consumerProperties,
                java.util.function.Consumer<ServingConfig.Builder> configure) throws Exception {
        this.broker = broker;
        this.catalog = catalog;
        this.model = model;
        ServingConfig.Builder b = ServingConfig.builder();
        b.bootstrapServers = broker.bootstrapServers();
        b.topicsNamed(name + "-");
        b.consumerGroup = name;
        b.devices = devices;
        b.simulatedSpeed = 0;
        b.bufferTimeoutMs = bufferTimeoutMs;
        b.fromEarliest = true;
        b.delivery = delivery;
        b.checkpointIntervalMs = checkpointIntervalMs;
        b.kafkaProperties.putAll(consumerProperties);
        configure.accept(b);
        config = b.build();
        for (String topic : config.topics()) broker.createTopic(topic, 1);
        records = new BrokerRecords(broker, config.topics());
        Configuration flink = new Configuration();
        flink.set(RestOptions.BIND_PORT, "0");
        job = ServingJob.onKafka(config, catalog).start(StreamExecutionEnvironment.createLocalEnvironment(devices, flink));
        Map<String, Object> resultsConsumer = ResultConsumer.lowLatencyConfig(broker.bootstrapServers());
        resultsConsumer.putAll(consumerProperties);
        results = new ResultConsumer(resultsConsumer, config.resultsTopic, ResultConsumer.StartAt.EARLIEST);
        awaitServing(model);
    }

    /** Returns once a request for {@code model} has come back: the job is running and serves it. */
    void awaitServing(String model) {
        try (RequestProducer p = producer()) {
            results.awaitServing(p, model, Duration.ofSeconds(120));
        }
    }

    private RequestProducer producer() {
        return new RequestProducer(broker.bootstrapServers(), config.requestsTopic, catalog);
    }

    /**
     * Offers {@code rate} requests per second (Poisson) for {@code duration}; results of requests
     * sent in the first {@code warmup} are not measured. Waits up to {@code drain} of silence for
     * the stragglers.
     */
    Phase run(double rate, Duration duration, Duration warmup, Duration drain) throws InterruptedException {
        return run(model, rate, duration, warmup, drain);
    }

    /** {@link #run(double, Duration, Duration, Duration)} with requests for {@code model}. */
    Phase run(String model, double rate, Duration duration, Duration warmup, Duration drain) throws InterruptedException {
        return run(model, rate, duration, warmup, drain, false);
    }

    /**
     * {@link #run(String, double, Duration, Duration, Duration)}, with {@code reportDelays}: the
     * time from each batch's end on its device to its report read back from the device-reports
     * topic, as the schedulers read it, by a consumer of its own (which costs the broker a fetch of
     * every report record: only where the delay is asked for).
     */
    Phase run(String model, double rate, Duration duration, Duration warmup, Duration drain, boolean reportDelays) throws InterruptedException {
        return run(new Workload(List.of(ModelLoad.of("bench", model, rate, 600_000, ArrivalSpec.POISSON))), duration, warmup, drain, reportDelays);
    }

    /** {@link #run(String, double, Duration, Duration, Duration, boolean)} offering {@code load}, of one model or several. */
    Phase run(Workload load, Duration duration, Duration warmup, Duration drain, boolean reportDelays) throws InterruptedException {
        Map<String, Long> before = records.endOffsets();
        ResultSummary.Stats measured = new ResultSummary.Stats("pipeline");
        long[] counts = new long[1];
        long[] lastReceived = new long[1];
        long start = io.kairos.core.time.WallClock.nowMicros();
        long measureFrom = start + warmup.toNanos() / 1_000;
        ReportDelays delays = reportDelays ? new ReportDelays(broker, config.deviceReportsTopic, measureFrom) : null;
        results.onResult((r, receivedAt) -> {
            long sent = r.getTimings().getSent();
            if (sent < start) return;
            counts[0]++;
            lastReceived[0] = Math.max(lastReceived[0], receivedAt);
            if (sent >= measureFrom) measured.add(ResultStatuses.core(r.getStatus()), sent, receivedAt, r.getBatchSize());
        });
        RequestProducer.PacingReport pacing;
        long[] sentUntil = new long[1];
        java.util.concurrent.atomic.AtomicBoolean sending = new java.util.concurrent.atomic.AtomicBoolean(true);
        Thread reader = new Thread(() -> {
            while (sending.get()) results.poll(Duration.ofMillis(20));
        }, "bench-results");
        try (RequestProducer p = producer()) {
            reader.start();
            pacing = p.run(load, 7, duration);
            sentUntil[0] = io.kairos.core.time.WallClock.nowMicros();
        } finally {
            sending.set(false);
            reader.join();
        }
        long expected = results.distinct() + (pacing.sent() - counts[0]);
        results.awaitResults(expected, drain, drain.multipliedBy(10));
        ReportDelays.Stats reportStats = delays == null ? ReportDelays.Stats.NONE : delays.stop();
        return new Phase(pacing.sent(), counts[0], pacing.offeredRatePerSecond(), pacing.p99BehindMicros(), pacing.elapsedMicros(),
                Math.max(0, lastReceived[0] - sentUntil[0]), measured, BrokerRecords.since(before, records.endOffsets()), reportStats);
    }

    /**
     * Waits until no result has come for {@code quiet} (at most {@code limit}): what an overloaded
     * run left in the job has been served, and the next run starts on an idle pipeline.
     */
    void settle(Duration quiet, Duration limit) {
        results.onResult((r, receivedAt) -> {});
        results.awaitResults(0, quiet, limit);
    }

    /** The job's configuration: its topics' names. */
    ServingConfig config() {
        return config;
    }

    @Override
    public void close() throws Exception {
        records.close();
        results.close();
        job.cancel().get();
    }

    /**
     * What one load phase saw. {@code elapsedMicros}: how long the sending took, longer than asked
     * when the sender fell behind its schedule. {@code drainMicros}: from the last send (flushed) to the last result
     * received, how long the backlog left when the sending stopped took to clear.
     */
    record Phase(long sent, long received, double offeredPerSecond, long p99BehindMicros, long elapsedMicros, long drainMicros, ResultSummary.Stats measured,
                 Map<String, Long> topicRecords, ReportDelays.Stats reportDelays) {
        /** The records the job's topics took over the run (its drain included), per request sent: 0 when none was sent. */
        double recordsPerRequest() {
            return sent == 0 ? 0 : topicRecords.values().stream().mapToLong(Long::longValue).sum() / (double) sent;
        }

        /** The records {@code topic} took per request sent. */
        double recordsPerRequest(String topic) {
            return sent == 0 ? 0 : topicRecords.getOrDefault(topic, 0L) / (double) sent;
        }

        long p50Micros() {
            return measured.p50Micros();
        }

        long p99Micros() {
            return measured.p99Micros();
        }

        /** Kept up: every request came back, and the tail did not grow into a backlog. */
        boolean keptUp() {
            return received >= sent && p99Micros() < 1_000_000;
        }

        /** Whether every measured result was served (none rejected or failed). */
        boolean allServed() {
            return measured.served() == measured.total();
        }
    }
}
