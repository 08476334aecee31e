package io.kairos.core.scheduling;

import io.kairos.core.api.Internal;

/**
 * One model's arrival rate, estimated online from the arrivals its scheduler sees: an
 * exponentially decaying count of arrivals with time constant {@code window}, divided by what
 * that count is worth per request per second. Each arrival costs one exponential; the estimate
 * follows a change of rate within about a window, and falls when arrivals stop.
 *
 * <p>The count is corrected for a history shorter than the window: over {@code span} since the
 * first arrival, a Poisson stream of rate {@code lambda} leaves an expected decayed count of
 * {@code lambda T (1 - e^{-span/T})} after the first arrival, which is left out since it only marks
 * where the observation starts. So the estimate is unbiased from the second arrival on, not only
 * after a window has passed.
 */
@Internal
public final class ArrivalRate {
    private final double windowMicros;
    private long first = Long.MIN_VALUE;
    private long last;
    private double count; // decayed to `last`, the first arrival included

    /** @param windowMicros the time constant {@code T}, at least 1 */
    public ArrivalRate(long windowMicros) {
        if (windowMicros < 1) throw new IllegalArgumentException("the window must be at least 1 us, got " + windowMicros);
        this.windowMicros = windowMicros;
    }

    /** An arrival at {@code atMicros}; arrivals out of order count as at the latest one seen. */
    public void arrived(long atMicros) {
        if (first == Long.MIN_VALUE) {
            first = atMicros;
            last = atMicros;
            count = 1;
            return;
        }
        if (atMicros > last) {
            count *= Math.exp(-(atMicros - last) / windowMicros);
            last = atMicros;
        }
        count += 1;
    }

    /** When the first arrival came; {@code Long.MIN_VALUE} before it. */
    public long firstMicros() {
        return first;
    }

    /** When the latest arrival came; {@code Long.MIN_VALUE} before the first. */
    public long lastMicros() {
        return first == Long.MIN_VALUE ? Long.MIN_VALUE : last;
    }

    /** The estimated rate at {@code nowMicros}, requests per second; 0 before two arrivals' worth of history. */
    public double perSecond(long nowMicros) {
        if (first == Long.MIN_VALUE) return 0;
        long t = Math.max(nowMicros, last);
        double span = t - first;
        if (span <= 0) return 0;
        double decay = Math.exp(-(t - last) / windowMicros);
        double afterFirst = count * decay - Math.exp(-span / windowMicros);
        double worth = windowMicros * -Math.expm1(-span / windowMicros);
        return Math.max(0, afterFirst) / worth * 1e6;
    }
}
