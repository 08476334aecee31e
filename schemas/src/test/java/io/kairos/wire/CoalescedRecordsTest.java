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

    @Test
    void theNewSchemasReadTheOldAndTheOldTheNewUnderSchemaResolution() {
        for (Schema[] pair : List.of(new Schema[]{DeviceReport.getClassSchema(), CoalescedRecords.REPORT_BEFORE_GATHERING},
                new Schema[]{BatchTelemetry.getClassSchema(), CoalescedRecords.TELEMETRY_BEFORE_GATHERING})) {
            assertThat(SchemaCompatibility.checkReaderWriterCompatibility(pair[0], pair[1]).getType())
                    .as("%s reads the old", pair[0].getName()).isEqualTo(SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE);
            assertThat(SchemaCompatibility.checkReaderWriterCompatibility(pair[1], pair[0]).getType())
                    .as("the old %s reads the new", pair[0].getName()).isEqualTo(SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE);
        }
    }
}
