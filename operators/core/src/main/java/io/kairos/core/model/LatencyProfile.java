package io.kairos.core.model;

import io.kairos.core.api.PublicEvolving;
import java.util.Arrays;

/**
 * How long a model takes on a device for each allowed batch size, in microseconds.
 *
 * <p>A batch whose size is not an allowed size runs padded to the next allowed one, so its
 * latency is that size's. Built either from a table (what the profiler measures) or from the
 * linear model {@code tau(b) = alpha * b + beta} that Clockwork, Shepherd and the SMDP paper use.
 */
@PublicEvolving
public final class LatencyProfile {
    private final int[] batchSizes;
    private final long[] latencyMicros;

    public LatencyProfile(int[] batchSizes, long[] latencyMicros) {
        if (batchSizes.length == 0 || batchSizes.length != latencyMicros.length) {
            throw new IllegalArgumentException("a latency profile needs one latency per batch size, and at least one size");
        }
        for (int i = 0; i < batchSizes.length; i++) {
            if (batchSizes[i] < 1 || (i > 0 && batchSizes[i] <= batchSizes[i - 1])) {
                throw new IllegalArgumentException("batch sizes must be positive and strictly increasing: " + Arrays.toString(batchSizes));
            }
            if (latencyMicros[i] < 0) {
                throw new IllegalArgumentException("latency must not be negative for batch size " + batchSizes[i]);
            }
        }
        this.batchSizes = batchSizes.clone();
        this.latencyMicros = latencyMicros.clone();
    }

    /** {@code tau(b) = alphaMs * b + betaMs} milliseconds at each of the given batch sizes. */
    public static LatencyProfile linear(double alphaMs, double betaMs, int... batchSizes) {
        long[] latency = new long[batchSizes.length];
        for (int i = 0; i < batchSizes.length; i++) {
            latency[i] = Math.round((alphaMs * batchSizes[i] + betaMs) * 1000.0);
        }
        return new LatencyProfile(batchSizes, latency);
    }

    /** Batch sizes 1, 2, 4, ... up to and including {@code max} (which need not be a power of two). */
    public static int[] powersOfTwoUpTo(int max) {
        int n = 0;
        for (int b = 1; b < max; b <<= 1) n++;
        int[] sizes = new int[n + 1];
        for (int i = 0, b = 1; i < n; i++, b <<= 1) sizes[i] = b;
        sizes[n] = max;
        return sizes;
    }

    public int maxBatch() {
        return batchSizes[batchSizes.length - 1];
    }

    public int[] batchSizes() {
        return batchSizes.clone();
    }

    public int batchSizeCount() {
        return batchSizes.length;
    }

    /** The i-th allowed batch size, smallest first. */
    public int batchSizeAt(int i) {
        return batchSizes[i];
    }

    public long latencyAt(int i) {
        return latencyMicros[i];
    }

    /** The allowed size a batch of {@code size} requests runs as: the smallest allowed size not below it. */
    public int paddedSize(int size) {
        for (int b : batchSizes) {
            if (b >= size) return b;
        }
        throw new IllegalArgumentException("batch of " + size + " exceeds the largest allowed size " + maxBatch());
    }

    /** Latency of a batch of {@code size} requests, which runs padded to the next allowed size. */
    public long latencyMicros(int size) {
        for (int i = 0; i < batchSizes.length; i++) {
            if (batchSizes[i] >= size) return latencyMicros[i];
        }
        throw new IllegalArgumentException("batch of " + size + " exceeds the largest allowed size " + maxBatch());
    }

    /**
     * The same sizes, each taking {@code micros} longer (a model's pre- and post-processing beside
     * its inference); this very profile when {@code micros} is 0.
     */
    public LatencyProfile plus(long micros) {
        if (micros == 0) return this;
        long[] longer = new long[latencyMicros.length];
        for (int i = 0; i < longer.length; i++) longer[i] = latencyMicros[i] + micros;
        return new LatencyProfile(batchSizes, longer);
    }

    /** The largest allowed batch size not above {@code n}; 0 when even the smallest is above it. */
    public int largestSizeAtMost(int n) {
        int best = 0;
        for (int b : batchSizes) {
            if (b <= n) best = b;
        }
        return best;
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("{");
        for (int i = 0; i < batchSizes.length; i++) {
            if (i > 0) s.append(", ");
            s.append(batchSizes[i]).append(": ").append(latencyMicros[i] / 1000.0).append(" ms");
        }
        return s.append('}').toString();
    }
}
