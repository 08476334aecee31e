package io.kairos.testbed.bench;

import io.kairos.core.time.WallClock;
import io.kairos.schema.internal.DeviceReport;
import io.kairos.tools.embedded.EmbeddedKafkaBroker;
import io.kairos.wire.AvroCodec;
import io.kairos.wire.CoalescedRecords;
import io.kairos.wire.KafkaClientProperties;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The delay of the devices' reports: from a batch's end on its device ({@code exec_end_micros}) to
 * its report read back from the device-reports topic, as the job's schedulers read it (with the
 * job's consumer settings: a fetch answered as soon as one byte is there). A consumer of its own on
 * a thread of its own, from the topic's end when started; every batch of a gathered record counts.
 */
final class ReportDelays {
    /** p50 and p99 of the delays of the reports of batches that ended after the measuring began, µs; {@code reports}: how many. */
    record Stats(long reports, long p50Micros, long p99Micros) {
        static final Stats NONE = new Stats(0, 0, 0);
    }

    private final Histogram delays = new Histogram(3);
    private final AtomicBoolean reading = new AtomicBoolean(true);
    private final Thread thread;
    private final long countFromMicros;

    /** Counts the reports of batches that end from {@code fromMicros} on (after a warm-up). */
    ReportDelays(EmbeddedKafkaBroker broker, String topic, long fromMicros) {
        this.countFromMicros = fromMicros;
        Map<String, Object> settings = new HashMap<>(KafkaClientProperties.over(Map.of("bootstrap.servers", broker.bootstrapServers()), broker.clientProperties()));
        settings.put("fetch.min.bytes", "1");
        settings.put("fetch.max.wait.ms", "5");
        settings.put("enable.auto.commit", "false");
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(settings, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        List<TopicPartition> partitions = new ArrayList<>();
        consumer.partitionsFor(topic).forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
        consumer.assign(partitions);
        consumer.seekToEnd(partitions);
        partitions.forEach(consumer::position); // resolves the end now, before the run's first report
        thread = new Thread(() -> {
            AvroCodec<DeviceReport> codec = AvroCodec.of(DeviceReport.class);
            try (consumer) {
                while (reading.get()) {
                    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(20))) {
                        long now = WallClock.nowMicros();
                        List<DeviceReport> reports;
                        try {
                            reports = CoalescedRecords.decodeReports(codec, r.value());
                        } catch (AvroCodec.MalformedRecordException e) {
                            continue;
                        }
                        for (DeviceReport report : reports) {
                            if (report.getExecEndMicros() < countFromMicros) continue;
                            synchronized (delays) {
                                delays.recordValue(Math.max(0, now - report.getExecEndMicros()));
                            }
                        }
                    }
                }
            }
        }, "bench-report-delays");
        thread.setDaemon(true);
        thread.start();
    }

    /** Stops reading (what the topic holds by now is read first) and returns the delays counted. */
    Stats stop() throws InterruptedException {
        Thread.sleep(200);
        reading.set(false);
        thread.join();
        synchronized (delays) {
            return new Stats(delays.getTotalCount(), delays.getValueAtPercentile(50), delays.getValueAtPercentile(99));
        }
    }
}
