package io.kairos.control;

import io.kairos.core.time.WallClock;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.DecisionOutcome;
import io.kairos.wire.AvroCodec;
import io.kairos.wire.KafkaClientProperties;
import io.kairos.wire.plan.DecisionKey;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.function.LongSupplier;

/**
 * The one way to write control decisions: every producer (planner, tuner, solver, {@code kairos
 * control}) publishes through it, so that every decision follows the control topic's contract.
 *
 * <ul>
 *   <li>the record key is the decision's key ({@link DecisionKey}), so that compaction keeps the
 *       latest decision of every target;
 *   <li>the writer id is this publisher's, and versions rise across restarts ({@link VersionClock});
 *   <li>a decision is published when every in-sync replica has it ({@code acks=all}), once
 *       ({@code enable.idempotence}: a retried send is not written twice);
 *   <li>the job's verdict on it can be awaited on the outcomes topic ({@link #awaitOutcome}),
 *       found by writer and version.
 * </ul>
 *
 * Not thread-safe but for {@link #publish}.
 */
public final class DecisionPublisher implements AutoCloseable {
    /** A decision on the control topic: how to find its outcome. */
    public record Published(String writer, long version, String key) {}

    private final String controlTopic;
    private final String writer;
    private final VersionClock versions;
    private final KafkaProducer<byte[], byte[]> producer;
    private final KafkaConsumer<byte[], byte[]> outcomes;
    private final AvroCodec<ControlDecision> decisionCodec = AvroCodec.of(ControlDecision.class);
    private final AvroCodec<DecisionOutcome> outcomeCodec = AvroCodec.of(DecisionOutcome.class);
    private final Map<Long, DecisionOutcome> seen = new HashMap<>();

    public DecisionPublisher(String bootstrapServers, String controlTopic, String outcomesTopic, String writer) {
        this(bootstrapServers, controlTopic, outcomesTopic, writer, WallClock::nowMicros);
    }

    /**
     * @param nowMicros the clock that versions come from
     * @throws IllegalArgumentException for an empty writer, or a topic that does not exist
     */
    public DecisionPublisher(String bootstrapServers, String controlTopic, String outcomesTopic, String writer, LongSupplier nowMicros) {
        this(bootstrapServers, Map.of(), controlTopic, outcomesTopic, writer, nowMicros);
    }

