package io.kairos.control;

import java.util.function.LongSupplier;

/**
 * A writer's decision versions: the wall clock in microseconds, and one more than the last
 * version whenever the clock has not moved on (two decisions in one microsecond, or a clock set
 * back while the writer runs).
 *
 * <p>Why time rather than a counter read back from the control topic at start: versions must
 * rise across restarts of the writer, and a one-shot {@code kairos control} starts afresh every
 * time. Reading the writer's last version back is not reliable: once a key is compacted, a
 * writer's highest version may be gone from the topic (another writer wrote that key since), and
 * a writer restarting below it would see its next decisions for that key taken for duplicates.
 * The clock needs no read; its one assumption, that the clock is not set back across a restart
 * by more than the time the restart took, is the usual one for a server's clock.
 */
public final class VersionClock {
    private final LongSupplier nowMicros;
    private long last = Long.MIN_VALUE;

    public VersionClock(LongSupplier nowMicros) {
        this.nowMicros = nowMicros;
    }

    /** A version above every one this clock gave before. */
    public synchronized long next() {
        long now = nowMicros.getAsLong();
        last = now > last ? now : last + 1;
        return last;
    }
}
