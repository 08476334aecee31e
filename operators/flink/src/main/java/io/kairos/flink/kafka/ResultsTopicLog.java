package io.kairos.flink.kafka;

import io.kairos.core.result.ResultLog;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeoutException;

/**
 * The results topic read back: the keys (request ids, see {@link AvroRecordSerializer}) of every
 * result from a time on, on every partition, up to the end offsets at the time of the read.
 *
 * <p>The tail can be large (5,000 results/s over a 10 s checkpoint interval is 50,000 records,
 * megabytes of tensors), and the job waits for it on a restore, so it is read fast: by assignment
 * (no group, no rebalance, no commit), big fetches, and only the keys decoded; the values are
 * skipped without a copy. Every call opens a consumer of its own and closes it: it runs once per
 * restore.
 */
public final class ResultsTopicLog implements ResultLog {
    private static final long serialVersionUID = 1L;

    private final String topic;
    private final Properties clientProperties;

    /**
     * @param clientProperties the Kafka client's settings: {@code bootstrap.servers} and whatever
     *                         else the brokers ask of a client (security); read settings are added here
     */
    public ResultsTopicLog(String topic, Properties clientProperties) {
        this.topic = topic;
        this.clientProperties = new Properties();
        this.clientProperties.putAll(clientProperties);
    }

    public ResultsTopicLog(String bootstrapServers, String topic) {
        this(topic, bootstrap(bootstrapServers));
    }

    private static Properties bootstrap(String servers) {
        Properties p = new Properties();
        p.setProperty(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, servers);
        return p;
    }

    public String topic() {
        return topic;
    }

    /** Equal logs are the same topic read with the same settings: a read of one answers for the other. */
    @Override
    public boolean equals(Object o) {
        return o instanceof ResultsTopicLog other && topic.equals(other.topic) && clientProperties.equals(other.clientProperties);
    }

    @Override
    public int hashCode() {
        return Objects.hash(topic, clientProperties);
    }

