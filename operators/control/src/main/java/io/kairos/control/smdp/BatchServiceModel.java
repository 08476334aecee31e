package io.kairos.control.smdp;

import io.kairos.core.model.ModelSpec;

import java.util.Arrays;

/**
 * One model's queue on one device as the SMDP paper models it: Poisson arrivals at
 * {@code arrivalRate} requests per millisecond, and for every batch size {@code b} in
 * {@code 1..maxBatch} a deterministic latency {@code tau(b)} (ms) and energy {@code zeta(b)} (mJ).
 * Latency must not fall as the batch grows (a bigger batch never ends sooner).
 */
public final class BatchServiceModel {
    private final double arrivalRate;
    private final double[] latencyMs;
    private final double[] energyMj;

    /**
     * @param latencyMs {@code tau(b)} at index {@code b - 1}
     * @param energyMj  {@code zeta(b)} at index {@code b - 1}, the same length; NaN where unknown
     */
    public BatchServiceModel(double arrivalRate, double[] latencyMs, double[] energyMj) {
        if (!(arrivalRate > 0) || !Double.isFinite(arrivalRate)) throw new IllegalArgumentException("arrival rate must be a positive number of requests per ms, got " + arrivalRate);
        if (latencyMs.length == 0 || latencyMs.length != energyMj.length) {
            throw new IllegalArgumentException("need one latency and one energy per batch size 1..B_max, got " + latencyMs.length + " and " + energyMj.length);
        }
        for (int i = 0; i < latencyMs.length; i++) {
            if (!(latencyMs[i] > 0) || !Double.isFinite(latencyMs[i])) throw new IllegalArgumentException("tau(" + (i + 1) + ") must be a positive number of ms, got " + latencyMs[i]);
            if (i > 0 && latencyMs[i] < latencyMs[i - 1]) {
                throw new IllegalArgumentException("tau(b) must not fall as b grows: tau(" + (i + 1) + ") = " + latencyMs[i] + " < tau(" + i + ") = " + latencyMs[i - 1]);
            }
            // NaN is an unknown energy (a catalog model never measured), not a wrong one.
            if (!Double.isNaN(energyMj[i]) && (energyMj[i] < 0 || Double.isInfinite(energyMj[i]))) {
                throw new IllegalArgumentException("zeta(" + (i + 1) + ") must be a non-negative number of mJ, got " + energyMj[i]);
            }
        }
        this.arrivalRate = arrivalRate;
        this.latencyMs = latencyMs.clone();
        this.energyMj = energyMj.clone();
    }

    /** The paper's linear lines {@code tau(b) = alpha b + tau0}, {@code zeta(b) = beta b + zeta0} for b in 1..maxBatch. */
    public static BatchServiceModel linear(double arrivalRate, double alphaMs, double tau0Ms, double betaMj, double zeta0Mj, int maxBatch) {
        if (maxBatch < 1) throw new IllegalArgumentException("B_max must be at least 1, got " + maxBatch);
        double[] tau = new double[maxBatch];
        double[] zeta = new double[maxBatch];
        for (int b = 1; b <= maxBatch; b++) {
            tau[b - 1] = alphaMs * b + tau0Ms;
            zeta[b - 1] = betaMj * b + zeta0Mj;
        }
        return new BatchServiceModel(arrivalRate, tau, zeta);
    }

    /**
     * A catalog model at {@code requestsPerSecond}: every batch size up to its largest allowed one,
     * each running (and costing) as its padded size does. A model whose energy is unknown can be
     * solved for latency alone ({@code w2 = 0}): its energies are then NaN, and a positive power
     * weight is refused by {@link TruncatedSmdp}.
     */
    public static BatchServiceModel of(ModelSpec spec, double requestsPerSecond) {
        int max = spec.latency().maxBatch();
        double[] tau = new double[max];
        double[] zeta = new double[max];
        for (int b = 1; b <= max; b++) {
            tau[b - 1] = spec.latency().latencyMicros(b) / 1000.0;
            zeta[b - 1] = spec.batchEnergyMillijoules(b).orElse(Double.NaN);
        }
        return new BatchServiceModel(requestsPerSecond / 1000.0, tau, zeta);
    }

    /** The same device at another arrival rate. */
    public BatchServiceModel withArrivalRate(double rate) {
        return new BatchServiceModel(rate, latencyMs, energyMj);
    }

    /** The same device at {@code rho = lambda / mu[B_max]}. */
    public BatchServiceModel atLoad(double rho) {
        if (!(rho > 0) || !(rho < 1)) throw new IllegalArgumentException("load rho must be in (0, 1), got " + rho);
        return withArrivalRate(rho * maxThroughput());
    }

    public double arrivalRate() {
        return arrivalRate;
    }

    public int maxBatch() {
        return latencyMs.length;
    }

    /** {@code tau(b)}, ms. */
    public double latencyMs(int b) {
        return latencyMs[b - 1];
    }

    /** {@code zeta(b)}, mJ; NaN when the energy is unknown. */
    public double energyMj(int b) {
        return energyMj[b - 1];
    }

    public boolean energyKnown() {
        for (double z : energyMj) if (Double.isNaN(z)) return false;
        return true;
    }

    /** {@code mu[b] = b / tau(b)}, requests per ms. */
    public double throughput(int b) {
        return b / latencyMs[b - 1];
    }

    /** {@code mu[B_max]}: with a latency that grows linearly, the most the device can serve per ms. */
    public double maxThroughput() {
        return throughput(maxBatch());
    }

    /** {@code rho = lambda / mu[B_max]}. */
    public double load() {
        return arrivalRate / maxThroughput();
    }

    @Override
    public String toString() {
        return String.format(java.util.Locale.ROOT, "lambda %.4g/ms, B_max %d, tau %s ms, zeta %s mJ", arrivalRate, maxBatch(),
                Arrays.toString(Arrays.copyOf(latencyMs, Math.min(3, latencyMs.length))), Arrays.toString(Arrays.copyOf(energyMj, Math.min(3, energyMj.length))));
    }
}
