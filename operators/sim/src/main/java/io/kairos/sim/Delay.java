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

    /**
     * The delay of something sent at {@code nowMicros} on the simulator's clock. Most delays do
     * not depend on when ({@link #timeline} does), so the default draws as {@link #sampleMicros(SplittableRandom)}.
     */
    default long sampleMicros(SplittableRandom random, long nowMicros) {
        return sampleMicros(random);
    }

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

    /**
     * Replays measured delays in the order and at the times they happened, cyclically: something
     * sent at {@code now} takes the delay of the last sample at or before {@code now} modulo the
     * samples' span. Unlike {@link #empirical}, which draws each delay on its own, this keeps
     * their correlation in time: in a JVM, a collection or a starved core delays every hand-over
     * of its few milliseconds, on every device at once, and queues behind such a stall make a
     * tail that independent draws of the same delays do not.
     *
     * @param atMicros     when each sample happened, ascending, on any clock
     * @param delaysMicros each sample's delay
     */
    static Delay timeline(long[] atMicros, long[] delaysMicros) {
        if (atMicros.length == 0 || atMicros.length != delaysMicros.length) {
            throw new IllegalArgumentException("a timeline needs as many times as delays, at least one, got " + atMicros.length + " and " + delaysMicros.length);
        }
        long[] at = new long[atMicros.length];
        long[] delay = Arrays.copyOf(delaysMicros, delaysMicros.length);
        for (int i = 0; i < at.length; i++) {
            at[i] = atMicros[i] - atMicros[0];
            if (i > 0 && at[i] < at[i - 1]) throw new IllegalArgumentException("a timeline's times must ascend, got " + atMicros[i] + " after " + atMicros[i - 1]);
            if (delay[i] < 0) throw new IllegalArgumentException("a delay must not be negative, got " + delay[i] + " us");
        }
        // One sample spans one microsecond, so that a cycle is never empty.
        long span = at[at.length - 1] + 1;
        return new Delay() {
            @Override
            public long sampleMicros(SplittableRandom random) {
                return delay[random.nextInt(delay.length)];
            }

            @Override
            public long sampleMicros(SplittableRandom random, long nowMicros) {
                long t = Math.floorMod(nowMicros, span);
                int i = Arrays.binarySearch(at, t);
                if (i < 0) i = -i - 2;
                // Equal times: the last of them.
                while (i + 1 < at.length && at[i + 1] == at[i]) i++;
                return delay[i];
            }
        };
    }
}
