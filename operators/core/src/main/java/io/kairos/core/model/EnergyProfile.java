package io.kairos.core.model;

import io.kairos.core.api.PublicEvolving;

/**
 * The energy a batch takes on a device, in millijoules: {@code zeta(b) = beta * b + zeta0}, the
 * linear fit the SMDP batching paper makes of board power times batch time (GoogLeNet on a Tesla
 * P4: {@code 19.90 b + 19.60} mJ). A model without one has an unknown energy, not a zero one.
 */
@PublicEvolving
public record EnergyProfile(double betaMj, double zeta0Mj) {

    public EnergyProfile {
        if (!(betaMj >= 0) || !Double.isFinite(betaMj)) throw new IllegalArgumentException("energy per request (beta) must be a non-negative number of mJ, got " + betaMj);
        if (!(zeta0Mj >= 0) || !Double.isFinite(zeta0Mj)) throw new IllegalArgumentException("energy per batch (zeta0) must be a non-negative number of mJ, got " + zeta0Mj);
    }

    /** Millijoules for a batch of {@code size} requests as it runs (a padded batch costs its padded size). */
    public double millijoules(int size) {
        if (size < 1) throw new IllegalArgumentException("batch size must be positive, got " + size);
        return betaMj * size + zeta0Mj;
    }
}
