package io.kairos.flink;

import io.kairos.core.time.ManualClock;
import io.kairos.flink.kafka.DeviceReportDeserializer;
import io.kairos.schema.BatchTelemetry;
import io.kairos.schema.internal.DeviceReport;
import io.kairos.wire.AvroCodec;
import io.kairos.wire.CoalescedRecords;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The operator on Flink's test harness, its processing time driven by hand: what a device's reports
 * become on the topic, and what the schedulers read back from it.
 */
class CoalesceReportsHarnessTest {
    /** The harness's processing time and the operator's clock start together: 1,000,000 ms. */
    private static final long T0_MS = 1_000_000;
    private final ManualClock clock = new ManualClock(T0_MS * 1000);
    private OneInputStreamOperatorTestHarness<DeviceReport, DeviceReport> harness;

    @AfterEach
    void close() throws Exception {
        if (harness != null) harness.close();
    }

    private static DeviceReport report(String group, String batch, long endMicros) {
        return DeviceReport.newBuilder().setGroup(group).setBatchId(batch).setModel("m").setDevice(0).setBatchSize(1)
                .setExecStartMicros(endMicros - 100).setExecEndMicros(endMicros).build();
    }

    /** Advances both clocks to {@code ms} after the start: timers due by then fire. */
    private void at(double ms) throws Exception {
        clock.set(Math.round((T0_MS + ms) * 1000));
        harness.setProcessingTime((long) Math.floor(T0_MS + ms));
    }

    private void add(String group, String batch, double ms) throws Exception {
        at(ms);
        harness.processElement(new StreamRecord<>(report(group, batch, clock.nowMicros())));
    }

    /** Each record written, as the batch ids it carries. */
    private List<List<String>> written() {
        List<List<String>> out = new ArrayList<>();
        for (Object o : harness.getOutput()) {
            if (o instanceof StreamRecord<?> r) out.add(CoalescedRecords.reports(AvroCodec.of(DeviceReport.class), (DeviceReport) r.getValue()).stream().map(DeviceReport::getBatchId).toList());
        }
        return out;
    }

    @Test
    void reportsLeaveAloneWhenQuietAndGatheredWhenBusyBeforeABarrierAndWhenFull() throws Exception {
        // Interval 2 ms, at most 3 a record. a at 0 leaves at once; b at 0.5 and c at 1.2 ms wait for
        // the timer at 0 + 2 = 2 ms (nothing at 1.9 ms). d at 2.5 ms is held (due 4 ms) until the
        // checkpoint's barrier at 3 ms takes it out. e, f, g at 3.1, 3.2, 3.3 ms (the interval runs
        // from 2 ms) fill a record, which leaves with g. h of group g2 at 3.4 ms is held; i of g1
        // at 3.5 ms sends [h] first: a record holds one group's reports. i is held and leaves with the timer
        // at 3.5 + 2 = 5.5 ms, Flink's 6 ms.
        harness = new OneInputStreamOperatorTestHarness<>(new CoalesceReports<>(2_000, 3, CoalesceReports.REPORTS, clock));
        harness.open();
        at(0);
        add("g1", "a", 0);
        assertThat(written()).containsExactly(List.of("a"));
        add("g1", "b", 0.5);
        add("g1", "c", 1.2);
        at(1.9);
        assertThat(written()).hasSize(1);
        at(2.0);
        assertThat(written()).containsExactly(List.of("a"), List.of("b", "c"));
        add("g1", "d", 2.5);
        at(3.0);
        harness.prepareSnapshotPreBarrier(1);
        assertThat(written()).containsExactly(List.of("a"), List.of("b", "c"), List.of("d"));
        add("g1", "e", 3.1);
        add("g1", "f", 3.2);
        add("g1", "g", 3.3);
        assertThat(written()).hasSize(4).last().isEqualTo(List.of("e", "f", "g"));
        add("g2", "h", 3.4);
        add("g1", "i", 3.5);
        assertThat(written()).hasSize(5).last().isEqualTo(List.of("h"));
        at(4.0); // the timer of d's interval finds nothing due: i is due at 5.5 ms
        assertThat(written()).hasSize(5);
        at(5.9);
        assertThat(written()).hasSize(5);
        at(6.0);
        assertThat(written()).containsExactly(List.of("a"), List.of("b", "c"), List.of("d"), List.of("e", "f", "g"), List.of("h"), List.of("i"));
    }