    @Override
    public Set<String> requestIdsSince(long fromMillis, long timeoutMs) throws TimeoutException {
        return read(timeoutMs, (consumer, partitions, deadline) -> {
            Map<TopicPartition, Long> since = new HashMap<>();
            for (TopicPartition p : partitions) since.put(p, fromMillis);
            Map<TopicPartition, OffsetAndTimestamp> from = consumer.offsetsForTimes(since, left(deadline));
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, left(deadline));
            // A partition with no record at or after fromMillis has nothing to read.
            Map<TopicPartition, Long> starts = new HashMap<>();
            for (Map.Entry<TopicPartition, OffsetAndTimestamp> e : from.entrySet()) {
                if (e.getValue() != null && e.getValue().offset() < end.get(e.getKey())) starts.put(e.getKey(), e.getValue().offset());
            }
            Set<String> ids = new HashSet<>();
            pollRanges(consumer, starts, end, deadline, r -> {
                if (r.key() != null) ids.add(r.key());
            }, () -> "read " + ids.size() + " request ids of " + topic + " in " + timeoutMs + " ms");
            return ids;
        });
    }

    /** The latest timestamp of the last record of each partition: one small fetch per partition. */
    @Override
    public long latestWriteMillis(long timeoutMs) throws TimeoutException {
        return read(timeoutMs, (consumer, partitions, deadline) -> {
            Map<TopicPartition, Long> begin = consumer.beginningOffsets(partitions, left(deadline));
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, left(deadline));
            Map<TopicPartition, Long> lasts = new HashMap<>();
            for (TopicPartition p : partitions) if (end.get(p) > begin.get(p)) lasts.put(p, end.get(p) - 1);
            long[] latest = {Long.MIN_VALUE};
            Set<TopicPartition> seen = new HashSet<>();
            pollRanges(consumer, lasts, end, deadline, r -> {
                latest[0] = Math.max(latest[0], r.timestamp());
                seen.add(new TopicPartition(r.topic(), r.partition()));
            }, () -> "read the last records of " + topic + " in " + timeoutMs + " ms");
            // A partition whose last offset is a transaction's marker shows no record: when it was written is unknown.
            return seen.size() < lasts.size() ? Long.MAX_VALUE : latest[0];
        });
    }

    /** What one read does with its consumer and the topic's partitions before the deadline ({@link System#nanoTime}). */
    @FunctionalInterface
    private interface Read<T> {
        T from(KafkaConsumer<String, Void> consumer, List<TopicPartition> partitions, long deadlineNanos) throws TimeoutException;
    }

    /** One read on a consumer of its own, closed after it; brokers that do not answer in time make a {@link TimeoutException} naming the topic. */
    private <T> T read(long timeoutMs, Read<T> read) throws TimeoutException {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000;
        try (KafkaConsumer<String, Void> consumer = new KafkaConsumer<>(readSettings(timeoutMs), new StringDeserializer(), new SkipValue())) {
            List<PartitionInfo> infos = consumer.partitionsFor(topic, left(deadline));
            if (infos == null || infos.isEmpty()) throw new IllegalStateException("topic '" + topic + "' has no partitions");
            return read.from(consumer, infos.stream().map(p -> new TopicPartition(topic, p.partition())).toList(), deadline);
        } catch (org.apache.kafka.common.errors.TimeoutException e) {
            TimeoutException t = new TimeoutException("the brokers did not answer about " + topic + " in " + timeoutMs + " ms: " + e.getMessage());
            t.initCause(e);
            throw t;
        }
    }

    /**
     * Reads each partition of {@code starts} from its start offset to its offset in {@code ends}
     * (the end it had when the read began), handing on every record before that end.
     *
     * @param timedOut what was read, for the exception when the deadline passes first
     */
    private static void pollRanges(KafkaConsumer<String, Void> consumer, Map<TopicPartition, Long> starts, Map<TopicPartition, Long> ends,
                                   long deadline, java.util.function.Consumer<ConsumerRecord<String, Void>> onRecord,
                                   java.util.function.Supplier<String> timedOut) throws TimeoutException {
        Map<TopicPartition, Long> toRead = new HashMap<>();
        for (TopicPartition p : starts.keySet()) toRead.put(p, ends.get(p));
        consumer.assign(toRead.keySet());
        for (Map.Entry<TopicPartition, Long> e : starts.entrySet()) consumer.seek(e.getKey(), e.getValue());
        while (!toRead.isEmpty()) {
            Duration slice = left(deadline);
            if (slice.isZero()) throw new TimeoutException(timedOut.get() + ", partitions " + toRead.keySet() + " not to their end");
            for (ConsumerRecord<String, Void> r : consumer.poll(slice.compareTo(POLL) < 0 ? slice : POLL)) {
                Long stop = toRead.get(new TopicPartition(r.topic(), r.partition()));
                if (stop != null && r.offset() < stop) onRecord.accept(r);
            }
            // Done with a partition once its position reaches the end it had when the read began.
            toRead.entrySet().removeIf(e -> consumer.position(e.getKey(), left(deadline)) >= e.getValue());
            consumer.assign(toRead.keySet());
        }
    }

    private static final Duration POLL = Duration.ofMillis(200);

    private Properties readSettings(long timeoutMs) {
        Properties p = new Properties();
        p.putAll(clientProperties);
        p.setProperty(ConsumerConfig.CLIENT_ID_CONFIG, "kairos-results-read-back-" + UUID.randomUUID().toString().substring(0, 8));
        p.setProperty(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        // Everything the results sink wrote: at-least-once writes no transactions.
        p.setProperty(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
        // Fetches of a few MB: large enough to read the tail at the broker's speed, small enough for
        // a TaskManager's direct memory. The JDK reads a socket into a heap buffer through a
        // temporary direct buffer as large as the fetch, and keeps it in the reading thread until
        // the thread ends: 64 MB fetches on four instances, read in the tasks' own threads, take a
        // 2 GB TaskManager's whole direct memory and kill its Kafka producers' network threads.
        p.setProperty(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Integer.toString(1 << 20));
        p.setProperty(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, Integer.toString(4 << 20));
        p.setProperty(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "50000");
        p.setProperty(ConsumerConfig.RECEIVE_BUFFER_CONFIG, Integer.toString(4 << 20));
        p.setProperty(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "10");
        p.setProperty(ConsumerConfig.CHECK_CRCS_CONFIG, "false");
        // No call may wait longer than the whole read may take.
        p.setProperty(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Long.toString(timeoutMs));
        p.setProperty(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, Long.toString(Math.max(1, Math.min(timeoutMs, 30_000))));
        return p;
    }

    private static Duration left(long deadlineNanos) {
        return Duration.ofNanos(Math.max(0, deadlineNanos - System.nanoTime()));
    }

    /** Reads nothing of a value: only the key is wanted, and the buffer is not copied. */
    private static final class SkipValue implements Deserializer<Void> {
        @Override
        public Void deserialize(String topic, byte[] data) {
            return null;
        }

        @Override
        public Void deserialize(String topic, Headers headers, ByteBuffer data) {
            return null;
        }
    }
}
