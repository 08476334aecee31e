package io.kairos.testbed.bench;

import io.kairos.core.model.LatencyProfile;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.time.WallClock;
import io.kairos.jobs.config.ServingConfig;
import io.kairos.jobs.ServingJob;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.ResultStatus;
import io.kairos.schema.StageTimes;
import io.kairos.tools.client.RequestProducer;
import io.kairos.tools.client.ResultConsumer;
import io.kairos.tools.embedded.EmbeddedKafkaBroker;
import io.kairos.workload.ArrivalSpec;
import io.kairos.workload.ModelLoad;
import io.kairos.workload.Workload;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The serving job on simulated devices, driven open loop at multiples of its serving group's
 * capacity, one step at a time: what goodput it keeps, how many requests wait in Kafka and in the
 * scheduler at most, and how much heap the process holds. Everything runs in this JVM (broker,
 * mini-cluster, clients), so the heap is theirs together.
 */
final class OverloadRig implements AutoCloseable {
    private final EmbeddedKafkaBroker broker;
    private final ServingConfig config;
    private final ModelCatalog catalog;
    private final String model;
    private final double sloMs;
    private final JobClient job;
    private final ResultConsumer results;
    private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    private long seed = 11;

    /**
     * Starts the job on {@code env} with {@code config} (topics created here) and waits until it
     * serves {@code model}.
     */
    OverloadRig(EmbeddedKafkaBroker broker, ServingConfig config, ModelCatalog catalog, String model, double sloMs,
                StreamExecutionEnvironment env) throws Exception {
        this.broker = broker;
        this.config = config;
        this.catalog = catalog;
        this.model = model;
        this.sloMs = sloMs;
        for (String topic : config.topics()) broker.createTopic(topic, 1);
        job = ServingJob.onKafka(config, catalog).start(env);
        results = new ResultConsumer(broker.bootstrapServers(), config.resultsTopic, ResultConsumer.StartAt.EARLIEST);
        try (RequestProducer p = producer()) {
            results.awaitServing(p, model, Duration.ofSeconds(120));
        }
    }

    /**
     * The group's capacity in requests per second: its devices running full batches back to back,
     * at the catalog's latency times the simulated devices' speed factor.
     */
    static double capacity(ModelCatalog catalog, String model, int devices, double speedFactor) {
        LatencyProfile p = catalog.get(model).latency();
        return devices * p.maxBatch() / (p.latencyMicros(p.maxBatch()) * speedFactor / 1e6);
    }

    double capacity() {
        return capacity(catalog, model, config.devices, config.simulatedSpeed);
    }

    private RequestProducer producer() {
        return new RequestProducer(broker.bootstrapServers(), config.requestsTopic, catalog);
    }

    /** What one step saw. Goodput and counts are of the requests sent after the step's warm-up. */
    record Step(double load, double offeredPerSecond, long sent, long measured, long ok, long late, long dropped, long other,
                long shedEarly, long queueFull, double goodputPerSecond, int maxKafkaLag, int maxSchedulerBacklog,
                int maxInSystem, double heapMaxMb, double liveHeapMb, long missing) {}

    /**
     * Offers {@code load} times the capacity (Poisson arrivals) for {@code duration}; what is sent in
     * the first {@code warmup} is not counted in goodput. Waits for the results (at most
     * {@code drain} of silence), then measures the live heap after a full collection.
     */
    Step run(double load, Duration duration, Duration warmup, Duration drain, RequestProducer.Progress progress) throws InterruptedException {
        double rate = load * capacity();
        Workload workload = new Workload(List.of(ModelLoad.of("overload", model, rate, sloMs, ArrivalSpec.POISSON)));
        long start = WallClock.nowMicros();
        long measureFrom = start + warmup.toNanos() / 1_000;
        long measureTo = start + duration.toNanos() / 1_000;
        long[] counts = new long[8]; // received, measured, ok, late, dropped, other, shed early, queue full
        Backlog kafka = new Backlog(), scheduler = new Backlog(), inSystem = new Backlog();
        results.onResult((r, receivedAt) -> {
            StageTimes t = r.getTimings();
            if (t.getSent() < start) return;
            counts[0]++;
            kafka.add(t.getSent(), t.getIngested());
            scheduler.add(t.getEnqueued(), t.getDispatched() != null ? t.getDispatched() : t.getEmitted());
            inSystem.add(t.getSent(), t.getEmitted());
            if (t.getSent() < measureFrom || t.getSent() >= measureTo) return;
            counts[1]++;
            ResultStatus s = r.getStatus();
            if (s == ResultStatus.OK) counts[2]++;
            else if (s == ResultStatus.LATE) counts[3]++;
            else if (s == ResultStatus.DROPPED) counts[4]++;
            else counts[5]++;
            String reason = r.getReason();
            if (reason != null && reason.startsWith("shed under overload")) counts[6]++;
            if (reason != null && reason.startsWith("queue full")) counts[7]++;
        });
        AtomicLong heapMax = new AtomicLong();
        AtomicBoolean running = new AtomicBoolean(true);
        Thread reader = new Thread(() -> {
            long nextSample = 0;
            while (running.get()) {
                results.poll(Duration.ofMillis(20));
                long now = System.nanoTime();
                if (now >= nextSample) {
                    heapMax.accumulateAndGet(memory.getHeapMemoryUsage().getUsed(), Math::max);
                    nextSample = now + 100_000_000L;
                }
            }
        }, "overload-results");
        RequestProducer.PacingReport pacing;
        try (RequestProducer p = producer()) {
            reader.start();
            pacing = p.run(workload, seed++, duration, progress);
        } finally {
            running.set(false);
            reader.join();
        }
        results.awaitResults(results.distinct() + (pacing.sent() - counts[0]), drain, drain.multipliedBy(20));
        System.gc();
        double live = memory.getHeapMemoryUsage().getUsed() / 1048576.0;
        double measuredSeconds = (measureTo - measureFrom) / 1e6;
        return new Step(load, pacing.offeredRatePerSecond(), pacing.sent(), counts[1], counts[2], counts[3], counts[4], counts[5],
                counts[6], counts[7], counts[2] / measuredSeconds, kafka.max(), scheduler.max(), inSystem.max(),
                heapMax.get() / 1048576.0, live, pacing.sent() - counts[0]);
    }

    @Override
    public void close() throws Exception {
        results.close();
        job.cancel().get();
    }
}
