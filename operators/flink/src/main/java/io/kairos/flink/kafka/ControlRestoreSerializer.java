package io.kairos.flink.kafka;

import io.kairos.schema.ControlDecision;
import io.kairos.schema.internal.ControlRestore;
import io.kairos.wire.AvroCodec;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;

import java.nio.charset.StandardCharsets;

/**
 * Writes the job's restores to the control topic as a producer writes a decision (the key in UTF-8,
 * the decision in Avro binary, as {@code DecisionPublisher} does), or a tombstone (no value) for a
 * key that holds no decision.
 */
public final class ControlRestoreSerializer implements KafkaRecordSerializationSchema<ControlRestore> {
    private final String topic;
    private transient AvroCodec<ControlDecision> codec;

    public ControlRestoreSerializer(String topic) {
        this.topic = topic;
    }

    @Override
    public void open(SerializationSchema.InitializationContext context, KafkaSinkContext sinkContext) {
        codec = AvroCodec.of(ControlDecision.class);
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(ControlRestore restore, KafkaSinkContext context, Long timestamp) {
        if (codec == null) codec = AvroCodec.of(ControlDecision.class);
        byte[] value = restore.getDecision() == null ? null : codec.encode(restore.getDecision());
        return new ProducerRecord<>(topic, restore.getKey().getBytes(StandardCharsets.UTF_8), value);
    }
}
