package io.kairos.sql;

import io.kairos.schema.InferenceRequest;
import io.kairos.schema.InferenceResult;
import io.kairos.wire.AvroCodec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The requests producer and the one results consumer of a TaskManager, shared by every instance of
 * the predict function that talks to the same topics: a request's future waits under its id until
 * the consumer reads the result of that id. The consumer reads every partition of the results
 * topic from where it ended when the client was made (committed results only: an exactly-once job's
 * aborted writes never answer a row), so a result can never come before its reader.
 */
final class ServingClient {
    /** Where a client connects: brokers, topics and the extra Kafka properties. */
    record Key(String bootstrapServers, String requestsTopic, String resultsTopic, Map<String, String> properties) implements java.io.Serializable {}

    private static final Map<Key, ServingClient> SHARED = new HashMap<>();

    private final Key key;
    private final KafkaProducer<byte[], byte[]> producer;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Map<String, CompletableFuture<InferenceResult>> pending = new ConcurrentHashMap<>();
    private final AvroCodec<InferenceRequest> requests = AvroCodec.of(InferenceRequest.class);
    private final Thread reader;
    private volatile boolean closed;
    /** Why the reader stopped, if it failed: every later request fails with it. */
    private volatile Throwable broken;
    private int users;

    /** The shared client of {@code key}, made on first use; {@link #release} once per call. */
    static ServingClient acquire(Key key) {
        synchronized (SHARED) {
            ServingClient c = SHARED.get(key);
            if (c == null || c.closed) {
                c = new ServingClient(key);
                SHARED.put(key, c);
            }
            c.users++;
            return c;
        }
    }

    /** Gives back one {@link #acquire}; the last closes the client, failing what still waits. */
    void release() {
        synchronized (SHARED) {
            if (--users > 0) return;
            SHARED.remove(key, this);
        }
        close();
    }

    /** How many clients are open in this JVM (for tests). */
    static int openClients() {
        synchronized (SHARED) {
            return SHARED.size();
        }
    }

    private ServingClient(Key key) {
        this.key = key;
        Map<String, Object> p = new HashMap<>(key.properties());
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, key.bootstrapServers());
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "kairos-sql-requests");
        // A row's request leaves at once: the serving job does the batching, under the deadline.
        p.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, 0);
        p.putIfAbsent(ProducerConfig.ACKS_CONFIG, "all");
        p.putIfAbsent(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.putIfAbsent(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
        this.producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());

        Map<String, Object> c = new HashMap<>(key.properties());
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, key.bootstrapServers());
        c.put(ConsumerConfig.CLIENT_ID_CONFIG, "kairos-sql-results");
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        c.putIfAbsent(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        c.putIfAbsent(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 100);
        this.consumer = new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        try {
            List<PartitionInfo> partitions = consumer.partitionsFor(key.resultsTopic(), Duration.ofSeconds(30));
            if (partitions == null || partitions.isEmpty()) throw new IllegalStateException("results topic '" + key.resultsTopic() + "' is not known to the brokers " + key.bootstrapServers());
            List<TopicPartition> assigned = partitions.stream().map(i -> new TopicPartition(i.topic(), i.partition())).toList();
            consumer.assign(assigned);
            consumer.seekToEnd(assigned);
            // Resolves the end offsets now, before any request is sent: no result can slip before the reader.
            for (TopicPartition tp : assigned) consumer.position(tp, Duration.ofSeconds(30));
            producer.partitionsFor(key.requestsTopic());
        } catch (RuntimeException e) {
            consumer.close(Duration.ZERO);
            producer.close(Duration.ZERO);
            throw e;
        }
        this.reader = new Thread(this::read, "kairos-sql-results");
        reader.setDaemon(true);
        reader.start();
    }

    /** Sends {@code request}; the future completes with its result, or fails with the client. */
    CompletableFuture<InferenceResult> send(InferenceRequest request) {
        CompletableFuture<InferenceResult> result = new CompletableFuture<>();
        Throwable failed = broken;
        if (failed != null || closed) {
            result.completeExceptionally(new IllegalStateException("the results reader stopped", failed));
            return result;
        }
        String id = request.getRequestId();
        pending.put(id, result);
        byte[] value;
        synchronized (requests) {
            value = requests.encode(request);
        }
        producer.send(new ProducerRecord<>(key.requestsTopic(), id.getBytes(StandardCharsets.UTF_8), value), (meta, e) -> {
            if (e != null && pending.remove(id) != null) result.completeExceptionally(e);
        });
        return result;
    }

    /** Requests sent and not answered yet. */
    int pending() {
        return pending.size();
    }

    private void read() {
        AvroCodec<InferenceResult> results = AvroCodec.of(InferenceResult.class);
        try {
            while (!closed) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    InferenceResult result;
                    try {
                        result = results.decode(r.value());
                    } catch (AvroCodec.MalformedRecordException e) {
                        continue; // not a result this client sent
                    }
                    CompletableFuture<InferenceResult> waiting = pending.remove(result.getRequestId());
                    if (waiting != null) waiting.complete(result);
                }
            }
        } catch (WakeupException e) {
            // close()
        } catch (Throwable t) {
            broken = t;
        } finally {
            consumer.close(Duration.ZERO);
            IllegalStateException stop = new IllegalStateException("the results reader stopped", broken);
            pending.values().forEach(f -> f.completeExceptionally(stop));
            pending.clear();
        }
    }

    private void close() {
        closed = true;
        consumer.wakeup();
        producer.close(Duration.ofSeconds(5));
        try {
            reader.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
