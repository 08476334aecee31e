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

import java.nio.charset.StandardCharsets;

/**
 * Reads control decisions, each with the key it was written under (which must be its action's,
 * see {@code DecisionKey}); a record that is not a decision is logged and skipped, never fatal.
 */
public final class ControlDecisionDeserializer implements KafkaRecordDeserializationSchema<ControlDecision> {
    private static final Logger LOG = LoggerFactory.getLogger(ControlDecisionDeserializer.class);
    private transient AvroCodec<ControlDecision> codec;

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<ControlDecision> out) {
        if (codec == null) codec = AvroCodec.of(ControlDecision.class);
        if (record.value() == null) { // a tombstone: it removes the key from the log, not the decision from the plan
            LOG.warn("skipped control tombstone {}-{}@{}", record.topic(), record.partition(), record.offset());
            return;
        }
        try {
            ControlDecision decision = codec.decode(record.value());
            // The record key is what compaction goes by; the job checks it against the action.
            if (record.key() != null) decision.setKey(new String(record.key(), StandardCharsets.UTF_8));
            out.collect(decision);
        } catch (AvroCodec.MalformedRecordException e) {
            LOG.warn("skipped control record {}-{}@{}: {}", record.topic(), record.partition(), record.offset(), e.getMessage());
        }
    }

    @Override
    public TypeInformation<ControlDecision> getProducedType() {
        return new AvroTypeInfo<>(ControlDecision.class);
    }
}
