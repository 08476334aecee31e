package io.kairos.flink.kafka;

import io.kairos.schema.internal.DeviceReport;
import io.kairos.wire.AvroCodec;
import io.kairos.wire.CoalescedRecords;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Reads the devices' reports back, each batch's on its own; a record that is not one is logged and skipped, never fatal. */
public final class DeviceReportDeserializer implements KafkaRecordDeserializationSchema<DeviceReport> {
    private static final Logger LOG = LoggerFactory.getLogger(DeviceReportDeserializer.class);
    private transient AvroCodec<DeviceReport> codec;

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<DeviceReport> out) {
        if (codec == null) codec = AvroCodec.of(DeviceReport.class);
        try {
            // A record may carry several batches' reports (coalescing): one element each, in the device's order.
            for (DeviceReport r : CoalescedRecords.decodeReports(codec, record.value())) out.collect(r);
        } catch (AvroCodec.MalformedRecordException e) {
            LOG.warn("skipped device report {}-{}@{}: {}", record.topic(), record.partition(), record.offset(), e.getMessage());
        }
    }

    @Override
    public TypeInformation<DeviceReport> getProducedType() {
        return new AvroTypeInfo<>(DeviceReport.class);
    }
}
