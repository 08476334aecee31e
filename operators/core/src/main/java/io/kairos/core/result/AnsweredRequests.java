package io.kairos.core.result;

import io.kairos.core.api.Internal;
import io.kairos.core.time.Micros;

import java.io.Serializable;
import java.util.Set;

/**
 * At-least-once delivery's rule against duplicates that contradict: <b>a request that already has a
 * result out gets no second one</b>.
 *
 * <p>After a crash the job restarts from its last checkpoint and replays every request read since.
 * Some of them were answered before the crash; judged again now, after their deadline, they would
 * come out DROPPED, and a consumer that keeps the latest result per request id (a compacted topic,
 * a KTable) would record served requests as dropped. So on a restore the job reads back the ids of
 * the results written since the restored checkpoint was taken ({@link ResultLog}), and this set
 * holds them back:
 *
 * <ul>
 *   <li>The read starts {@link Settings#marginMs} before the checkpoint was triggered
 *       ({@link #readFromMillis}). Nothing the checkpoint covers is replayed, and whatever is
 *       replayed (requests the sources read after it, requests in the schedulers' queues or on
 *       the devices at the time) had its result written after the checkpoint was triggered; the
 *       margin covers the clocks of the machines (the JobManager triggers, a TaskManager stamps a
 *       record).</li>
 *   <li>It is consulted only for requests sent before the restore (plus the margin, for the
 *       clients' clocks): one sent later cannot have been answered before the crash, even if a
 *       client reuses an id. Where the log says when its latest result was written
 *       ({@link #withLatestWrite}), which is about when the job crashed, only requests sent before
 *       that (plus the margin) are looked up: the others need not wait for the ids to be read.</li>
 *   <li>It is dropped {@link Settings#horizonMs} after the restore: by then the replay is long
 *       read. A replayed request whose result comes out later than that (a long SLO) can be
 *       written a second time.</li>
 *   <li>For {@link Settings#catchUpMs} after the restore, a checkpoint records the older anchor
 *       ({@link #anchorFor}): a second crash before the sources had read past the first one's
 *       replay replays requests answered before the first crash. Not for the whole horizon: after
 *       several crashes in a few minutes the read-back would grow to minutes of results (750,000
 *       ids at 5,000 requests/s), too many to read in its timeout.</li>
 * </ul>
 *
 * <p>Plain data and arithmetic on "now" as given; the Flink function that applies it reads the
 * clock, the state and the results topic.
 */
@Internal
public final class AnsweredRequests {

    /**
     * @param marginMs  how far before the checkpoint the read-back starts, and how far after the
     *                  restore a request's send time may lie and still be looked up
     * @param timeoutMs how long the read-back may take at most; beyond it the job goes on without
     *                  the set (and may write a duplicate)
     * @param horizonMs how long after the restore the set is kept
     * @param catchUpMs how long after the restore the sources may still be reading the replay: a
     *                  checkpoint taken within it keeps the older anchor (at most the horizon)
     */
    public record Settings(long marginMs, long timeoutMs, long horizonMs, long catchUpMs) implements Serializable {
        /** 2 s of margin, 10 s to read, kept 5 minutes, 30 s to catch up. */
        public static final Settings DEFAULTS = new Settings(2_000, 10_000, 300_000, 30_000);

        /** With {@link #DEFAULTS}' catch-up, or the horizon if shorter. */
        public Settings(long marginMs, long timeoutMs, long horizonMs) {
            this(marginMs, timeoutMs, horizonMs, Math.min(horizonMs, DEFAULTS_CATCH_UP_MS));
        }

        public Settings {
            if (marginMs < 0) throw new IllegalArgumentException("the read-back margin must not be negative, got " + marginMs + " ms");
            if (timeoutMs < 1) throw new IllegalArgumentException("the read-back timeout must be at least 1 ms, got " + timeoutMs);
            if (horizonMs < 1) throw new IllegalArgumentException("the answered requests must be kept at least 1 ms, got " + horizonMs);
            if (catchUpMs < 0 || catchUpMs > horizonMs) throw new IllegalArgumentException("the catch-up must lie between 0 and the horizon of " + horizonMs + " ms, got " + catchUpMs);
        }
    }

    private static final long DEFAULTS_CATCH_UP_MS = 30_000;

    private static final AnsweredRequests NONE = new AnsweredRequests(Set.of(), Long.MAX_VALUE, Long.MIN_VALUE, Long.MIN_VALUE, Long.MIN_VALUE, 0);

