package io.kairos.control;

import io.kairos.core.plan.ServingPlan;
import io.kairos.core.time.WallClock;
import io.kairos.schema.ControlDecision;
import io.kairos.wire.AvroCodec;
import io.kairos.wire.plan.DecisionLedger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Reads the control topic as the serving job does on a fresh start: every decision from the
 * beginning up to the end as it is now, each with the key it was written under. What is not a
 * decision (a tombstone, a malformed record) is counted and skipped, as the job skips it.
 */
public final class ControlTopic {
    private ControlTopic() {}

    /** The decisions read, and how many records were not decisions. */
    public record Contents(List<ControlDecision> decisions, int skipped) {
        /**
         * The job's plan as these decisions make it: each decided again, in order, on
         * {@code empty}, the plan of a job with the job's devices that has decided nothing.
         */
        public DecisionLedger ledger(ServingPlan empty) {
            DecisionLedger ledger = new DecisionLedger(empty);
            long now = WallClock.nowMicros();
            for (ControlDecision d : decisions) ledger.decide(d, now);
            return ledger;
        }
    }

    public static Contents read(String bootstrapServers, String topic, Duration timeout) {
        return read(bootstrapServers, Map.of(), topic, timeout);
    }

    /** {@link #read(String, String, Duration)} with Kafka client properties (SASL, TLS, ...) over the reader's own settings. */
    public static Contents read(String bootstrapServers, Map<String, String> clientProperties, String topic, Duration timeout) {
        AvroCodec<ControlDecision> codec = AvroCodec.of(ControlDecision.class);
        List<ControlDecision> decisions = new ArrayList<>();
        int skipped = 0;
        try (KafkaConsumer<byte[], byte[]> consumer = TopicConsumers.reader(bootstrapServers, clientProperties, timeout)) {
            List<TopicPartition> partitions = TopicConsumers.partitions(consumer, topic);
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            long until = System.nanoTime() + timeout.toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                if (System.nanoTime() > until) throw new IllegalStateException("could not read " + topic + " to its end within " + timeout.toMillis() + " ms");
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    if (r.value() == null) {
                        skipped++;
                        continue;
                    }
                    try {
                        ControlDecision d = codec.decode(r.value());
                        if (r.key() != null) d.setKey(new String(r.key(), StandardCharsets.UTF_8));
                        decisions.add(d);
                    } catch (AvroCodec.MalformedRecordException e) {
                        skipped++;
                    }
                }
            }
        }
        return new Contents(decisions, skipped);
    }
}
