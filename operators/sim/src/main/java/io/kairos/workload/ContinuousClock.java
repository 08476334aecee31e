package io.kairos.workload;

/**
 * Turns arrival times on a continuous time line into whole-microsecond gaps without drift.
 *
 * <p>Rounding every gap on its own would bias the rate: at 3 requests per second each gap would be
 * 333,333 us and a run would slowly gain a request an hour; at high rates the error grows. Keeping
 * the exact time and handing out the difference of its rounded values makes the gaps sum to the
 * rounded exact time, so the mean rate is the one asked for.
 */
final class ContinuousClock {
    private double exactMicros;
    private long emittedMicros;

    /** Moves the exact time to {@code timeMicros} and returns the whole-microsecond gap to it. */
    long advanceTo(double timeMicros) {
        exactMicros = timeMicros;
        long rounded = Math.round(exactMicros);
        long gap = rounded - emittedMicros;
        emittedMicros = rounded;
        return gap;
    }

    long advanceBy(double gapMicros) {
        return advanceTo(exactMicros + gapMicros);
    }
}
