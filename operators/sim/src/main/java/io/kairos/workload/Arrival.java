package io.kairos.workload;

/**
 * One request to send: when (microseconds from the start of the run), for whom, to which model,
 * with what SLO, and with what window start ({@code windowStartMs} after it is sent, the earliest
 * its answer is wanted; 0: no window).
 */
public record Arrival(long offsetMicros, String tenant, String model, double sloMs, double windowStartMs) {

    /** An arrival without a window. */
    public Arrival(long offsetMicros, String tenant, String model, double sloMs) {
        this(offsetMicros, tenant, model, sloMs, 0);
    }

    public boolean hasWindow() {
        return windowStartMs > 0;
    }
}
