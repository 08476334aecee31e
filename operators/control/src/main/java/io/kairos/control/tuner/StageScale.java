package io.kairos.control.tuner;

import java.io.Serializable;
import java.util.Locale;

/**
 * What the tuner knows of one stage (model) of a planned pipeline: the terms of
 * {@code k_m = ceil(r_max · s_m / (mu_m · rho_m))}.
 *
 * <p>{@code rho_m}, the maximum provisioning ratio, is the planned configuration's: the load the
 * plan puts on the stage's replicas, {@code s_m · R / (k_plan · mu_m)}, for the planning trace's
 * rate {@code R}. That rate depends on the time scale (a trace's busiest second is well above its
 * mean), so the ratio is taken at the window whose rate decides ({@link #provisioningRatio}): the
 * planning trace's own envelope then gives back exactly the planned replicas at every window, and
 * a window whose traffic is {@code x} times the planning trace's asks for {@code x} times the
 * replicas, which keeps the headroom the plan found its bursts need.
 *
 * @param stage             the stage's name
 * @param group             the serving group that serves it
 * @param model             its model
 * @param hardwareType      its replicas' hardware type: the tuner changes replica counts only, never hardware
 * @param scaleFactor       {@code s_m}: the share of the pipeline's requests that reach it
 * @param replicaThroughput {@code mu_m}: requests per second one replica serves at the stage's max batch
 * @param maxBatch          the stage's max batch, at which {@code mu_m} is taken
 * @param plannedReplicas   the planner's replica count
 */
public record StageScale(String stage, String group, String model, String hardwareType, double scaleFactor, double replicaThroughput,
                         int maxBatch, int plannedReplicas) implements Serializable {

    public StageScale {
        if (!(scaleFactor >= 0) || scaleFactor > 1) throw new IllegalArgumentException("stage '" + stage + "': scale factor must be in [0, 1], got " + scaleFactor);
        if (!(replicaThroughput > 0) || Double.isInfinite(replicaThroughput)) {
            throw new IllegalArgumentException("stage '" + stage + "': replica throughput must be a positive number, got " + replicaThroughput);
        }
        if (maxBatch < 1) throw new IllegalArgumentException("stage '" + stage + "': max batch must be at least 1, got " + maxBatch);
        if (plannedReplicas < 1) throw new IllegalArgumentException("stage '" + stage + "': planned replicas must be at least 1, got " + plannedReplicas);
    }

    /** {@code rho_m} at a window where the planning trace's rate is {@code sampleRate}: {@code s_m · sampleRate / (k_plan · mu_m)}. */
    public double provisioningRatio(double sampleRate) {
        return scaleFactor * sampleRate / (plannedReplicas * replicaThroughput);
    }

    /**
     * {@code k_m = ceil(rate · s_m / (mu_m · rho_m))}, at least 1, for the rate of a window where
     * the planning trace's rate is {@code sampleRate}. A result within rounding of a whole number
     * (the planning trace's own rate: {@code k_plan} exactly) is not rounded up. A stage no
     * request reaches ({@code s_m} 0) keeps its planned replicas.
     */
    public int replicasFor(double rate, double sampleRate) {
        if (scaleFactor == 0 || !(sampleRate > 0)) return plannedReplicas;
        double k = rate * scaleFactor / (replicaThroughput * provisioningRatio(sampleRate));
        return Math.max(1, (int) Math.ceil(k - 1e-9 * Math.max(1, k)));
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "%s (%s on %s, b%d): s %.3g, mu %.4g/s, planned %d", stage, model, hardwareType, maxBatch, scaleFactor,
                replicaThroughput, plannedReplicas);
    }
}
