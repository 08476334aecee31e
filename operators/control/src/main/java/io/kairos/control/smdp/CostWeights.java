package io.kairos.control.smdp;

/**
 * The weights of the objective {@code w1 * mean latency (ms) + w2 * mean power (W)}: {@code (1, 0)}
 * cares for latency only, {@code (1, 500)} all but for energy.
 */
public record CostWeights(double latency, double power) {

    public CostWeights {
        if (!(latency >= 0) || !Double.isFinite(latency)) throw new IllegalArgumentException("latency weight w1 must be a non-negative number, got " + latency);
        if (!(power >= 0) || !Double.isFinite(power)) throw new IllegalArgumentException("power weight w2 must be a non-negative number, got " + power);
        if (latency == 0 && power == 0) throw new IllegalArgumentException("at least one of the weights w1, w2 must be positive");
    }

    public static CostWeights of(double w1, double w2) {
        return new CostWeights(w1, w2);
    }
}
