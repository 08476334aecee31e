package io.kairos.flink;

import io.kairos.core.device.ReportCoalescer;
import io.kairos.core.time.Clock;
import io.kairos.schema.BatchTelemetry;
import io.kairos.schema.internal.DeviceReport;
import io.kairos.wire.AvroCodec;
import io.kairos.wire.CoalescedRecords;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

import org.apache.avro.specific.SpecificRecord;

import java.io.Serializable;
import java.util.List;

/**
 * One device's reports or telemetry, a record per batch from {@link EmitResults}, gathered into
 * fewer records ({@link ReportCoalescer}): the first after a quiet spell leaves at once, those
 * within the interval after it leave together when it is up. Chained to {@link EmitResults}, one
 * per device. Every held record leaves before a checkpoint's barrier, so the operator has no
 * state and a checkpoint covers every batch whose outcome it covers.
 *
 * <p>It holds its inputs until they leave: {@link EmitResults} makes a new record for every batch
 * and never touches it again, so object reuse cannot change one while it is held.
 *
 * <p>Metrics (group {@code kairos}): {@code coalescedIn}, the batches' records taken,
 * {@code coalescedOut}, the records written for them.
 *
 * @param <T> the record: {@link DeviceReport} or {@link BatchTelemetry}
 */
public final class CoalesceReports<T extends SpecificRecord> extends AbstractStreamOperator<T> implements OneInputStreamOperator<T, T> {
    /** How records of one kind are gathered into one and which may share it. */
    public interface Gathering<T extends SpecificRecord> extends Serializable {
        /** The record's class, for the operator's codec. */
        Class<T> type();

        /** Records of different keys never share a gathering. */
        Object key(T record);

        /** One record for {@code records}, oldest first, nesting them with {@code codec}. */
        T gather(AvroCodec<T> codec, List<T> records);
    }

    /** Reports go to their group's partition: one gathering holds one group's. */
    public static final Gathering<DeviceReport> REPORTS = new Gathering<>() {
        @Override
        public Class<DeviceReport> type() {
            return DeviceReport.class;
        }

        @Override
        public Object key(DeviceReport r) {
            return r.getGroup();
        }

        @Override
        public DeviceReport gather(AvroCodec<DeviceReport> codec, List<DeviceReport> records) {
            return CoalescedRecords.gatherReports(codec, records);
        }
    };

    /** Telemetry is keyed by its first batch's id: any of the device's batches may share a record. */
    public static final Gathering<BatchTelemetry> TELEMETRY = new Gathering<>() {
        @Override
        public Class<BatchTelemetry> type() {
            return BatchTelemetry.class;
        }

        @Override
        public Object key(BatchTelemetry t) {
            return Boolean.TRUE;
        }

        @Override
        public BatchTelemetry gather(AvroCodec<BatchTelemetry> codec, List<BatchTelemetry> records) {
            return CoalescedRecords.gatherBatches(codec, records);
        }
    };

    private static final long NO_TIMER = Long.MAX_VALUE;

    private final long intervalMicros;
    private final int maxRecords;
    private final Gathering<T> gathering;
    private final Clock clock;
    private transient ReportCoalescer<T> coalescer;
    private transient AvroCodec<T> codec;
    // The processing time (ms) of the earliest timer set and not yet fired; NO_TIMER: none.
    private transient long timerMillis;
    private transient Counter in;
    private transient Counter out;

    /**
     * @param intervalMicros how long records are gathered after one left (0: every record alone)
     * @param maxRecords     the most records gathered into one
     */
    public CoalesceReports(long intervalMicros, int maxRecords, Gathering<T> gathering) {
        this(intervalMicros, maxRecords, gathering, Clock.wall());
    }

    /** @param clock the time each record comes at; the timers are Flink's processing time, in ms */
    public CoalesceReports(long intervalMicros, int maxRecords, Gathering<T> gathering, Clock clock) {
        // Checked here, where the job is built, rather than when a task opens.
        new ReportCoalescer<T>(intervalMicros, maxRecords, r -> r, g -> {});
        this.intervalMicros = intervalMicros;
        this.maxRecords = maxRecords;
        this.gathering = gathering;
        this.clock = clock;
    }

    @Override
    public void open() throws Exception {
        super.open();
        AvroCodec.enableCustomCoders();
        var metrics = getMetricGroup().addGroup("kairos");
        in = metrics.counter("coalescedIn");
        out = metrics.counter("coalescedOut");
        timerMillis = NO_TIMER;
        codec = AvroCodec.of(gathering.type());
        coalescer = new ReportCoalescer<>(intervalMicros, maxRecords, gathering::key, records -> {
            out.inc();
            output.collect(new StreamRecord<>(gathering.gather(codec, records)));
        });
    }

    @Override
    public void processElement(StreamRecord<T> element) {
        in.inc();
        coalescer.add(element.getValue(), clock.nowMicros());
        armTimer();
    }

    /**
     * A timer at the held records' due time, rounded up to Flink's ms, unless one at or before it is
     * set. Flink fires it 1 to 3 ms after the due time ({@link ProcessingTimers}); the timer at the
     * due time's own ms, 0 to 2 ms after, saves a millisecond that neither the demo nor bench's
     * report delay can tell from the spread between runs (docs/benchmarks/history.md), so the timer
     * keeps the plain rounding up.
     */
    private void armTimer() {
        long due = coalescer.dueMicros();
        if (due == ReportCoalescer.NOTHING_DUE) return;
        long millis = Math.floorDiv(due + 999, 1000);
        if (millis >= timerMillis) return;
        timerMillis = millis;
        getProcessingTimeService().registerTimer(millis, this::onTimer);
    }

    private void onTimer(long millis) {
        // An earlier timer may fire after a later one was set; only the earliest one clears the mark.
        if (millis >= timerMillis) timerMillis = NO_TIMER;
        coalescer.onTime(Math.max(clock.nowMicros(), millis * 1000));
        armTimer();
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        super.prepareSnapshotPreBarrier(checkpointId);
        coalescer.flush();
    }

    @Override
    public void finish() throws Exception {
        coalescer.flush();
        super.finish();
    }
}
