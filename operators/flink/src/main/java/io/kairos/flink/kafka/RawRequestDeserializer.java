package io.kairos.flink.kafka;

import io.kairos.core.time.Clock;
import io.kairos.schema.internal.RawRequest;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

import java.nio.ByteBuffer;

/**
 * Takes a record of the requests topic as it is, with its origin and the time it was read.
 * Decoding happens in the next operator so that bytes that are not a request become a REJECTED
 * result there instead of an exception in the source.
 */
public final class RawRequestDeserializer implements KafkaRecordDeserializationSchema<RawRequest> {
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

    private final Clock clock;

    public RawRequestDeserializer() {
        this(Clock.wall());
    }

    /** @param clock stamps the time each record was read */
    public RawRequestDeserializer(Clock clock) {
        this.clock = clock;
    }

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<RawRequest> out) {
        out.collect(new RawRequest(
                record.topic(), record.partition(), record.offset(),
                clock.nowMicros(),
                record.value() == null ? EMPTY : ByteBuffer.wrap(record.value()),
                record.key() == null ? null : ByteBuffer.wrap(record.key())));
    }

    @Override
    public TypeInformation<RawRequest> getProducedType() {
        return new AvroTypeInfo<>(RawRequest.class);
    }
}
