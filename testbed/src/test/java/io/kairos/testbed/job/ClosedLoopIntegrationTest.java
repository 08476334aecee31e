package io.kairos.testbed.job;

import io.kairos.core.model.LatencyProfile;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.time.WallClock;
import io.kairos.jobs.config.ServingConfig;
import io.kairos.jobs.ServingJob;
import io.kairos.schema.BatchTelemetry;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.internal.DeviceReport;
import io.kairos.wire.AvroCodec;
import io.kairos.wire.CoalescedRecords;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The job's feedback loop on a real broker and a Flink mini-cluster: simulated devices run 1.5
 * times slower than the catalog says, their reports come back to the scheduler through the
 * device-reports topic, and the scheduler's predictions (telemetry's predicted latency) converge
 * to what the devices really take; with learning off they stay the catalog's. Each device gathers
 * its reports over an interval: every batch's report comes back once, in the order the device
 * ended them.
 */
class ClosedLoopIntegrationTest {

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(
            new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4).build());

    private static final ModelCatalog CATALOG = ModelCatalog.builtIn();
    private static final double SLOWER = 1.5;
    private static final int REQUESTS = 240;
    @RegisterExtension
    static final BrokerForClass BROKER = new BrokerForClass();
    private static int run;

    @Test
    void predictionsConvergeToTheSlowerDevicesAndReportsComeBackInMilliseconds() throws Exception {
        // 20 ms, far above the default, so that a device's reports are gathered several to a record.
        ServingConfig config = config(c -> c.reportCoalesceMicros = 20_000);
        ReportDelays delays = new ReportDelays(config);
        List<BatchTelemetry> batches;
        try {
            batches = serveResnet(config);
        } finally {
            delays.stop();
        }
        // Every batch's end reported exactly once (the warm-up's included), in the order each device ended them.
        List<String> reported = delays.reports().stream().map(DeviceReport::getBatchId).toList();
        assertThat(reported).doesNotHaveDuplicates().containsAll(batches.stream().map(BatchTelemetry::getBatchId).toList());
        assertThat(reported).hasSize(batches.size() + 1);
        for (int device = 0; device < config.devices; device++) {
            int dev = device;
            List<Long> ends = delays.reports().stream().filter(r -> r.getDevice() == dev).map(DeviceReport::getExecEndMicros).toList();
            assertThat(ends).as("device %d's batch ends, in the order read", dev).isSorted();
        }
        assertThat(delays.records()).as("records that carried the %d reports", reported.size()).isLessThan(reported.size());
        LatencyProfile catalog = CATALOG.get("resnet50").latency();
        BatchTelemetry first = batches.get(0);
        assertThat(first.getPredictedLatencyMicros()).as("the first batch: the catalog's prediction").isEqualTo(catalog.latencyMicros(first.getBatchSize()));
        assertThat(actual(first)).as("... on a device 1.5 times slower").isEqualTo(Math.round(catalog.latencyMicros(first.getBatchSize()) * SLOWER));

        // Once reports are back, the prediction is what the device takes: exactly, since these
        // devices have no noise (a size not measured yet is scaled as the nearest measured one).
        List<BatchTelemetry> later = batches.subList(batches.size() / 2, batches.size());
        long exact = later.stream().filter(b -> b.getPredictedLatencyMicros() == actual(b)).count();
        assertThat(exact).as("later batches predicted exactly: %s", errors(later)).isGreaterThanOrEqualTo(later.size() * 9 / 10);

        List<Long> d = delays.sorted();
        assertThat(d).as("reports read back").hasSizeGreaterThanOrEqualTo(batches.size());
        long p50 = d.get(d.size() / 2), p99 = d.get(Math.min(d.size() - 1, d.size() * 99 / 100));
        System.out.printf("device report delay (batch end on the device to report read from the topic), %d reports: p50 %.2f ms, p99 %.2f ms%n",
                d.size(), p50 / 1000.0, p99 / 1000.0);
        assertThat(p50).as("median report delay, us").isLessThan(200_000);
    }

    @Test
    void withLearningOffThePredictionsStayTheCatalogs() throws Exception {
        ServingConfig config = config(c -> c.learnLatency = false);
        List<BatchTelemetry> batches = serveResnet(config);
        LatencyProfile catalog = CATALOG.get("resnet50").latency();
        assertThat(batches).allSatisfy(b -> {
            assertThat(b.getPredictedLatencyMicros()).isEqualTo(catalog.latencyMicros(b.getBatchSize()));
            assertThat(actual(b)).isEqualTo(Math.round(catalog.latencyMicros(b.getBatchSize()) * SLOWER));
        });
    }

    /** Sends a steady trickle of resnet50 requests; returns their batches' telemetry in dispatch order. */
    private List<BatchTelemetry> serveResnet(ServingConfig config) throws Exception {
        try (TopicClient kafka = new TopicClient(BROKER.get().bootstrapServers())) {
            JobClient job = ServingJob.onKafka(config, CATALOG).start(StreamExecutionEnvironment.getExecutionEnvironment());
            try {
                kafka.send(config.requestsTopic, InferenceRequest.class, ServingJobIntegrationTest.request("warm-up", "mlp", 120_000));
                kafka.flush();
                assertThat(kafka.readUntil(config.resultsTopic, InferenceResult.class, l -> !l.isEmpty(), Duration.ofSeconds(60))).hasSize(1);
                for (int i = 0; i < REQUESTS; i++) {
                    kafka.send(config.requestsTopic, InferenceRequest.class, ServingJobIntegrationTest.request("r" + i, "resnet50", 5_000));
                    kafka.flush();
                    Thread.sleep(4);
                }
                List<BatchTelemetry> all = kafka.readUntil(config.telemetryTopic, BatchTelemetry.class,
                        l -> l.stream().mapToInt(BatchTelemetry::getBatchSize).sum() >= REQUESTS + 1, Duration.ofSeconds(60));
                List<BatchTelemetry> resnet = new ArrayList<>(all.stream().filter(b -> b.getModel().equals("resnet50")).toList());
                assertThat(resnet.stream().mapToInt(BatchTelemetry::getBatchSize).sum()).isEqualTo(REQUESTS);
                resnet.sort(Comparator.comparingLong(BatchTelemetry::getDispatchedAtMicros));
                return resnet;
            } finally {
                job.cancel().get();
            }
        }
    }

    private static long actual(BatchTelemetry b) {
        return b.getExecEndMicros() - b.getExecStartMicros();
    }

    private static List<String> errors(List<BatchTelemetry> batches) {
        return batches.stream().map(b -> b.getBatchSize() + ":" + (b.getPredictedLatencyMicros() - actual(b))).toList();
    }

    private static ServingConfig config(Consumer<ServingConfig.Builder> adjust) {
        run++;
        return TestConfigs.onBroker(BROKER.get(), "loop" + run + "-", c -> {
            c.simulatedSpeed = SLOWER;
            adjust.accept(c);
        });
    }

    /**
     * Reads the device-reports topic as the job does (same fetch settings) and keeps, for each
     * report, the time from its batch's end on the device to its arrival here.
     */
    private static final class ReportDelays {
        private final List<Long> delays = new ArrayList<>();
        private final List<DeviceReport> reports = new ArrayList<>();
        private int records;
        private final AtomicBoolean stop = new AtomicBoolean();
        private final Thread reader;

        ReportDelays(ServingConfig config) {
            AvroCodec<DeviceReport> codec = AvroCodec.of(DeviceReport.class);
            KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                    "bootstrap.servers", BROKER.get().bootstrapServers(), "group.id", "delays-" + UUID.randomUUID(), "auto.offset.reset", "earliest",
                    "fetch.min.bytes", 1, "fetch.max.wait.ms", 5), new ByteArrayDeserializer(), new ByteArrayDeserializer());
            consumer.subscribe(List.of(config.deviceReportsTopic));
            reader = new Thread(() -> {
                try (consumer) {
                    while (!stop.get()) {
                        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(50))) {
                            long now = WallClock.nowMicros();
                            synchronized (delays) {
                                records++;
                                for (DeviceReport report : CoalescedRecords.decodeReports(codec, r.value())) {
                                    reports.add(report);
                                    delays.add(now - report.getExecEndMicros());
                                }
                            }
                        }
                    }
                }
            }, "report-delays");
            reader.start();
        }

        void stop() throws InterruptedException {
            stop.set(true);
            reader.join();
        }

        /** Every batch's report read, in the order read. */
        List<DeviceReport> reports() {
            synchronized (delays) {
                return List.copyOf(reports);
            }
        }

        /** The records that carried them. */
        int records() {
            synchronized (delays) {
                return records;
            }
        }

        List<Long> sorted() {
            synchronized (delays) {
                return delays.stream().sorted().toList();
            }
        }
    }
}
