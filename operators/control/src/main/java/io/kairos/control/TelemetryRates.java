package io.kairos.control;

import io.kairos.schema.BatchTelemetry;
import io.kairos.wire.AvroCodec;
import io.kairos.wire.CoalescedRecords;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The job's own estimate of a model's arrival rate into a serving group, read back from its
 * telemetry topic: every batch's record carries the group's estimate when the batch was
 * dispatched ({@code arrival_rate_per_s}), so the latest batch of the model says the rate now.
 * What a planner solves a batching table for when it is not told a rate.
 */
public final class TelemetryRates {
    private TelemetryRates() {}

    /** A rate estimate and the batch it came with. */
    public record Estimate(double perSecond, long dispatchedAtMicros, String batchId) {}

    /**
     * The estimate on the latest batch (by dispatch time) of {@code model} in {@code group} among
     * the last {@code tail} records of each partition of {@code topic}; empty if none there has one.
     *
     * @throws IllegalArgumentException for a topic that does not exist
     * @throws IllegalStateException    if the records cannot be read within {@code timeout}
     */
    public static Optional<Estimate> latest(String bootstrapServers, Map<String, String> clientProperties, String topic,
                                            String group, String model, int tail, Duration timeout) {
        if (tail < 1) throw new IllegalArgumentException("tail must be at least 1, got " + tail);
        AvroCodec<BatchTelemetry> codec = AvroCodec.of(BatchTelemetry.class);
        Estimate best = null;
        try (KafkaConsumer<byte[], byte[]> consumer = TopicConsumers.reader(bootstrapServers, clientProperties, timeout)) {
            List<TopicPartition> partitions = TopicConsumers.partitions(consumer, topic);
            consumer.assign(partitions);
            Map<TopicPartition, Long> begin = consumer.beginningOffsets(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            for (TopicPartition p : partitions) consumer.seek(p, Math.max(begin.get(p), end.get(p) - tail));
            long until = System.nanoTime() + timeout.toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                if (System.nanoTime() > until) throw new IllegalStateException("could not read " + topic + " to its end within " + timeout.toMillis() + " ms");
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    if (r.value() == null || r.offset() >= end.get(new TopicPartition(r.topic(), r.partition()))) continue;
                    List<BatchTelemetry> batches;
                    try {
                        batches = CoalescedRecords.decodeBatches(codec, r.value());
                    } catch (AvroCodec.MalformedRecordException e) {
                        continue; // not telemetry: not ours to judge
                    }
                    for (BatchTelemetry t : batches) {
                        if (!t.getGroup().equals(group) || !t.getModel().equals(model) || t.getArrivalRatePerS() == null) continue;
                        if (best == null || t.getDispatchedAtMicros() > best.dispatchedAtMicros()) {
                            best = new Estimate(t.getArrivalRatePerS(), t.getDispatchedAtMicros(), t.getBatchId());
                        }
                    }
                }
            }
        }
        return Optional.ofNullable(best);
    }
}
