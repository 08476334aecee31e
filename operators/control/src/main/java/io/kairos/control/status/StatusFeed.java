package io.kairos.control.status;

import io.kairos.control.TopicConsumers;
import io.kairos.schema.BatchTelemetry;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.DecisionOutcome;
import io.kairos.schema.InferenceResult;
import io.kairos.wire.AvroCodec;
import io.kairos.wire.CoalescedRecords;
import io.kairos.wire.KafkaClientProperties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Feeds a {@link ServingStatus} from the job's topics, on a thread of its own, until closed: the
 * control topic and the outcomes topic from their start (the plan is every decision decided in
 * order, as a job started now decides them; the verdicts are the job's), the results and the
 * telemetry from their end as it is when the feed starts (live figures, not history).
 */
public final class StatusFeed implements AutoCloseable {
    private final ServingStatus status;
    private final ServingStatus.Topics topics;
    private final LongSupplier nowMicros;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Thread thread;
    private volatile boolean running = true;

    private final AvroCodec<ControlDecision> decisions = AvroCodec.of(ControlDecision.class);
    private final AvroCodec<DecisionOutcome> outcomes = AvroCodec.of(DecisionOutcome.class);
    private final AvroCodec<InferenceResult> results = AvroCodec.of(InferenceResult.class);
    private final AvroCodec<BatchTelemetry> telemetry = AvroCodec.of(BatchTelemetry.class);

    /**
     * Connects and starts reading.
     *
     * @param clientProperties Kafka client properties (SASL, TLS, ...) over the feed's own settings
     * @param nowMicros        the clock that results and telemetry are counted by
     * @throws IllegalArgumentException if one of the topics does not exist
     */
    public StatusFeed(String bootstrapServers, Map<String, String> clientProperties, ServingStatus.Topics topics, ServingStatus status,
                      LongSupplier nowMicros) {
        this.status = status;
        this.topics = topics;
        this.nowMicros = nowMicros;
        // A page only reads: it never creates a topic it was given a wrong name of.
        Map<String, Object> own = Map.of("bootstrap.servers", bootstrapServers, "enable.auto.commit", false, "allow.auto.create.topics", false,
                "client.id", "kairos-status", "fetch.max.wait.ms", 100, "default.api.timeout.ms", 15_000);
        this.consumer = new KafkaConsumer<>(KafkaClientProperties.over(own, clientProperties), new ByteArrayDeserializer(), new ByteArrayDeserializer());
        try {
            List<TopicPartition> fromStart = new ArrayList<>(TopicConsumers.partitions(consumer, topics.control()));
            fromStart.addAll(TopicConsumers.partitions(consumer, topics.outcomes()));
            List<TopicPartition> fromEnd = new ArrayList<>(TopicConsumers.partitions(consumer, topics.results()));
            fromEnd.addAll(TopicConsumers.partitions(consumer, topics.telemetry()));
            List<TopicPartition> all = new ArrayList<>(fromStart);
            all.addAll(fromEnd);
            consumer.assign(all);
            consumer.seekToBeginning(fromStart);
            consumer.seekToEnd(fromEnd);
            for (TopicPartition p : fromEnd) consumer.position(p); // the end as it is now, not at the first poll
        } catch (RuntimeException e) {
            consumer.close();
            throw e;
        }
        this.thread = new Thread(this::run, "kairos-status-feed");
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        try {
            while (running) {
                try {
                    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) take(r);
                    status.readerProblem(null);
                } catch (WakeupException e) {
                    return;
                } catch (KafkaException e) {
                    // Authorisation, a broker that went away for good...: say so on the page and try again.
                    status.readerProblem(e.getClass().getSimpleName() + ": " + e.getMessage());
                    Thread.sleep(1000);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            consumer.close(Duration.ofSeconds(2));
        }
    }

    private void take(ConsumerRecord<byte[], byte[]> r) {
        String topic = r.topic();
        long now = nowMicros.getAsLong();
        try {
            if (topic.equals(topics.control())) {
                if (r.value() == null) {
                    status.notADecision(now);
                    return;
                }
                ControlDecision d = decisions.decode(r.value());
                if (r.key() != null) d.setKey(new String(r.key(), StandardCharsets.UTF_8)); // as the job reads it
                status.decision(d, now);
            } else if (topic.equals(topics.outcomes())) {
                status.outcome(outcomes.decode(r.value()), now);
            } else if (topic.equals(topics.results())) {
                status.result(results.decode(r.value()), now);
            } else if (topic.equals(topics.telemetry())) {
                for (BatchTelemetry b : CoalescedRecords.decodeBatches(telemetry, r.value())) status.batch(b, now);
            }
        } catch (AvroCodec.MalformedRecordException e) {
            if (topic.equals(topics.control())) status.notADecision(now);
            else status.undecodable(topic, now);
        }
    }

    /** Stops reading; returns once the reader has stopped. */
    @Override
    public void close() {
        running = false;
        consumer.wakeup();
        try {
            thread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
