package io.kairos.testbed.job;

import io.kairos.schema.BatchTelemetry;
import io.kairos.wire.AvroCodec;
import io.kairos.wire.CoalescedRecords;
import io.kairos.wire.KafkaClientProperties;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Predicate;

/** Plain Kafka clients for tests: write raw bytes to a topic, read a topic's records back. */
final class TopicClient implements AutoCloseable {
    private final String bootstrap;
    private final Map<String, String> clientProperties;
    private final KafkaProducer<byte[], byte[]> producer;

    TopicClient(String bootstrap) {
        this(bootstrap, Map.of());
    }

    /** Clients with these Kafka client properties (e.g. SASL_SSL credentials) over their own settings. */
    TopicClient(String bootstrap, Map<String, String> clientProperties) {
        this.bootstrap = bootstrap;
        this.clientProperties = clientProperties;
        this.producer = new KafkaProducer<>(KafkaClientProperties.over(Map.of("bootstrap.servers", bootstrap, "linger.ms", 0), clientProperties),
                new ByteArraySerializer(), new ByteArraySerializer());
    }

    void send(String topic, byte[] value) {
        producer.send(new ProducerRecord<>(topic, value));
    }

    <T extends SpecificRecord> void send(String topic, Class<T> type, T record) {
        send(topic, AvroCodec.of(type).encode(record));
    }

    void flush() {
        producer.flush();
    }

    /**
     * Reads records of {@code type} from the start of {@code topic} until {@code done} holds or the
     * time is up; a telemetry record that carries several batches is read as one record per batch.
     */
    <T extends SpecificRecord> List<T> readUntil(String topic, Class<T> type, Predicate<List<T>> done, Duration timeout) {
        return readUntil(topic, type, done, timeout, false);
    }

    /**
     * The same, with {@code committedOnly} as a consumer of exactly-once results reads
     * ({@code read_committed}); else every record written, of aborted transactions too.
     */
    <T extends SpecificRecord> List<T> readUntil(String topic, Class<T> type, Predicate<List<T>> done, Duration timeout, boolean committedOnly) {
        AvroCodec<T> codec = AvroCodec.of(type);
        List<T> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(KafkaClientProperties.over(Map.of(
                "bootstrap.servers", bootstrap, "group.id", "test-" + UUID.randomUUID(), "auto.offset.reset", "earliest",
                "isolation.level", committedOnly ? "read_committed" : "read_uncommitted"), clientProperties),
                new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic));
            long until = System.nanoTime() + timeout.toNanos();
            while (!done.test(records) && System.nanoTime() < until) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                    if (r.value() == null) continue; // a tombstone has nothing to decode
                    // A telemetry record may carry several batches (coalescing): one element each, as a reader counts them.
                    if (type == BatchTelemetry.class) {
                        for (BatchTelemetry b : CoalescedRecords.decodeBatches(AvroCodec.of(BatchTelemetry.class), r.value())) records.add(type.cast(b));
                    } else {
                        records.add(codec.decode(r.value()));
                    }
                }
            }
        }
        return records;
    }

    @Override
    public void close() {
        producer.close();
    }
}
