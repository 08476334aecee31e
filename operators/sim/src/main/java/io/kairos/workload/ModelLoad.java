package io.kairos.workload;

/**
 * One stream of requests: a tenant asking one model, each request with the same latency
 * objective, arriving as {@code process} says; with a window SLO when {@code windowStartMs} is
 * above 0 (the answer wanted between it and {@code sloMs} after the request).
 */
public record ModelLoad(String tenant, String model, double sloMs, ArrivalProcess process, double windowStartMs) {

    public static final String DEFAULT_TENANT = "default";

    /** A load without a window. */
    public ModelLoad(String tenant, String model, double sloMs, ArrivalProcess process) {
        this(tenant, model, sloMs, process, 0);
    }

    public ModelLoad {
        if (!(windowStartMs >= 0) || windowStartMs > sloMs) {
            throw new IllegalArgumentException("window start must be a number of milliseconds from 0 to the SLO (" + sloMs + "), got " + windowStartMs);
        }
        if (tenant == null || tenant.isBlank()) throw new IllegalArgumentException("tenant must not be empty");
        if (model == null || model.isBlank()) throw new IllegalArgumentException("model must not be empty");
        if (!(sloMs > 0) || Double.isInfinite(sloMs)) {
            throw new IllegalArgumentException("SLO must be a positive number of milliseconds, got " + sloMs);
        }
        if (process == null) throw new IllegalArgumentException("arrival process must be given");
    }

    /** A load at a mean rate with arrivals spaced as {@code arrivals} says, e.g. Poisson at 400 requests per second. */
    public static ModelLoad of(String tenant, String model, double ratePerSecond, double sloMs, ArrivalSpec arrivals) {
        if (arrivals == null) throw new IllegalArgumentException("arrival spec must be given");
        return new ModelLoad(tenant, model, sloMs, arrivals.at(ratePerSecond));
    }

    /** The same load with a window starting {@code windowStartMs} after each request. */
    public ModelLoad withWindow(double windowStartMs) {
        return new ModelLoad(tenant, model, sloMs, process, windowStartMs);
    }

    /** The long-run mean rate of the process; for a replay, its arrivals over its length. */
    public double ratePerSecond() {
        return process.meanRatePerSecond();
    }
}
