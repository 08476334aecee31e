package io.kairos.wire;

import io.kairos.schema.BatchTelemetry;
import io.kairos.schema.internal.DeviceReport;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificRecord;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * A device's per-batch records gathered into one ({@code DeviceReport.next_reports},
 * {@code BatchTelemetry.next_batches}), and taken apart again: the one place that knows how a
 * gathering is written, for the job that writes it and every reader. A gathering is the first
 * record with the others, oldest first, nested in it, each in Avro's binary encoding of the same
 * schema (a schema that nested itself would be recursive, which Flink's Avro type information
 * cannot describe). A record nests none when the writer did not gather (coalescing off, or a batch
 * alone in its interval), so a reader takes every record as {@link #decodeReports} or
 * {@link #decodeBatches} of its bytes.
 *
 * <p>A record written before a field existed ends where the field would begin (each field added
 * since is appended: {@code next_*}, then the loads' fields): read with the record's schema alone it
 * is truncated, so those two read such a record through the schema without the newer fields (schema
 * resolution), and a reader of this version reads what an older job wrote. A reader older than a
 * field finds its bytes trailing and must be upgraded with the job.
 *
 * <p>Each method takes the caller's codec: a codec is not thread-safe.
 */
public final class CoalescedRecords {
    private CoalescedRecords() {}

    /** DeviceReport as it was written before {@code load_failed}. */
    static final Schema REPORT_BEFORE_LOADS = without(DeviceReport.getClassSchema(), "load_failed");
    /** DeviceReport as it was written before {@code next_reports}. */
    static final Schema REPORT_BEFORE_GATHERING = without(REPORT_BEFORE_LOADS, "next_reports");
    /** BatchTelemetry as it was written before the records of model loads ({@code model_action}, {@code why}, {@code error}). */
    static final Schema TELEMETRY_BEFORE_LOADS = without(BatchTelemetry.getClassSchema(), "model_action", "why", "error");
    /** BatchTelemetry as it was written before {@code next_batches}. */
    static final Schema TELEMETRY_BEFORE_GATHERING = without(TELEMETRY_BEFORE_LOADS, "next_batches");

    /** One record for {@code reports} (one device's, of one group, oldest first): the first, with the others nested. */
    public static DeviceReport gatherReports(AvroCodec<DeviceReport> codec, List<DeviceReport> reports) {
        return gather(codec, reports, (r, next) -> DeviceReport.newBuilder(r).setNextReports(next).build());
    }

    /** Every batch's report that {@code report} carries, in the order the device ended them, none nesting others. */
    public static List<DeviceReport> reports(AvroCodec<DeviceReport> codec, DeviceReport report) {
        return unpack(codec, report, DeviceReport::getNextReports, (r, next) -> DeviceReport.newBuilder(r).setNextReports(next).build(), REPORT_BEFORE_LOADS);
    }

    /** Every batch's report in {@code bytes}, a record written by this job or by one before coalescing. */
    public static List<DeviceReport> decodeReports(AvroCodec<DeviceReport> codec, byte[] bytes) {
        return reports(codec, decode(codec, bytes, REPORT_BEFORE_LOADS, REPORT_BEFORE_GATHERING));
    }

    /** One telemetry record for {@code batches} (one device's, oldest first): the first, with the others nested. */
    public static BatchTelemetry gatherBatches(AvroCodec<BatchTelemetry> codec, List<BatchTelemetry> batches) {
        return gather(codec, batches, (t, next) -> BatchTelemetry.newBuilder(t).setNextBatches(next).build());
    }

    /** Every batch's telemetry that {@code record} carries, oldest first, none nesting others. */
    public static List<BatchTelemetry> batches(AvroCodec<BatchTelemetry> codec, BatchTelemetry record) {
        return unpack(codec, record, BatchTelemetry::getNextBatches, (t, next) -> BatchTelemetry.newBuilder(t).setNextBatches(next).build(), TELEMETRY_BEFORE_LOADS);
    }

    /** Every batch's telemetry in {@code bytes}, a record written by this job or by one before coalescing. */
    public static List<BatchTelemetry> decodeBatches(AvroCodec<BatchTelemetry> codec, byte[] bytes) {
        return batches(codec, decode(codec, bytes, TELEMETRY_BEFORE_LOADS, TELEMETRY_BEFORE_GATHERING));
    }

    private static <T extends SpecificRecord> T gather(AvroCodec<T> codec, List<T> records, BiFunction<T, List<ByteBuffer>, T> withNext) {
        if (records.isEmpty()) throw new IllegalArgumentException("a gathering of no records");
        if (records.size() == 1) return records.get(0);
        List<ByteBuffer> next = new ArrayList<>(records.size() - 1);
        for (T r : records.subList(1, records.size())) next.add(ByteBuffer.wrap(codec.encode(r)));
        return withNext.apply(records.get(0), next);
    }

    private static <T extends SpecificRecord> List<T> unpack(AvroCodec<T> codec, T record, Function<T, List<ByteBuffer>> nextOf,
                                                             BiFunction<T, List<ByteBuffer>, T> withNext, Schema nestedBefore) {
        List<ByteBuffer> next = nextOf.apply(record);
        if (next == null || next.isEmpty()) return List.of(record);
        List<T> all = new ArrayList<>(1 + next.size());
        all.add(withNext.apply(record, List.of()));
        for (ByteBuffer b : next) {
            // A nested record is written as its gathering is: by this job, or by one before the loads' fields.
            byte[] bytes = new byte[b.remaining()];
            b.duplicate().get(bytes);
            T nested = decode(codec, bytes, nestedBefore);
            List<ByteBuffer> deeper = nextOf.apply(nested);
            if (deeper != null && !deeper.isEmpty()) throw new AvroCodec.MalformedRecordException("a gathered record nests others in turn");
            all.add(nested);
        }
        return all;
    }

    /**
     * {@code bytes} as a record of this version, else as one written with the first of {@code before}
     * (newest first) that reads them; if none does, the first error stands.
     */
    private static <T extends SpecificRecord> T decode(AvroCodec<T> codec, byte[] bytes, Schema... before) {
        try {
            return codec.decode(bytes);
        } catch (AvroCodec.MalformedRecordException first) {
            if (bytes == null) throw first;
            for (Schema earlier : before) {
                try {
                    return codec.decode(bytes, 0, earlier);
                } catch (AvroCodec.MalformedRecordException e) {
                    // an older writer still
                }
            }
            throw first;
        }
    }

    private static Schema without(Schema record, String... names) {
        List<String> left = List.of(names);
        List<Schema.Field> fields = new ArrayList<>();
        for (Schema.Field f : record.getFields()) {
            if (!left.contains(f.name())) fields.add(new Schema.Field(f, f.schema()));
        }
        return Schema.createRecord(record.getName(), record.getDoc(), record.getNamespace(), false, fields);
    }
}
