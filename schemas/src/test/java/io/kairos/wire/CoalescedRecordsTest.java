package io.kairos.wire;

import io.kairos.schema.BatchTelemetry;
import io.kairos.schema.internal.DeviceReport;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CoalescedRecordsTest {

    private static DeviceReport report(String batch) {
        return DeviceReport.newBuilder().setGroup("g").setBatchId(batch).setModel("m").setDevice(1).setBatchSize(2)
                .setExecStartMicros(10).setExecEndMicros(20).build();
    }

    @Test
    void aGatheringIsReadBackAsItsReportsInOrderNoneNestingOthers() {
        AvroCodec<DeviceReport> codec = AvroCodec.of(DeviceReport.class);
        DeviceReport gathered = CoalescedRecords.gatherReports(codec, List.of(report("a"), report("b"), report("c")));
        assertThat(gathered.getNextReports()).hasSize(2);
        List<DeviceReport> read = CoalescedRecords.decodeReports(codec, codec.encode(gathered));
        assertThat(read).extracting(DeviceReport::getBatchId).containsExactly("a", "b", "c");
        assertThat(read).allSatisfy(r -> assertThat(r.getNextReports()).isEmpty());
        assertThat(read.get(0)).isEqualTo(report("a"));
        assertThat(CoalescedRecords.gatherReports(codec, List.of(report("x")))).as("one report is written as it is").isEqualTo(report("x"));
        assertThatThrownBy(() -> CoalescedRecords.gatherReports(codec, List.of())).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void recordsWrittenBeforeTheFieldAreReadThroughTheOlderSchema() throws IOException {
        // A report as a job before coalescing wrote it: the schema without next_reports.
        Schema before = CoalescedRecords.REPORT_BEFORE_GATHERING;
        assertThat(before.getField("next_reports")).isNull();
        GenericRecord old = new GenericData.Record(before);
        old.put("group", "g");
        old.put("batch_id", "old");
        old.put("model", "m");
        old.put("device", 1);
        old.put("batch_size", 2);
        old.put("exec_start_micros", 10L);
        old.put("exec_end_micros", 20L);
        old.put("cold_start", false);
        old.put("failed", false);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        BinaryEncoder e = EncoderFactory.get().directBinaryEncoder(bytes, null);
        new GenericDatumWriter<GenericRecord>(before).write(old, e);
        e.flush();
        AvroCodec<DeviceReport> codec = AvroCodec.of(DeviceReport.class);
        assertThatThrownBy(() -> codec.decode(bytes.toByteArray())).as("the new schema alone finds it truncated").isInstanceOf(AvroCodec.MalformedRecordException.class);
        assertThat(CoalescedRecords.decodeReports(codec, bytes.toByteArray())).containsExactly(report("old"));
        assertThatThrownBy(() -> CoalescedRecords.decodeReports(codec, new byte[]{1, 2, 3})).isInstanceOf(AvroCodec.MalformedRecordException.class);
    }

    /**
     * A gathering of two batches as the job wrote it before loads had telemetry (no model_action,
     * why, error, in the record and in the nested one): read whole, each batch with its figures and
     * the new fields null.
     */
    @Test
    void telemetryWrittenBeforeTheLoadsFieldsIsReadWithItsNestedBatches() throws IOException {
        Schema before = CoalescedRecords.TELEMETRY_BEFORE_LOADS;
        assertThat(before.getField("model_action")).isNull();
        assertThat(before.getField("next_batches")).isNotNull();
        byte[] nested = writeOld(before, "b", 2, List.of());
        byte[] outer = writeOld(before, "a", 1, List.of(java.nio.ByteBuffer.wrap(nested)));
        AvroCodec<BatchTelemetry> codec = AvroCodec.of(BatchTelemetry.class);
        assertThat(CoalescedRecords.decodeBatches(codec, outer)).containsExactly(batch("a", 1), batch("b", 2));
    }

    private static byte[] writeOld(Schema schema, String id, int size, List<java.nio.ByteBuffer> next) throws IOException {
        BatchTelemetry now = batch(id, size);
        GenericRecord old = new GenericData.Record(schema);
        for (Schema.Field f : schema.getFields()) old.put(f.name(), now.get(f.name()));
        old.put("next_batches", next);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        BinaryEncoder e = EncoderFactory.get().directBinaryEncoder(bytes, null);
        new GenericDatumWriter<GenericRecord>(schema).write(old, e);
        e.flush();
        return bytes.toByteArray();
    }

    @Test
    void theNewSchemasReadTheOldAndTheOldTheNewUnderSchemaResolution() {
        for (Schema[] pair : List.of(new Schema[]{DeviceReport.getClassSchema(), CoalescedRecords.REPORT_BEFORE_GATHERING},
                new Schema[]{BatchTelemetry.getClassSchema(), CoalescedRecords.TELEMETRY_BEFORE_GATHERING},
                new Schema[]{DeviceReport.getClassSchema(), CoalescedRecords.REPORT_BEFORE_LOADS},
                new Schema[]{BatchTelemetry.getClassSchema(), CoalescedRecords.TELEMETRY_BEFORE_LOADS})) {
            assertThat(SchemaCompatibility.checkReaderWriterCompatibility(pair[0], pair[1]).getType())
                    .as("%s reads the old", pair[0].getName()).isEqualTo(SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE);
            assertThat(SchemaCompatibility.checkReaderWriterCompatibility(pair[1], pair[0]).getType())
                    .as("the old %s reads the new", pair[0].getName()).isEqualTo(SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE);
        }
    }
    private static BatchTelemetry batch(String id, int size) {
        return BatchTelemetry.newBuilder().setBatchId(id).setGroup("g").setModel("m").setDevice(0).setBatchSize(size)
                .setDispatchedAtMicros(1).setPredictedStartMicros(2).setPredictedLatencyMicros(3).setExecStartMicros(4).setExecEndMicros(5)
                .setColdStart(false).setOk(size).setLate(0).setFailed(0).setEnergyMj(size * 1.5).build();
    }

    @Test
    void telemetryGatheredKeepsEveryBatchsFigures() {
        AvroCodec<BatchTelemetry> codec = AvroCodec.of(BatchTelemetry.class);
        List<BatchTelemetry> in = List.of(batch("a", 1), batch("b", 2), batch("c", 3));
        byte[] bytes = codec.encode(CoalescedRecords.gatherBatches(codec, in));
        assertThat(CoalescedRecords.decodeBatches(codec, bytes)).containsExactlyElementsOf(in);
        // A record that nests a gathering in turn is no record of this job.
        BatchTelemetry twice = BatchTelemetry.newBuilder(batch("x", 1)).setNextBatches(List.of(java.nio.ByteBuffer.wrap(bytes))).build();
        assertThatThrownBy(() -> CoalescedRecords.decodeBatches(codec, codec.encode(twice))).isInstanceOf(AvroCodec.MalformedRecordException.class);
    }
}
