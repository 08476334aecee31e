package io.kairos.tools.client;

import io.kairos.core.metrics.ResultSummary;
import io.kairos.core.time.WallClock;
import io.kairos.jobs.ServingJob;
import io.kairos.schema.InferenceResult;
import io.kairos.wire.AvroCodec;
import io.kairos.wire.metrics.ResultRecords;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Reads the results topic: decodes each {@link InferenceResult}, drops the duplicates that
 * at-least-once delivery allows (by request id, the idempotency key), and feeds the rest into a
 * {@link ResultSummary} and an optional listener.
 *
 * <p>It reads every partition of the topic by assignment, not as a member of a consumer group:
 * there is no rebalance to wait for before the first record, no offsets to commit, and any number
 * of collectors can each see every result. Where it starts ({@link StartAt}) is fixed when it is
 * constructed, so that results of requests sent afterwards cannot be missed.
 *
 * <p>Not thread-safe, like the Kafka consumer inside: use it from one thread; only {@link #wakeup}
 * may be called from another.
 */
public final class ResultConsumer implements AutoCloseable {

    /** Where reading starts: the first retained result, or the end of the topic at construction. */
    public enum StartAt { EARLIEST, LATEST }

    /** Why {@link #awaitResults} returned. */
    public enum Outcome {
        /** The expected number of distinct results arrived. */
        EXPECTED,
        /** No new result for the idle timeout. */
        IDLE,
        /** The overall time limit passed. */
        TIME_LIMIT,
        /** {@link #wakeup} was called. */
        WOKEN_UP
    }

    /** Told of every distinct result, on the polling thread, with the client's receive time. */
    @FunctionalInterface
    public interface Listener {
        void onResult(InferenceResult result, long receivedAtMicros);
    }

    private static final Duration POLL_SLICE = Duration.ofMillis(50);

    private final Consumer<byte[], byte[]> consumer;
    private final AvroCodec<InferenceResult> codec = AvroCodec.of(InferenceResult.class);
    private final Set<String> seen = new HashSet<>();
    private final ResultSummary summary = new ResultSummary();
    private Listener listener = (r, t) -> {};
    private long duplicates;
    private long malformed;

    /** A consumer with {@link #lowLatencyConfig} for the given brokers. */
    public ResultConsumer(String bootstrapServers, String topic, StartAt startAt) {
        this(lowLatencyConfig(bootstrapServers), topic, startAt);
    }

    public ResultConsumer(Map<String, Object> kafkaConfig, String topic, StartAt startAt) {
        this(new KafkaConsumer<>(kafkaConfig, new ByteArrayDeserializer(), new ByteArrayDeserializer()), topic, startAt);
    }

    /**
     * Reads {@code topic} through {@code consumer}, which this object then owns and closes.
     *
     * @throws IllegalStateException when the topic has no partitions (it does not exist)
     */
    public ResultConsumer(Consumer<byte[], byte[]> consumer, String topic, StartAt startAt) {
        this.consumer = consumer;
        try {
            List<PartitionInfo> infos = consumer.partitionsFor(topic);
            if (infos == null || infos.isEmpty()) {
                throw new IllegalStateException("topic '" + topic + "' has no partitions on the brokers (does it exist?)");
            }
            List<TopicPartition> partitions = new ArrayList<>();
            for (PartitionInfo p : infos) partitions.add(new TopicPartition(topic, p.partition()));
            consumer.assign(partitions);
            if (startAt == StartAt.EARLIEST) consumer.seekToBeginning(partitions);
            else consumer.seekToEnd(partitions);
            // Seeks are lazy; asking for the positions pins them now, before any request is sent.
            for (TopicPartition p : partitions) consumer.position(p);
        } catch (RuntimeException e) {
            consumer.close(Duration.ZERO);
            throw e;
        }
    }

    /**
     * Consumer settings for the result path. {@code fetch.min.bytes=1}: the broker answers a fetch
     * as soon as one result is there. {@code fetch.max.wait.ms=10} bounds how long an empty fetch
     * waits at the broker; a fetch parked there is completed the moment data arrives, so this does
     * not add latency, it only keeps polling responsive to {@link #wakeup} and timeouts.
     * No consumer group and no commits: see the class comment. {@code read_committed}: only results
     * whose transaction committed, what a consumer of a job with exactly-once delivery must read
     * (the results of a crashed run's open transactions are aborted, and written again); results
     * written without transactions (at-least-once) are read as soon as they are written.
     */
    public static Map<String, Object> lowLatencyConfig(String bootstrapServers) {
        Map<String, Object> c = new HashMap<>();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        c.put(ConsumerConfig.CLIENT_ID_CONFIG, "kairos-results-" + UUID.randomUUID().toString().substring(0, 8));
        c.put(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, 1);
        c.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 10);
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        c.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2_000);
        // As the serving job's own consumers: more than one big record per partition and fetch.
        c.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, ServingJob.MAX_FETCH_BYTES);
        c.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000);
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        return c;
    }

    /** Sets the listener told of each distinct result from now on. */
    public ResultConsumer onResult(Listener listener) {
        this.listener = listener;
        return this;
    }

    /**
     * Polls once, waiting up to {@code timeout}; returns the number of new distinct results.
     *
     * @throws org.apache.kafka.common.errors.WakeupException after {@link #wakeup}
     */
    public int poll(Duration timeout) {
        ConsumerRecords<byte[], byte[]> records = consumer.poll(timeout);
        if (records.isEmpty()) return 0;
        long receivedAt = WallClock.nowMicros();
        int fresh = 0;
        for (ConsumerRecord<byte[], byte[]> record : records) {
            InferenceResult r;
            try {
                r = codec.decode(record.value());
            } catch (AvroCodec.MalformedRecordException e) {
                malformed++; // not a result of this schema: skip it, a collector never fails on bad input
                continue;
            }
            if (!seen.add(r.getRequestId())) {
                duplicates++;
                continue;
            }
            ResultRecords.addTo(summary, r);
            listener.onResult(r, receivedAt);
            fresh++;
        }
        return fresh;
    }

    /**
     * Polls until {@code expected} distinct results have been seen in all (0: no target), no new
     * result came for {@code idleTimeout}, or {@code timeLimit} passed, whichever is first.
     */
    public Outcome awaitResults(long expected, Duration idleTimeout, Duration timeLimit) {
        long start = System.nanoTime();
        long lastNew = start;
        try {
            while (true) {
                if (expected > 0 && seen.size() >= expected) return Outcome.EXPECTED;
                long now = System.nanoTime();
                if (now - lastNew >= idleTimeout.toNanos()) return Outcome.IDLE;
                if (now - start >= timeLimit.toNanos()) return Outcome.TIME_LIMIT;
                long left = Math.min(idleTimeout.toNanos() - (now - lastNew), timeLimit.toNanos() - (now - start));
                if (poll(Duration.ofNanos(Math.min(left, POLL_SLICE.toNanos()))) > 0) lastNew = System.nanoTime();
            }
        } catch (WakeupException e) {
            return Outcome.WOKEN_UP;
        }
    }

    /**
     * Makes a running {@link #awaitResults} return {@link Outcome#WOKEN_UP}, and a {@link #poll}
     * throw WakeupException. Safe from any thread.
     */
    public void wakeup() {
        consumer.wakeup();
    }

    /** Distinct results seen. */
    public long distinct() {
        return seen.size();
    }

    /** Results seen again after their first copy, and dropped. */
    public long duplicates() {
        return duplicates;
    }

    /** Records that were not an InferenceResult, and skipped. */
    public long malformed() {
        return malformed;
    }

    public boolean seen(String requestId) {
        return seen.contains(requestId);
    }

    /** The figures of the distinct results so far; live, not a copy. */
    public ResultSummary summary() {
        return summary;
    }

    /**
     * Sends one request with a long SLO and waits for its result: a job takes seconds to start
     * and warm up, and requests sent before it reads them would only age in the topic.
     *
     * @throws IllegalStateException if no result comes within {@code timeout}
     */
    public void awaitServing(RequestProducer producer, String model, Duration timeout) {
        producer.send("warm-up", model, timeout.toMillis() * 2.0);
        producer.flush();
        if (awaitResults(distinct() + 1, timeout, timeout) != Outcome.EXPECTED) {
            throw new IllegalStateException("the serving job did not answer within " + timeout.toSeconds() + " s");
        }
    }

    @Override
    public void close() {
        consumer.close();
    }
}
