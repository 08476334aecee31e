package io.kairos.core.workload;

/**
 * One stream of requests: a tenant asking one model at a mean rate, each request with the same
 * latency objective, arriving as {@code arrivals} says.
 */
public record ModelLoad(String tenant, String model, double ratePerSecond, double sloMs, ArrivalKind arrivals) {

    public static final String DEFAULT_TENANT = "default";

    public ModelLoad {
        if (tenant == null || tenant.isBlank()) throw new IllegalArgumentException("tenant must not be empty");
        if (model == null || model.isBlank()) throw new IllegalArgumentException("model must not be empty");
        ArrivalProcess.checkRate(ratePerSecond);
        if (!(sloMs > 0) || Double.isInfinite(sloMs)) {
            throw new IllegalArgumentException("SLO must be a positive number of milliseconds, got " + sloMs);
        }
        if (arrivals == null) throw new IllegalArgumentException("arrival process kind must be given");
    }

    public ArrivalProcess process() {
        return arrivals.at(ratePerSecond);
    }
}
