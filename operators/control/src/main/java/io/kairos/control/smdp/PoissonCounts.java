package io.kairos.control.smdp;

/**
 * The number of Poisson arrivals in a fixed time: {@code p_k = e^-m m^k / k!} for mean {@code m}
 * (the paper's (4) with {@code m = lambda tau[b]}). Computed in log space, so that a large mean
 * neither underflows {@code e^-m} nor overflows {@code m^k}.
 */
final class PoissonCounts {
    private PoissonCounts() {}

    /** {@code p_0 .. p_n}, exact (to rounding). */
    static double[] pmf(double mean, int n) {
        if (!(mean >= 0)) throw new IllegalArgumentException("mean must not be negative, got " + mean);
        double[] p = new double[n + 1];
        if (mean == 0) {
            p[0] = 1;
            return p;
        }
        double logMean = Math.log(mean);
        double logFactorial = 0;
        for (int k = 0; k <= n; k++) {
            if (k > 0) logFactorial += Math.log(k);
            p[k] = Math.exp(-mean + k * logMean - logFactorial);
        }
        return p;
    }

    /**
     * {@code p_0 .. p_K} with {@code K} the first index past the mean whose remaining tail is below
     * {@code tail}; that tail's mass is added to {@code p_K}, so the row still sums to one (what
     * was far is moved a little nearer, by a mass too small to change a value function).
     */
    static double[] truncated(double mean, double tail) {
        if (!(tail > 0 && tail < 1)) throw new IllegalArgumentException("tail must be in (0, 1), got " + tail);
        int k = (int) Math.ceil(mean);
        while (true) {
            // Past the mode the terms fall at least geometrically with ratio r = m / (k + 1), so the
            // tail beyond k is at most p_k r / (1 - r).
            double[] p = pmf(mean, k);
            double r = mean / (k + 1);
            if (r < 1 && p[k] * r / (1 - r) < tail) {
                double sum = 0;
                for (double x : p) sum += x;
                p[k] += Math.max(0, 1 - sum);
                return p;
            }
            k += Math.max(4, k / 4);
        }
    }

    /** {@code upper[x] = sum over k > x of p_k} for x in 0..n, summed from the far end so that tiny tails keep their digits. */
    static double[] upperTails(double mean, int n) {
        int far = n + 1;
        // Extend until the terms beyond the mean have become negligible against the smallest tail asked for.
        double[] p;
        while (true) {
            p = pmf(mean, far);
            if (far > mean && (p[far] == 0 || p[far] < 1e-300)) break;
            far = far * 2 + 16;
        }
        double[] upper = new double[n + 1];
        double acc = 0;
        for (int k = far; k > n; k--) acc += p[k];
        for (int x = n; x >= 0; x--) {
            upper[x] = acc;
            acc += p[x];
        }
        return upper;
    }
}
