package io.kairos.control.tuner;

import java.io.Serializable;
import java.util.Arrays;
import java.util.Locale;

/**
 * How the tuner watches the traffic and when it may act.
 *
 * @param bucketMicros        the envelope's counting grid ({@link ArrivalEnvelope})
 * @param windowsMicros       the window sizes of the envelope, ascending, each a whole number of buckets
 * @param lookbackMicros      how far back a window's end may lie when the recent peak is taken: the
 *                            traffic a decision answers for
 * @param scaleDownQuietMicros Algorithm 4: no replica is removed sooner than this after the last change
 * @param tickMicros          how often the rules are evaluated
 */
public record TunerSettings(long bucketMicros, long[] windowsMicros, long lookbackMicros, long scaleDownQuietMicros, long tickMicros) implements Serializable {
    /**
     * 100-ms buckets; windows of 1 s, 5 s and 30 s (InferLine's "several time scales"; the notes
     * give no sizes); a look-back of 30 s; scale-down no sooner than 15 s after a change (the
     * paper's); evaluated every 250 ms, so that a step is acted on within a second. Windows longer
     * than the look-back ({@link #LONG_WINDOWS}) hold the replicas of a past peak for as long as
     * the window: the tuner's experiment measured what they cost.
     */
    public static final TunerSettings DEFAULT = new TunerSettings(100_000, new long[]{1_000_000, 5_000_000, 30_000_000},
            30_000_000, 15_000_000, 250_000);

    /** {@link #DEFAULT} with windows of 1 and 5 minutes too: slower to give replicas back after a peak. */
    public static final TunerSettings LONG_WINDOWS = new TunerSettings(100_000, new long[]{1_000_000, 5_000_000, 30_000_000, 60_000_000, 300_000_000},
            30_000_000, 15_000_000, 250_000);

    public TunerSettings {
        windowsMicros = windowsMicros.clone();
        ArrivalEnvelope.windowBuckets(bucketMicros, windowsMicros);
        if (lookbackMicros < bucketMicros || lookbackMicros % bucketMicros != 0) {
            throw new IllegalArgumentException("the look-back (" + lookbackMicros + " us) must be a whole number of buckets of " + bucketMicros + " us");
        }
        if (scaleDownQuietMicros < 0) throw new IllegalArgumentException("the scale-down quiet time must not be negative, got " + scaleDownQuietMicros + " us");
        if (tickMicros <= 0) throw new IllegalArgumentException("the tick must be positive, got " + tickMicros + " us");
    }

    @Override
    public long[] windowsMicros() {
        return windowsMicros.clone();
    }

    /** An empty envelope on these settings. */
    public ArrivalEnvelope envelope() {
        return new ArrivalEnvelope(bucketMicros, windowsMicros, lookbackMicros);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TunerSettings s && s.bucketMicros == bucketMicros && Arrays.equals(s.windowsMicros, windowsMicros)
                && s.lookbackMicros == lookbackMicros && s.scaleDownQuietMicros == scaleDownQuietMicros && s.tickMicros == tickMicros;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(bucketMicros) * 31 + Arrays.hashCode(windowsMicros);
    }

    @Override
    public String toString() {
        StringBuilder w = new StringBuilder();
        for (long m : windowsMicros) w.append(w.length() == 0 ? "" : ",").append(seconds(m));
        return String.format(Locale.ROOT, "windows %s s, bucket %s s, look-back %s s, scale-down after %s s, tick %s s", w, seconds(bucketMicros),
                seconds(lookbackMicros), seconds(scaleDownQuietMicros), seconds(tickMicros));
    }

    private static String seconds(long micros) {
        double s = micros / 1e6;
        return s == Math.rint(s) ? Long.toString((long) s) : Double.toString(s);
    }
}
