package io.kairos.flink.kafka;

import io.kairos.schema.internal.PipelineHop;
import io.kairos.wire.AvroCodec;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Reads the pipeline hops back; a record that is not one is logged and skipped (the request it carried gets no result), never fatal: the job writes every record of the topic itself. */
public final class PipelineHopDeserializer implements KafkaRecordDeserializationSchema<PipelineHop> {
    private static final Logger LOG = LoggerFactory.getLogger(PipelineHopDeserializer.class);
    private transient AvroCodec<PipelineHop> codec;

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<PipelineHop> out) {
        if (codec == null) codec = AvroCodec.of(PipelineHop.class);
        try {
            out.collect(codec.decode(record.value()));
        } catch (AvroCodec.MalformedRecordException e) {
            LOG.warn("skipped pipeline hop {}-{}@{}: {}", record.topic(), record.partition(), record.offset(), e.getMessage());
        }
    }

    @Override
    public TypeInformation<PipelineHop> getProducedType() {
        return new AvroTypeInfo<>(PipelineHop.class);
    }
}
