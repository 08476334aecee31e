package io.kairos.core.scheduling;

import io.kairos.core.api.PublicEvolving;

/**
 * What a device reports of a batch it ran: when it really started and ended, whether it first
 * loaded the model (a cold start), and whether it failed. The prediction it is compared with is in
 * the {@link Dispatch}.
 */
@PublicEvolving
public record BatchReport(Dispatch batch, long startMicros, long endMicros, boolean coldStart, boolean failed) {

    public BatchReport {
        if (endMicros < startMicros) throw new IllegalArgumentException("a batch cannot end (" + endMicros + ") before it starts (" + startMicros + ")");
    }

    /** A batch that ran to its end. */
    public static BatchReport ran(Dispatch batch, long startMicros, long endMicros, boolean coldStart) {
        return new BatchReport(batch, startMicros, endMicros, coldStart, false);
    }

    public long latencyMicros() {
        return endMicros - startMicros;
    }

    /** How much later than predicted it ended (negative: earlier). */
    public long endErrorMicros() {
        return endMicros - batch.predictedEndMicros();
    }
}
