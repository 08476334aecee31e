package io.kairos.core.device;

import io.kairos.core.api.Internal;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Gathers one device's records of its batches (its reports to the scheduler, its telemetry) into
 * fewer, so that a busy device does not cost the broker a record per batch and per kind: at batch
 * size 1 that was two records per request beside the request and its result.
 *
 * <p>The first record after a quiet spell leaves at once, so that an idle scheduler learns a
 * batch's end without waiting; the records that follow within {@code interval} of that one are
 * held and leave together when the interval is up, or as soon as {@code maxRecords} are held, or
 * before a record of another key (a report goes to its group's partition: one gathering holds
 * one group's). So a device writes at most about one gathering per interval, and no record waits
 * longer than the interval. Records leave in the order they came, each exactly once.
 *
 * <p>Plain logic on a clock it is given: the caller asks {@link #dueMicros()} when the held
 * records must leave and calls {@link #onTime} then (a timer), and {@link #flush()} where
 * everything must be out (before a checkpoint's barrier, at the end of the input).
 *
 * @param <T> the record
 */
@Internal
public final class ReportCoalescer<T> {
    /** Nothing is held: no time is due. */
    public static final long NOTHING_DUE = Long.MAX_VALUE;

    private final long intervalMicros;
    private final int maxRecords;
    private final Function<T, ?> key;
    private final Consumer<List<T>> out;
    private final List<T> held = new ArrayList<>();
    // When the last gathering left; the next record leaves at once from interval after it.
    private long lastSentMicros = Long.MIN_VALUE;

    /**
     * @param intervalMicros how long records are gathered after one left; 0: never, each leaves alone
     * @param maxRecords     the most records in one gathering (at least 1; 1: each leaves alone)
     * @param key            records of different keys never share a gathering
     * @param out            takes each gathering, oldest record first, never empty
     */
    public ReportCoalescer(long intervalMicros, int maxRecords, Function<T, ?> key, Consumer<List<T>> out) {
        if (intervalMicros < 0) throw new IllegalArgumentException("the coalescing interval must not be negative, got " + intervalMicros + " us");
        if (maxRecords < 1) throw new IllegalArgumentException("a gathering holds at least one record, got " + maxRecords);
        this.intervalMicros = intervalMicros;
        this.maxRecords = maxRecords;
        this.key = Objects.requireNonNull(key, "key");
        this.out = Objects.requireNonNull(out, "out");
    }

    /** Whether records are gathered at all: with an interval of 0 or at most one per gathering, every record leaves alone. */
    public boolean coalesces() {
        return intervalMicros > 0 && maxRecords > 1;
    }

    /**
     * A record of a batch, at {@code nowMicros}: it leaves now (with those held before it) when the
     * interval since the last gathering is up or the gathering is full, else it is held until
     * {@link #dueMicros()} at the latest.
     */
    public void add(T record, long nowMicros) {
        if (!held.isEmpty() && !Objects.equals(key.apply(held.get(0)), key.apply(record))) send(nowMicros);
        held.add(record);
        if (!coalesces() || held.size() >= maxRecords || nowMicros >= dueAfter(lastSentMicros)) send(nowMicros);
    }

    /** The time the held records must leave by; {@link #NOTHING_DUE} when none is held. */
    public long dueMicros() {
        return held.isEmpty() ? NOTHING_DUE : dueAfter(lastSentMicros);
    }

    /** The clock reached {@code nowMicros}: the held records leave if they are due. */
    public void onTime(long nowMicros) {
        if (!held.isEmpty() && nowMicros >= dueMicros()) send(nowMicros);
    }

    /** Every held record leaves now (a checkpoint, the end of the input). The interval runs on from the last gathering that left. */
    public void flush() {
        if (held.isEmpty()) return;
        List<T> gathering = List.copyOf(held);
        held.clear();
        out.accept(gathering);
    }

    /** How many records are held. */
    public int held() {
        return held.size();
    }

    private void send(long nowMicros) {
        flush();
        lastSentMicros = nowMicros;
    }

    private long dueAfter(long sentMicros) {
        return sentMicros == Long.MIN_VALUE ? Long.MIN_VALUE : sentMicros + intervalMicros;
    }
}
