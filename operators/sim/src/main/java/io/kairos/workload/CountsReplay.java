package io.kairos.workload;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Replays a trace of arrival counts per interval: "100 0 300" at 1-second intervals is 100
 * arrivals in the first second, none in the second, 300 in the third, and then the stream ends
 * (its gaps become {@link ArrivalProcess#END}). Within an interval the arrivals fall uniformly at
 * random, which is a Poisson process conditioned on its count: the RL thesis' "Poisson trace
 * replay" with 1-second intervals, the Azure Functions trace with 60-second ones. The counts of
 * the trace are reproduced exactly.
 *
 * <p>A replay may be {@linkplain #scaled scaled}: each interval's count times the factor, rounded
 * down or up at random with the fraction as the probability of up (so 2.5 expected arrivals are 2
 * or 3, half the time each), drawn from the run's random source. The mean rate scales exactly; the
 * counts of one run are those of the trace only at factor 1.
 *
 * <p>The counts are never modified and, where a trace hands out windows of its rows, shared rather
 * than copied: 46,000 functions of a day's Azure trace are 265 MB of counts once, not twice.
 */
public final class CountsReplay implements ArrivalProcess {
    private final int[] counts;
    private final int from;
    private final int length;
    private final long intervalMicros;
    private final double scale;
    private final long totalCount;

    private CountsReplay(int[] counts, int from, int length, long intervalMicros, double scale) {
        if (length < 1) throw new IllegalArgumentException("a counts replay needs at least one interval");
        if (intervalMicros < 1) throw new IllegalArgumentException("replay interval must be at least 1 us, got " + intervalMicros);
        if (intervalMicros > Long.MAX_VALUE / 2 / length) {
            throw new IllegalArgumentException("a replay of " + length + " intervals of " + intervalMicros + " us is too long");
        }
        if (!(scale > 0) || Double.isInfinite(scale)) throw new IllegalArgumentException("replay scale must be a positive number, got " + scale);
        long total = 0;
        for (int i = from; i < from + length; i++) {
            if (counts[i] < 0) throw new IllegalArgumentException("replay count of interval " + (i - from + 1) + " is negative: " + counts[i]);
            total += counts[i];
        }
        this.counts = counts;
        this.from = from;
        this.length = length;
        this.intervalMicros = intervalMicros;
        this.scale = scale;
        this.totalCount = total;
    }

    /** A replay of these counts (copied), one per interval of {@code intervalMicros}. */
    public static CountsReplay of(long intervalMicros, int... counts) {
        return new CountsReplay(counts.clone(), 0, counts.length, intervalMicros, 1);
    }

    /** A replay of per-second counts, the RL thesis' trace format. */
    public static CountsReplay perSecond(int... counts) {
        return of(1_000_000, counts);
    }

    /**
     * A window of a trace row, shared, not copied: {@code counts} must never change afterwards.
     * For traces that own their rows, like {@link AzureTrace}.
     */
    static CountsReplay window(int[] counts, int from, int length, long intervalMicros, double scale) {
        if (from < 0 || length < 0 || from > counts.length - length) {
            throw new IllegalArgumentException("window [" + from + ", " + ((long) from + length) + ") is outside the " + counts.length + " intervals of the trace");
        }
        return new CountsReplay(counts, from, length, intervalMicros, scale);
    }

    /**
     * Reads whitespace-separated counts, e.g. {@code "100 0 300"}; a bad entry is named in one line
     * by its position.
     */
    public static CountsReplay parse(String text, long intervalMicros) {
        return parse(text, intervalMicros, "counts replay");
    }

    /** {@link #parse}s the counts in a text file (per-second counts with 1,000,000 us); errors name the file. */
    public static CountsReplay read(Path file, long intervalMicros) {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new IllegalArgumentException(file + ": cannot read counts file (" + e.getMessage() + ")");
        }
        return parse(text, intervalMicros, file.toString());
    }

    private static CountsReplay parse(String text, long intervalMicros, String source) {
        String trimmed = text == null ? "" : text.strip();
        if (trimmed.isEmpty()) throw new IllegalArgumentException(source + ": no counts; expected whitespace-separated counts, e.g. 100 0 300");
        String[] entries = trimmed.split("\\s+");
        int[] counts = new int[entries.length];
        for (int i = 0; i < entries.length; i++) {
            try {
                counts[i] = Integer.parseInt(entries[i]);
            } catch (NumberFormatException e) {
                counts[i] = -1;
            }
            if (counts[i] < 0) {
                throw new IllegalArgumentException(source + ": entry " + (i + 1) + " '" + entries[i] + "' is not a non-negative whole number");
            }
        }
        return new CountsReplay(counts, 0, counts.length, intervalMicros, 1);
    }

    /** This replay with every count multiplied by {@code factor} (on top of any earlier scaling); see the class comment. */
    public CountsReplay scaled(double factor) {
        return new CountsReplay(counts, from, length, intervalMicros, scale * factor);
    }

    public int intervals() {
        return length;
    }

    public long intervalMicros() {
        return intervalMicros;
    }

    /** The trace's count of interval {@code i}, before scaling. */
    public int count(int i) {
        if (i < 0 || i >= length) throw new IndexOutOfBoundsException("interval " + i + " of " + length);
        return counts[from + i];
    }

    /** Sum of the trace's counts, before scaling. */
    public long totalCount() {
        return totalCount;
    }

    public double scale() {
        return scale;
    }

    /** The length of the trace: after it, the stream has ended. */
    public long durationMicros() {
        return length * intervalMicros;
    }

    /** Arrivals per second over the whole trace, scaling included; 0 for a trace of zeros. */
    @Override
    public double meanRatePerSecond() {
        return totalCount * scale * 1_000_000.0 / durationMicros();
    }

    @Override
    public Gaps start(SplittableRandom random) {
        return new ReplayGaps(random);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CountsReplay r && r.intervalMicros == intervalMicros && r.scale == scale
                && Arrays.equals(counts, from, from + length, r.counts, r.from, r.from + r.length);
    }

    @Override
    public int hashCode() {
        int h = Long.hashCode(intervalMicros) * 31 + Double.hashCode(scale);
        for (int i = from; i < from + length; i++) h = h * 31 + counts[i];
        return h;
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "replay(%d x %s s, %d arrivals%s)", length, intervalMicros / 1e6, totalCount,
                scale == 1 ? "" : ", scaled x" + scale);
    }

    /** One run: the position in the trace and how many arrivals the current interval still has. */
    private final class ReplayGaps implements Gaps {
        private final SplittableRandom random;
        private int interval = -1;
        private long left;
        private double nowMicros;     // exact time of the previous arrival, or the start of the interval
        private long emittedMicros;   // whole-microsecond time of the previous arrival

        ReplayGaps(SplittableRandom random) {
            this.random = random;
        }

        @Override
        public long nextGapMicros() {
            while (left == 0) {
                if (interval + 1 >= length) return END;
                interval++;
                left = scaledCount(counts[from + interval]);
                nowMicros = interval * intervalMicros;
            }
            long end = (interval + 1) * intervalMicros;
            // The earliest of `left` uniform points in [now, end) lies 1 - V^(1/left) of the way,
            // V uniform in (0, 1]; the other points are uniform after it. expm1 keeps the fraction
            // exact when `left` is large and the fraction tiny.
            double v = 1.0 - random.nextDouble();
            nowMicros += (end - nowMicros) * -Math.expm1(Math.log(v) / left);
            left--;
            // Floor, not round: an arrival stays in its interval, so the counts replay exactly.
            long at = Math.min((long) nowMicros, end - 1);
            long gap = at - emittedMicros;
            emittedMicros = at;
            return gap;
        }

        private long scaledCount(int count) {
            if (scale == 1 || count == 0) return count;
            double x = count * scale;
            long n = (long) x;
            return random.nextDouble() < x - n ? n + 1 : n;
        }
    }
}
