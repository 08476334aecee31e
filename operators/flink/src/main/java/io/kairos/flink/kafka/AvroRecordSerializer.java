package io.kairos.flink.kafka;

import io.kairos.wire.AvroCodec;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.util.function.SerializableFunction;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.avro.specific.SpecificRecord;

import java.nio.charset.StandardCharsets;

/**
 * Writes records of one Avro type to a topic, Avro binary in the value and an id as the key (the
 * request id for results, so that a consumer can drop the duplicates that at-least-once allows).
 */
public final class AvroRecordSerializer<T extends SpecificRecord> implements KafkaRecordSerializationSchema<T> {
    private final String topic;
    private final Class<T> type;
    private final SerializableFunction<T, String> key;
    private transient AvroCodec<T> codec;

    public AvroRecordSerializer(String topic, Class<T> type, SerializableFunction<T, String> key) {
        this.topic = topic;
        this.type = type;
        this.key = key;
    }

    @Override
    public void open(SerializationSchema.InitializationContext context, KafkaSinkContext sinkContext) {
        codec = AvroCodec.of(type);
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(T element, KafkaSinkContext context, Long timestamp) {
        if (codec == null) codec = AvroCodec.of(type);
        return new ProducerRecord<>(topic, key.apply(element).getBytes(StandardCharsets.UTF_8), codec.encode(element));
    }
}
