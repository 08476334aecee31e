package io.kairos.control;

import io.kairos.wire.KafkaClientProperties;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What the control plane's readers of a topic share: a consumer of raw records that commits
 * nothing (each reader seeks where it wants), and every partition of a topic, or a clear error
 * naming a topic that does not exist.
 */
public final class TopicConsumers {
    private TopicConsumers() {
    }

    /** A byte consumer with the user's client settings, committing nothing, whose calls give up after {@code timeout}. */
    public static KafkaConsumer<byte[], byte[]> reader(String bootstrapServers, Map<String, String> clientProperties, Duration timeout) {
        Map<String, Object> own = Map.of("bootstrap.servers", bootstrapServers,
                "enable.auto.commit", false, "default.api.timeout.ms", (int) timeout.toMillis());
        return new KafkaConsumer<>(KafkaClientProperties.over(own, clientProperties), new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /** Every partition of {@code topic}; a topic the broker does not know is an error that names it. */
    public static List<TopicPartition> partitions(Consumer<?, ?> consumer, String topic) {
        List<PartitionInfo> info = consumer.partitionsFor(topic);
        if (info == null || info.isEmpty()) throw new IllegalArgumentException("topic '" + topic + "' does not exist");
        return info.stream().map(p -> new TopicPartition(topic, p.partition())).toList();
    }
}
