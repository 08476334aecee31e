package io.kairos.core.time;

import io.kairos.core.api.Internal;

/** Arithmetic on instants and durations in microseconds. */
@Internal
public final class Micros {
    private Micros() {}

    /**
     * {@code a + b}, held at {@link Long#MAX_VALUE} or {@link Long#MIN_VALUE} where it would
     * overflow: an instant plus a duration of centuries is "never", not a time in the past.
     */
    public static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return ((a ^ sum) & (b ^ sum)) < 0 ? (a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE) : sum;
    }
}
