package io.kairos.core.device;

import io.kairos.core.api.Internal;
import java.util.SplittableRandom;

/**
 * How far a real execution strays from its profiled latency. GPUs are predictable (Clockwork's
 * premise) but not exact; noise shows how much a policy relies on that.
 */
@Internal
public interface ExecutionNoise {

    /** The actual latency of a batch whose profile says {@code profiledMicros}; at least 1 us. */
    long actualMicros(long profiledMicros, SplittableRandom random);

    /** Every batch takes exactly its profiled latency. */
    static ExecutionNoise none() {
        return (profiled, random) -> profiled;
    }

    /**
     * The profiled latency plus an overrun drawn from {@code overrunsMicros}, samples of how much
     * longer than their profile batches really ran on a device (the fidelity check measures them
     * on the job's devices), so that a simulation runs its devices as late as they are.
     */
    static ExecutionNoise overrun(long[] overrunsMicros) {
        if (overrunsMicros.length == 0) throw new IllegalArgumentException("an empirical overrun needs at least one sample");
        long[] samples = overrunsMicros.clone();
        return (profiled, random) -> Math.max(1, profiled + samples[random.nextInt(samples.length)]);
    }

    /**
     * A log-normal factor with mean 1 and the given coefficient of variation: never negative,
     * right-skewed like real stragglers, and the profile stays the mean.
     */
    static ExecutionNoise lognormal(double cv) {
        if (!(cv >= 0) || Double.isInfinite(cv)) throw new IllegalArgumentException("noise CV must be a non-negative number, got " + cv);
        if (cv == 0) return none();
        double sigma = Math.sqrt(Math.log1p(cv * cv));
        double mu = -sigma * sigma / 2;
        return (profiled, random) -> {
            double factor = Math.exp(mu + sigma * gaussian(random));
            return Math.max(1, Math.round(profiled * factor));
        };
    }

    // Marsaglia's polar method; SplittableRandom has no nextGaussian on Java 17.
    private static double gaussian(SplittableRandom random) {
        double u, v, s;
        do {
            u = 2 * random.nextDouble() - 1;
            v = 2 * random.nextDouble() - 1;
            s = u * u + v * v;
        } while (s >= 1 || s == 0);
        return u * Math.sqrt(-2 * Math.log(s) / s);
    }
}
