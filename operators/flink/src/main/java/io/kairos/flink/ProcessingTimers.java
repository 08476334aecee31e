package io.kairos.flink;

/**
 * The processing-time timer, in Flink's whole milliseconds, for a moment the engine-free core gives
 * in microseconds: a policy's wake.
 *
 * <p>Flink fires a timer for t ms after a delay of t − now + 1 ms, now in whole ms
 * ({@code ProcessingTimeServiceUtil.getProcessingTimeDelay}), so at t + 1 ms and the part of a
 * millisecond the clock had gone past now. The timer for the millisecond the moment falls in
 * therefore fires after it, never before, 0 to 2 ms late and 1 on average; the next whole ms, the
 * moment rounded up, would fire 1 to 3 ms late.
 *
 * <p>A timer can still fire in its own millisecond where processing time is not the wall clock's
 * (a test harness, a clock set back). Its callback must then set the next millisecond, never the
 * same one: Flink fires a timer set inside a timer's callback for a time already past at once, and
 * the keyed timer service fires every timer at or before the one it is firing.
 */
final class ProcessingTimers {
    private ProcessingTimers() {}

    /** The timer's ms for {@code micros}: the millisecond it falls in. */
    static long millisFor(long micros) {
        return Math.floorDiv(micros, 1000);
    }

    /** The timer's ms for {@code micros}, set inside the callback of the timer for {@code firedMillis}: after it. */
    static long millisFor(long micros, long firedMillis) {
        return after(millisFor(micros), firedMillis);
    }

    /** A timer for {@code millis}, set inside the callback of the timer for {@code firedMillis}: no earlier than the ms after it. */
    static long after(long millis, long firedMillis) {
        return Math.max(millis, firedMillis + 1);
    }
}
