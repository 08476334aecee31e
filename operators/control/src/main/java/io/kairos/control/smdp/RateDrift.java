package io.kairos.control.smdp;

/**
 * When a model's batching table is due to be solved again: its estimated arrival rate has moved
 * from the rate the table was solved for by more than {@code share} of that rate, either way. The
 * optimal table depends on the rate (its control limit falls as the load rises), so a table solved
 * for another load serves batches that are too small or waits too long. The rule the tuner applies
 * to the rate estimates in the job's telemetry ({@code arrival_rate_per_s}) before it runs
 * {@link TablePlanner} again; engine-free, so that the simulator can evaluate it first.
 *
 * @param share the relative change that calls for a new table, e.g. 0.2 for 20 %
 */
public record RateDrift(double share) {
    public RateDrift {
        if (!(share > 0) || Double.isInfinite(share)) throw new IllegalArgumentException("the drift share must be a positive number, got " + share);
    }

    /** Whether {@code estimatePerSecond} is more than {@code share} away from {@code solvedForPerSecond}. */
    public boolean drifted(double solvedForPerSecond, double estimatePerSecond) {
        if (!(solvedForPerSecond > 0)) throw new IllegalArgumentException("the rate a table was solved for must be positive, got " + solvedForPerSecond);
        return Math.abs(estimatePerSecond - solvedForPerSecond) > share * solvedForPerSecond;
    }
}
