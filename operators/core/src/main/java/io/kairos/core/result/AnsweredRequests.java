package io.kairos.core.result;

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
 *       client reuses an id.</li>
 *   <li>It is dropped {@link Settings#horizonMs} after the restore: by then the replay is long
 *       read. A replayed request whose result comes out later than that (a long SLO) can be
 *       written a second time.</li>
 *   <li>While it is in force, a checkpoint records the older anchor ({@link #anchorFor}): a second
 *       crash before the replay was read replays requests answered before the first one.</li>
 * </ul>
 *
 * <p>Plain data and arithmetic on "now" as given; the Flink function that applies it reads the
 * clock, the state and the results topic.
 */
public final class AnsweredRequests {

    /**
     * @param marginMs  how far before the checkpoint the read-back starts, and how far after the
     *                  restore a request's send time may lie and still be looked up
     * @param timeoutMs how long the read-back may take at most; beyond it the job goes on without
     *                  the set (and may write a duplicate)
     * @param horizonMs how long after the restore the set is kept
     */
    public record Settings(long marginMs, long timeoutMs, long horizonMs) implements Serializable {
        /** 2 s of margin, 5 s to read, kept 5 minutes. */
        public static final Settings DEFAULTS = new Settings(2_000, 5_000, 300_000);

        public Settings {
            if (marginMs < 0) throw new IllegalArgumentException("the read-back margin must not be negative, got " + marginMs + " ms");
            if (timeoutMs < 1) throw new IllegalArgumentException("the read-back timeout must be at least 1 ms, got " + timeoutMs);
            if (horizonMs < 1) throw new IllegalArgumentException("the answered requests must be kept at least 1 ms, got " + horizonMs);
        }
    }

    private static final AnsweredRequests NONE = new AnsweredRequests(Set.of(), Long.MAX_VALUE, Long.MIN_VALUE, Long.MIN_VALUE, 0);

    private final Set<String> ids;
    private final long anchorMillis;
    private final long restoredAtMicros;
    private final long untilMicros;
    private final long marginMicros;

    private AnsweredRequests(Set<String> ids, long anchorMillis, long restoredAtMicros, long untilMicros, long marginMicros) {
        this.ids = ids;
        this.anchorMillis = anchorMillis;
        this.restoredAtMicros = restoredAtMicros;
        this.untilMicros = untilMicros;
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
        return new AnsweredRequests(Set.copyOf(ids), anchorMillis, restoredAtMicros,
                saturatedAdd(restoredAtMicros, horizonMicros), Math.multiplyExact(settings.marginMs(), 1000L));
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
        return nowMicros < untilMicros && sentAtMicros < saturatedAdd(restoredAtMicros, marginMicros) && ids.contains(requestId);
    }

    /** Whether the set has been dropped: nothing is held back from now on. */
    public boolean expired(long nowMicros) {
        return nowMicros >= untilMicros;
    }

    /**
     * What a checkpoint triggered at {@code checkpointMillis} records as the start of the next
     * restore's read-back: the checkpoint itself, or, while this set is in force, the older anchor
     * it was read for.
     */
    public long anchorFor(long checkpointMillis, long nowMicros) {
        return expired(nowMicros) ? checkpointMillis : Math.min(checkpointMillis, anchorMillis);
    }

    /** How many request ids are held. */
    public int size() {
        return ids.size();
    }

    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return ((a ^ sum) & (b ^ sum)) < 0 ? (a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE) : sum;
    }
}
