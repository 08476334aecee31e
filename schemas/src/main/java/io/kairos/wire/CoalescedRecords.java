package io.kairos.wire;

import io.kairos.schema.BatchTelemetry;
import io.kairos.schema.internal.DeviceReport;

import org.apache.avro.Schema;

import java.util.ArrayList;
import java.util.List;

/**
 * A device's per-batch records gathered into one ({@code DeviceReport.next_reports},
 * {@code BatchTelemetry.next_batches}), and taken apart again: the one place that knows how a
 * gathering is written, for the job that writes it and every reader. A gathering is the first
 * record with the others, oldest first, nested in it; a record nests none when the writer did not
 * gather (coalescing off, or a batch alone in its interval), so a reader takes every record as
 * {@link #reports} or {@link #batches} of it.
 *
 * <p>A record written before the field existed ends where the field would begin: read with the
 * record's schema alone it is truncated, so {@link #decodeReports} and {@link #decodeBatches}
 * read such a record through the schema without the field (schema resolution), and a reader of
 * this version reads what an older job wrote. A reader older than the field finds its bytes
 * trailing and must be upgraded with the job.
 */
public final class CoalescedRecords {
    private CoalescedRecords() {}

    /** DeviceReport as it was written before {@code next_reports}. */
    static final Schema REPORT_BEFORE_GATHERING = without(DeviceReport.getClassSchema(), "next_reports");
    /** BatchTelemetry as it was written before {@code next_batches}. */
    static final Schema TELEMETRY_BEFORE_GATHERING = without(BatchTelemetry.getClassSchema(), "next_batches");

    /** Every batch's report in {@code bytes}, a report written by this job or by one before coalescing. */
    public static List<DeviceReport> decodeReports(AvroCodec<DeviceReport> codec, byte[] bytes) {
        try {
            return reports(codec.decode(bytes));
        } catch (AvroCodec.MalformedRecordException e) {
            return List.of(decodeBefore(codec, bytes, REPORT_BEFORE_GATHERING, e));
        }
    }

    /** Every batch's telemetry in {@code bytes}, a record written by this job or by one before coalescing. */
    public static List<BatchTelemetry> decodeBatches(AvroCodec<BatchTelemetry> codec, byte[] bytes) {
        try {
            return batches(codec.decode(bytes));
        } catch (AvroCodec.MalformedRecordException e) {
            return List.of(decodeBefore(codec, bytes, TELEMETRY_BEFORE_GATHERING, e));
        }
    }

    /** {@code bytes} read as written with {@code before}; if they are not that either, the first error stands. */
    private static <T extends org.apache.avro.specific.SpecificRecord> T decodeBefore(AvroCodec<T> codec, byte[] bytes, Schema before,
                                                                                      AvroCodec.MalformedRecordException first) {
        if (bytes == null) throw first;
        try {
            return codec.decode(bytes, 0, before);
        } catch (AvroCodec.MalformedRecordException e) {
            throw first;
        }
    }

    private static Schema without(Schema record, String field) {
        List<Schema.Field> fields = new ArrayList<>();
        for (Schema.Field f : record.getFields()) {
            if (!f.name().equals(field)) fields.add(new Schema.Field(f, f.schema()));
        }
        return Schema.createRecord(record.getName(), record.getDoc(), record.getNamespace(), false, fields);
    }

    /** One record for {@code reports} (one device's, of one group, oldest first): the first, with the others nested. */
    public static DeviceReport gatherReports(List<DeviceReport> reports) {
        if (reports.isEmpty()) throw new IllegalArgumentException("a gathering of no reports");
        if (reports.size() == 1) return reports.get(0);
        DeviceReport first = reports.get(0);
        return DeviceReport.newBuilder(first).setNextReports(new ArrayList<>(reports.subList(1, reports.size()))).build();
    }

    /** Every batch's report that {@code report} carries, in the order the device ended them, none nesting others. */
    public static List<DeviceReport> reports(DeviceReport report) {
        List<DeviceReport> next = report.getNextReports();
        if (next == null || next.isEmpty()) return List.of(report);
        List<DeviceReport> all = new ArrayList<>(1 + next.size());
        all.add(DeviceReport.newBuilder(report).setNextReports(List.of()).build());
        all.addAll(next);
        return all;
    }

    /** One telemetry record for {@code batches} (one device's, oldest first): the first, with the others nested. */
    public static BatchTelemetry gatherBatches(List<BatchTelemetry> batches) {
        if (batches.isEmpty()) throw new IllegalArgumentException("a gathering of no batches");
        if (batches.size() == 1) return batches.get(0);
        BatchTelemetry first = batches.get(0);
        return BatchTelemetry.newBuilder(first).setNextBatches(new ArrayList<>(batches.subList(1, batches.size()))).build();
    }

    /** Every batch's telemetry that {@code record} carries, oldest first, none nesting others. */
    public static List<BatchTelemetry> batches(BatchTelemetry record) {
        List<BatchTelemetry> next = record.getNextBatches();
        if (next == null || next.isEmpty()) return List.of(record);
        List<BatchTelemetry> all = new ArrayList<>(1 + next.size());
        all.add(BatchTelemetry.newBuilder(record).setNextBatches(List.of()).build());
        all.addAll(next);
        return all;
    }
}
