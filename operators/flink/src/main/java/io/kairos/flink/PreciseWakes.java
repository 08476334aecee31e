package io.kairos.flink;

/**
 * Wakes a key's timer callback at a moment in µs, sooner than Flink's processing-time timer for
 * its millisecond, which fires 0 to 2 ms after it ({@link ProcessingTimers}). A function that takes
 * these still sets Flink's timer: that one is keyed state, kept by checkpoints, and fires after a
 * restore; the precise wake is only an earlier call of the same callback, which then finds the
 * work due and the later timer finds less to do.
 */
public interface PreciseWakes {
    /**
     * Calls the timer callback of {@code key} at {@code wakeMicros} on the clock whose present is
     * {@code nowMicros}, in the task's thread, unless an earlier wake of the key is already set.
     */
    void wakeAt(Object key, long wakeMicros, long nowMicros);

    /** A function that takes precise wakes from the operator that runs it. */
    interface Taker {
        void usePreciseWakes(PreciseWakes wakes);
    }
}
