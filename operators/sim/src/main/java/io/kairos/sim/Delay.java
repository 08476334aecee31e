package io.kairos.sim;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * A random delay in microseconds: here, the time from the scheduler's decision to the batch
 * reaching its device (in the Flink job, the hop from the scheduler operator to the device's
 * subtask). The scheduler does not see it; it shows as batches that start later than booked.
 */
@FunctionalInterface
public interface Delay {

    long sampleMicros(SplittableRandom random);

    Delay NONE = random -> 0;

    static Delay constant(long micros) {
        if (micros < 0) throw new IllegalArgumentException("a delay must not be negative, got " + micros + " us");
        return random -> micros;
    }

    /** Draws from measured delays, each equally likely: a simulator calibrated on a real run. */
    static Delay empirical(long[] samplesMicros) {
        if (samplesMicros.length == 0) throw new IllegalArgumentException("an empirical delay needs at least one sample");
        long[] s = Arrays.copyOf(samplesMicros, samplesMicros.length);
        for (long v : s) {
            if (v < 0) throw new IllegalArgumentException("a delay must not be negative, got " + v + " us");
        }
        return random -> s[random.nextInt(s.length)];
    }
}