    private final Set<String> ids;
    private final long anchorMillis;
    /** No result written before the restore is later than this: the restore, or the latest write read back. */
    private final long writtenByMicros;
    private final long untilMicros;
    private final long catchUpUntilMicros;
    private final long marginMicros;

    private AnsweredRequests(Set<String> ids, long anchorMillis, long writtenByMicros, long untilMicros, long catchUpUntilMicros, long marginMicros) {
        this.ids = ids;
        this.anchorMillis = anchorMillis;
        this.writtenByMicros = writtenByMicros;
        this.untilMicros = untilMicros;
        this.catchUpUntilMicros = catchUpUntilMicros;
        this.marginMicros = marginMicros;
    }

    /** A fresh start, or delivery that needs no rule: nothing is held back. */
    public static AnsweredRequests none() {
        return NONE;
    }

    /**
     * After a restore at {@code restoredAtMicros} from a checkpoint anchored at {@code anchorMillis}.
     *
     * @param ids the request ids read back from {@link #readFromMillis}; empty when the read failed
     *            (the anchor still carries over, see {@link #anchorFor})
     */
    public static AnsweredRequests restored(Set<String> ids, long anchorMillis, long restoredAtMicros, Settings settings) {
        long horizonMicros = Math.multiplyExact(settings.horizonMs(), 1000L);
        long catchUpMicros = Math.multiplyExact(settings.catchUpMs(), 1000L);
        return new AnsweredRequests(Set.copyOf(ids), anchorMillis, restoredAtMicros,
                Micros.saturatedAdd(restoredAtMicros, horizonMicros), Micros.saturatedAdd(restoredAtMicros, catchUpMicros),
                Math.multiplyExact(settings.marginMs(), 1000L));
    }

    /** This set with {@code ids}, read back after it was made: its anchor and times are kept. */
    public AnsweredRequests withIds(Set<String> readBack) {
        return new AnsweredRequests(Set.copyOf(readBack), anchorMillis, writtenByMicros, untilMicros, catchUpUntilMicros, marginMicros);
    }

    /**
     * This set, told that the latest result before the restore was written at {@code millis}: a
     * request sent after it (plus the margin, for the clients' clocks) cannot have been answered,
     * whether or not the ids are read yet. Without it, that bound is the restore itself.
     */
    public AnsweredRequests withLatestWrite(long millis) {
        long micros = millis >= Long.MAX_VALUE / 1000 ? Long.MAX_VALUE : millis <= Long.MIN_VALUE / 1000 ? Long.MIN_VALUE : millis * 1000;
        return new AnsweredRequests(ids, anchorMillis, Math.min(writtenByMicros, micros), untilMicros, catchUpUntilMicros, marginMicros);
    }

    /** Where the read-back after a restore from a checkpoint anchored at {@code anchorMillis} starts. */
    public static long readFromMillis(long anchorMillis, Settings settings) {
        return Math.max(0, anchorMillis - settings.marginMs());
    }

    /**
     * Whether a result of {@code requestId}, a request sent at {@code sentAtMicros} (0 when the
     * request could not be decoded), must not be written because one is already out.
     */
    public boolean alreadyAnswered(String requestId, long sentAtMicros, long nowMicros) {
        return consults(sentAtMicros, nowMicros) && ids.contains(requestId);
    }

    /**
     * Whether the result of a request sent at {@code sentAtMicros} is looked up in the set at all:
     * while the set is still being read, only these results need wait for it.
     */
    public boolean consults(long sentAtMicros, long nowMicros) {
        return nowMicros < untilMicros && sentAtMicros < Micros.saturatedAdd(writtenByMicros, marginMicros);
    }

    /** Whether the set has been dropped: nothing is held back from now on. */
    public boolean expired(long nowMicros) {
        return nowMicros >= untilMicros;
    }

    /**
     * What a checkpoint triggered at {@code checkpointMillis} records as the start of the next
     * restore's read-back: the checkpoint itself, or, within the catch-up after a restore, the older
     * anchor this set was read for.
     */
    public long anchorFor(long checkpointMillis, long nowMicros) {
        return nowMicros >= catchUpUntilMicros ? checkpointMillis : Math.min(checkpointMillis, anchorMillis);
    }

    /** How many request ids are held. */
    public int size() {
        return ids.size();
    }
}
