package io.kairos.tools.client;

import java.util.concurrent.locks.LockSupport;

/**
 * Holds a sender back until each arrival's moment in real time, counted from one start instant,
 * and says how late it let it go.
 *
 * <p>Open loop: the schedule never waits for the system under test. When the sender falls
 * behind (a slow send, a GC pause) the next arrivals go out at once, and the lag is reported
 * rather than hidden by shifting the schedule, which would lower the offered rate.
 *
 * <p>Parking alone wakes up tens of microseconds late on Linux (timer slack); spinning alone
 * burns a core. So it parks until {@value #SPIN_NANOS} ns before the moment and spins the rest.
 */
public final class OpenLoopPacer {
    /** Parking is accurate to about this much; the last stretch is spun. */
    static final long SPIN_NANOS = 50_000;

    private final long startNanos;

    /** A pacer whose time zero is now. */
    public OpenLoopPacer() {
        this(System.nanoTime());
    }

    public OpenLoopPacer(long startNanos) {
        this.startNanos = startNanos;
    }

    public long startNanos() {
        return startNanos;
    }

    /** Microseconds since the start. */
    public long elapsedMicros() {
        return (System.nanoTime() - startNanos) / 1_000;
    }

    /**
     * Returns once {@code offsetMicros} have passed since the start: at once when that moment is
     * already past. Returns how far behind the moment it is then, in microseconds (0 when on time).
     *
     * @throws InterruptedException when the thread is interrupted while waiting
     */
    public long awaitOffset(long offsetMicros) throws InterruptedException {
        long target = startNanos + offsetMicros * 1_000;
        long remaining;
        while ((remaining = target - System.nanoTime()) > SPIN_NANOS) {
            LockSupport.parkNanos(remaining - SPIN_NANOS);
            if (Thread.interrupted()) throw new InterruptedException();
        }
        while ((remaining = target - System.nanoTime()) > 0) Thread.onSpinWait();
        return -remaining / 1_000;
    }
}
