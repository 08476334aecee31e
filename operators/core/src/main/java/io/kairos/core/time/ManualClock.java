package io.kairos.core.time;

import io.kairos.core.api.Internal;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock that stands still until it is told to move: for tests that drive a function and decide
 * what time it is. Safe to read from other threads (a device's completions). A copy made by
 * serialization is a clock of its own, so share one only with functions that are not serialized
 * (an operator test harness, not a mini-cluster).
 */
@Internal
public final class ManualClock implements Clock {
    private static final long serialVersionUID = 1L;

    private final AtomicLong nowMicros;

    public ManualClock(long startMicros) {
        this.nowMicros = new AtomicLong(startMicros);
    }

    @Override
    public long nowMicros() {
        return nowMicros.get();
    }

    public void set(long micros) {
        nowMicros.set(micros);
    }

    /** Moves the clock forward by {@code micros} and returns the new time. */
    public long advance(long micros) {
        if (micros < 0) throw new IllegalArgumentException("a clock does not go back, got " + micros + " us");
        return nowMicros.addAndGet(micros);
    }
}