    /**
     * @param clientProperties Kafka client properties (SASL, TLS, ...) over the publisher's own
     *                         settings ({@link KafkaClientProperties})
     * @param nowMicros        the clock that versions come from
     * @throws IllegalArgumentException for an empty writer, or a topic that does not exist
     */
    public DecisionPublisher(String bootstrapServers, Map<String, String> clientProperties, String controlTopic, String outcomesTopic,
                             String writer, LongSupplier nowMicros) {
        if (writer == null || writer.isBlank()) throw new IllegalArgumentException("the writer id is empty");
        this.controlTopic = controlTopic;
        this.writer = writer;
        this.versions = new VersionClock(nowMicros);
        Map<String, Object> common = Map.of("bootstrap.servers", bootstrapServers,
                "default.api.timeout.ms", 15_000, "request.timeout.ms", 10_000);
        Map<String, Object> producerConfig = new HashMap<>(common);
        producerConfig.put(ProducerConfig.ACKS_CONFIG, "all");
        producerConfig.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        producerConfig.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        producerConfig.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 15_000);
        producerConfig.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000);
        Map<String, Object> consumerConfig = new HashMap<>(common);
        consumerConfig.put("enable.auto.commit", false);
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(KafkaClientProperties.over(consumerConfig, clientProperties),
                new ByteArrayDeserializer(), new ByteArrayDeserializer());
        try {
            TopicConsumers.partitions(consumer, controlTopic);
            // From the end as it is now, before anything is published: no outcome of ours can be
            // written before this position.
            List<TopicPartition> all = TopicConsumers.partitions(consumer, outcomesTopic);
            consumer.assign(all);
            consumer.seekToEnd(all);
            for (TopicPartition p : all) consumer.position(p);
        } catch (RuntimeException e) {
            consumer.close();
            throw e;
        }
        this.outcomes = consumer;
        this.producer = new KafkaProducer<>(KafkaClientProperties.over(producerConfig, clientProperties), new ByteArraySerializer(), new ByteArraySerializer());
    }

    public String writer() {
        return writer;
    }

    /**
     * Publishes a decision with {@code action} ({@code SetPolicy}, {@code SetPlacement},
     * {@code AssignGroup} or {@code SetBatchingTable}) and the next version; returns once the broker has it.
     *
     * @throws IllegalArgumentException for an action with no valid key (see {@link DecisionKey})
     */
    public Published publish(Object action) {
        ControlDecision decision = decision(writer, versions.next(), WallClock.nowMicros(), action);
        String key = decision.getKey();
        long version = decision.getVersion();
        try {
            producer.send(record(controlTopic, decision, decisionCodec)).get();
        } catch (ExecutionException e) {
            throw new IllegalStateException("could not publish " + writer + "/" + version + " to " + controlTopic + ": " + e.getCause().getMessage(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while publishing", e);
        }
        return new Published(writer, version, key);
    }

    /**
     * The decision a writer publishes for {@code action}: keyed by its action ({@link DecisionKey}),
     * with the writer's id and version. What {@link #publish} sends, and what a writer that is not
     * a process of its own (the tuner job's sink, the simulator's replay of a tuner) stamps its
     * actions with, so that every decision follows the one contract.
     *
     * @param version a version from the writer's {@link VersionClock} (or, in a simulation, any rising count)
     * @throws IllegalArgumentException for an action with no valid key, or an empty writer
     */
    public static ControlDecision decision(String writer, long version, long issuedAtMicros, Object action) {
        if (writer == null || writer.isBlank()) throw new IllegalArgumentException("the writer id is empty");
        return ControlDecision.newBuilder()
                .setVersion(version)
                .setIssuedAtMicros(issuedAtMicros)
                .setIssuedBy(writer)
                .setKey(DecisionKey.of(action))
                .setAction(action)
                .build();
    }

    /** The control topic's record of {@code decision}: its key as the record key (what compaction keeps), the decision in Avro. */
    public static ProducerRecord<byte[], byte[]> record(String controlTopic, ControlDecision decision, AvroCodec<ControlDecision> codec) {
        return new ProducerRecord<>(controlTopic, decision.getKey().getBytes(StandardCharsets.UTF_8), codec.encode(decision));
    }

    /** The job's outcome of {@code decision}, if it comes within {@code timeout}. */
    public Optional<DecisionOutcome> awaitOutcome(Published decision, Duration timeout) {
        if (!decision.writer().equals(writer)) throw new IllegalArgumentException("not this publisher's decision: " + decision);
        long until = System.nanoTime() + timeout.toNanos();
        while (true) {
            DecisionOutcome found = seen.remove(decision.version());
            if (found != null) return Optional.of(found);
            long left = until - System.nanoTime();
            if (left <= 0) return Optional.empty();
            for (ConsumerRecord<byte[], byte[]> r : outcomes.poll(Duration.ofNanos(Math.min(left, 100_000_000L)))) {
                DecisionOutcome o;
                try {
                    o = outcomeCodec.decode(r.value());
                } catch (AvroCodec.MalformedRecordException e) {
                    continue; // not an outcome: not ours to judge
                }
                // The first outcome of a version is its verdict: a later one is the job reading back
                // the decision it wrote to restore a key (a DUPLICATE), or a replay.
                if (o.getWriter().equals(writer)) seen.putIfAbsent(o.getVersion(), o);
            }
        }
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
        outcomes.close(Duration.ofSeconds(5));
    }
}
