package io.kairos.flink.kafka;

import io.kairos.schema.ControlDecision;
import io.kairos.wire.AvroCodec;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Reads control decisions; a record that is not one is logged and skipped, never fatal. */
public final class ControlDecisionDeserializer implements KafkaRecordDeserializationSchema<ControlDecision> {
    private static final Logger LOG = LoggerFactory.getLogger(ControlDecisionDeserializer.class);
    private transient AvroCodec<ControlDecision> codec;

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<ControlDecision> out) {
        if (codec == null) codec = AvroCodec.of(ControlDecision.class);
        try {
            out.collect(codec.decode(record.value()));
        } catch (AvroCodec.MalformedRecordException e) {
            LOG.warn("skipped control record {}-{}@{}: {}", record.topic(), record.partition(), record.offset(), e.getMessage());
        }
    }

    @Override
    public TypeInformation<ControlDecision> getProducedType() {
        return new AvroTypeInfo<>(ControlDecision.class);
    }
}