    @Test
    void whatTheSchedulersReadBackIsEveryBatchsReportOnceInOrder() throws Exception {
        harness = new OneInputStreamOperatorTestHarness<>(new CoalesceReports<>(2_000, 64, CoalesceReports.REPORTS, clock));
        harness.open();
        at(0);
        for (int i = 0; i < 10; i++) add("g", "b" + i, 0.1 * i);
        at(2.0);
        // Two records on the topic: b0 alone, then b1 to b9.
        AvroCodec<DeviceReport> codec = AvroCodec.of(DeviceReport.class);
        List<byte[]> topic = new ArrayList<>();
        for (Object o : harness.getOutput()) {
            if (o instanceof StreamRecord<?> r) topic.add(codec.encode((DeviceReport) r.getValue()));
        }
        assertThat(topic).hasSize(2);
        List<DeviceReport> read = new ArrayList<>();
        Collector<DeviceReport> into = new Collector<>() {
            @Override
            public void collect(DeviceReport r) {
                read.add(r);
            }

            @Override
            public void close() {}
        };
        DeviceReportDeserializer deserializer = new DeviceReportDeserializer();
        for (int i = 0; i < topic.size(); i++) deserializer.deserialize(new ConsumerRecord<>("reports", 0, i, "g".getBytes(), topic.get(i)), into);
        assertThat(read).extracting(DeviceReport::getBatchId).containsExactly("b0", "b1", "b2", "b3", "b4", "b5", "b6", "b7", "b8", "b9");
        assertThat(read).allSatisfy(r -> assertThat(r.getNextReports()).isEmpty());
        assertThat(read.get(3).getExecEndMicros()).isEqualTo((T0_MS * 1000) + 300);
    }

    @Test
    void offEveryReportIsARecord() throws Exception {
        harness = new OneInputStreamOperatorTestHarness<>(new CoalesceReports<>(0, 64, CoalesceReports.REPORTS, clock));
        harness.open();
        at(0);
        for (int i = 0; i < 3; i++) add("g", "b" + i, 0.1 * i);
        assertThat(written()).containsExactly(List.of("b0"), List.of("b1"), List.of("b2"));
    }

    @Test
    void telemetryKeepsEveryBatchsFigures() throws Exception {
        var t = new OneInputStreamOperatorTestHarness<BatchTelemetry, BatchTelemetry>(new CoalesceReports<>(2_000, 64, CoalesceReports.TELEMETRY, clock));
        try (t) {
            t.open();
            t.setProcessingTime(T0_MS);
            for (int i = 0; i < 4; i++) {
                clock.set(T0_MS * 1000 + 100L * i);
                // Batches of another group on the same device may share a telemetry record: its key is the first batch's id.
                t.processElement(new StreamRecord<>(BatchTelemetry.newBuilder().setBatchId("b" + i).setGroup(i == 2 ? "g2" : "g").setModel("m").setDevice(0)
                        .setBatchSize(i + 1).setDispatchedAtMicros(0).setPredictedStartMicros(0).setPredictedLatencyMicros(0)
                        .setExecStartMicros(0).setExecEndMicros(i).setColdStart(false).setOk(i + 1).setLate(0).setFailed(0).build()));
            }
            t.setProcessingTime(T0_MS + 2);
            List<BatchTelemetry> records = new ArrayList<>();
            for (Object o : t.getOutput()) if (o instanceof StreamRecord<?> r) records.add((BatchTelemetry) r.getValue());
            assertThat(records).hasSize(2);
            List<BatchTelemetry> batches = records.stream().flatMap(r -> CoalescedRecords.batches(AvroCodec.of(BatchTelemetry.class), r).stream()).toList();
            assertThat(batches).extracting(BatchTelemetry::getBatchId, BatchTelemetry::getBatchSize, BatchTelemetry::getOk, BatchTelemetry::getGroup)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("b0", 1, 1, "g"), org.assertj.core.groups.Tuple.tuple("b1", 2, 2, "g"),
                            org.assertj.core.groups.Tuple.tuple("b2", 3, 3, "g2"), org.assertj.core.groups.Tuple.tuple("b3", 4, 4, "g"));
        }
    }
}
