package io.kairos.workload;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The arrival times of a sample of requests, microseconds from the first, in time order: what
 * InferLine's planner plans on (a sample query trace). Read from a file of timestamps, taken from
 * a topic's history, or drawn from any {@link ArrivalProcess} (a {@link CountsReplay}, Gamma or
 * MMPP arrivals of a given CV²) over a duration. Immutable.
 */
public final class ArrivalTrace {
    private final long[] micros;

    private ArrivalTrace(long[] sortedFromZero) {
        this.micros = sortedFromZero;
    }

    /**
     * The arrivals at these times (any unit of microseconds, any origin, any order): sorted and
     * shifted so that the first is at 0.
     *
     * @throws IllegalArgumentException for no arrival
     */
    public static ArrivalTrace of(long... timesMicros) {
        if (timesMicros.length == 0) throw new IllegalArgumentException("an arrival trace needs at least one arrival");
        long[] sorted = timesMicros.clone();
        Arrays.sort(sorted);
        long first = sorted[0];
        for (int i = 0; i < sorted.length; i++) sorted[i] -= first;
        return new ArrivalTrace(sorted);
    }

    /**
     * Reads a file of arrival timestamps in milliseconds, one per line (decimals allowed: {@code
     * 12.5}), in any order and from any origin (epoch milliseconds of a log as well as offsets);
     * blank lines and lines starting with {@code #} are skipped. A bad line is named in one line by
     * its number.
     */
    public static ArrivalTrace read(Path file) {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new IllegalArgumentException(file + ": cannot read the arrival trace (" + e.getMessage() + ")");
        }
        return parse(text, file.toString());
    }

    /** {@link #read}'s format from a string; problems name {@code source} and the line. */
    public static ArrivalTrace parse(String text, String source) {
        String[] lines = text.split("\r?\n", -1);
        long[] times = new long[Math.max(16, lines.length)];
        int n = 0;
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty() || line.startsWith("#")) continue;
            double ms;
            try {
                ms = Double.parseDouble(line);
            } catch (NumberFormatException e) {
                ms = Double.NaN;
            }
            if (!(ms >= 0) || ms > Long.MAX_VALUE / 1000.0 / 2) {
                throw new IllegalArgumentException(source + ": line " + (i + 1) + " '" + abbreviate(line)
                        + "' is not an arrival time (a non-negative number of milliseconds)");
            }
            times[n++] = Math.round(ms * 1000);
        }
        if (n == 0) throw new IllegalArgumentException(source + ": no arrival times; expected one time in milliseconds per line");
        return of(Arrays.copyOf(times, n));
    }

    /**
     * The arrivals of {@code process} in {@code [0, durationMicros)}, drawn from {@code seed}: a
     * replay's counts, or a rate with a CV², as a trace.
     *
     * @throws IllegalArgumentException if none falls in the duration
     */
    public static ArrivalTrace generate(ArrivalProcess process, long durationMicros, long seed) {
        if (durationMicros <= 0) throw new IllegalArgumentException("a trace's duration must be positive, got " + durationMicros + " us");
        ArrivalProcess.Gaps gaps = process.start(new SplittableRandom(seed));
        long[] times = new long[1024];
        int n = 0;
        long t = 0;
        while (true) {
            long gap = gaps.nextGapMicros();
            if (gap == ArrivalProcess.END || gap > durationMicros - t) break;
            t += gap;
            if (t >= durationMicros) break;
            if (n == times.length) times = Arrays.copyOf(times, n * 2);
            times[n++] = t;
        }
        if (n == 0) throw new IllegalArgumentException("no arrival of " + process + " falls within " + durationMicros / 1e6 + " s");
        long[] exact = Arrays.copyOf(times, n);
        // Drawn from time 0: the first arrival keeps its offset, so that a trace's duration and
        // rate are those asked for, not shortened by the first gap.
        return new ArrivalTrace(exact);
    }

    public int size() {
        return micros.length;
    }

    /** The {@code i}-th arrival, microseconds from the first (or from the start of a generated trace). */
    public long at(int i) {
        return micros[i];
    }

    /** Every arrival time, in order (a copy). */
    public long[] times() {
        return micros.clone();
    }

    /**
     * The arrivals before {@code micros}, as a trace of their own ({@link #of}: from its first):
     * the sample a planner plans on, the start of a longer trace.
     *
     * @throws IllegalArgumentException when none is before it
     */
    public ArrivalTrace before(long micros) {
        int n = 0;
        while (n < this.micros.length && this.micros[n] < micros) n++;
        return of(Arrays.copyOf(this.micros, n));
    }

    /** From time 0 to the last arrival, at least 1 us. */
    public long spanMicros() {
        return Math.max(1, micros[micros.length - 1]);
    }

    /**
     * Arrivals per second over the trace: {@code size / span}; InferLine's λ. A trace of one
     * arrival (or of arrivals at one instant) has no rate to speak of: its count over 1 us.
     */
    public double meanRatePerSecond() {
        return micros.length * 1e6 / spanMicros();
    }

    /** The squared coefficient of variation of the gaps between arrivals, InferLine's CV²_A; 0 with fewer than three arrivals. */
    public double cv2() {
        int gaps = micros.length - 1;
        if (gaps < 2) return 0;
        double mean = (micros[gaps] - micros[0]) / (double) gaps;
        if (mean == 0) return 0;
        double sq = 0;
        for (int i = 1; i <= gaps; i++) {
            double d = micros[i] - micros[i - 1] - mean;
            sq += d * d;
        }
        return sq / gaps / (mean * mean);
    }

    /** The trace as {@link #read} reads it: one time in milliseconds per line. */
    public void write(Path file) {
        StringBuilder s = new StringBuilder(micros.length * 12);
        for (long t : micros) s.append(t / 1000).append('.').append(String.format(Locale.ROOT, "%03d", t % 1000)).append('\n');
        try {
            Files.writeString(file, s);
        } catch (IOException e) {
            throw new UncheckedIOException(file + ": cannot write the arrival trace", e);
        }
    }

    private static String abbreviate(String line) {
        return line.length() <= 40 ? line : line.substring(0, 37) + "...";
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "trace(%d arrivals over %.3f s, %.4g/s, CV² %.3g)", micros.length, spanMicros() / 1e6, meanRatePerSecond(), cv2());
    }
}
