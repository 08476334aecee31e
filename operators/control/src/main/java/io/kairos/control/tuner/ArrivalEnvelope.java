package io.kairos.control.tuner;

import io.kairos.workload.ArrivalTrace;

import java.util.Arrays;

/**
 * The arrival envelope of one pipeline (or model): for each of several window sizes, the most
 * arrivals in any window of that size, as a rate. InferLine's tuner compares the envelope of the
 * recent traffic with the planning trace's, window by window (Algorithm 3).
 *
 * <p>Arrivals are counted in buckets of a fixed length (e.g. 100 ms) on a grid from time 0; a
 * window is a whole number of buckets, so that a window's count is a sum of buckets and the
 * planning trace ({@link #sampleRates}) and the live traffic ({@link #peakRates}) are measured on
 * the same grid. The live envelope keeps the buckets of the largest window plus a look-back in a
 * ring: memory is fixed, whatever the rate ({@code (largest window + look-back) / bucket} ints;
 * 3,300 for 5 min and 30 s at 100 ms).
 *
 * <p>Plain Java; not thread-safe. Its state ({@link #counts}, {@link #newestBucket}) is what a
 * streaming job keeps per key and restores with {@link #restore}.
 */
public final class ArrivalEnvelope {
    private final long bucketMicros;
    private final int[] windowBuckets;
    private final int lookbackBuckets;
    private final int[] counts;
    /** The absolute bucket index ({@code floor(time / bucket)}) the ring's newest slot holds; MIN_VALUE before the first arrival. */
    private long newestBucket = Long.MIN_VALUE;
    private long late;

    /**
     * @param bucketMicros   the counting grid
     * @param windowsMicros  the window sizes, each a whole number of buckets, ascending
     * @param lookbackMicros how far back the windows' ends may lie ({@link #peakRates}), a whole number of buckets
     * @throws IllegalArgumentException in one line naming the bad size
     */
    public ArrivalEnvelope(long bucketMicros, long[] windowsMicros, long lookbackMicros) {
        this.windowBuckets = windowBuckets(bucketMicros, windowsMicros);
        if (lookbackMicros < bucketMicros || lookbackMicros % bucketMicros != 0) {
            throw new IllegalArgumentException("the look-back (" + lookbackMicros + " us) must be a whole number of buckets of " + bucketMicros + " us");
        }
        this.bucketMicros = bucketMicros;
        this.lookbackBuckets = (int) (lookbackMicros / bucketMicros);
        this.counts = new int[windowBuckets[windowBuckets.length - 1] + lookbackBuckets];
    }

    static int[] windowBuckets(long bucketMicros, long[] windowsMicros) {
        if (bucketMicros <= 0) throw new IllegalArgumentException("the bucket must be positive, got " + bucketMicros + " us");
        if (windowsMicros.length == 0) throw new IllegalArgumentException("an envelope needs at least one window");
        int[] buckets = new int[windowsMicros.length];
        for (int i = 0; i < windowsMicros.length; i++) {
            long w = windowsMicros[i];
            if (w < bucketMicros || w % bucketMicros != 0) {
                throw new IllegalArgumentException("window " + w + " us is not a whole number of buckets of " + bucketMicros + " us");
            }
            if (i > 0 && w <= windowsMicros[i - 1]) throw new IllegalArgumentException("the windows must be ascending, got " + Arrays.toString(windowsMicros));
            if (w / bucketMicros > 10_000_000) throw new IllegalArgumentException("window " + w + " us has more than 10^7 buckets");
            buckets[i] = (int) (w / bucketMicros);
        }
        return buckets;
    }

    /** One arrival at {@code atMicros}. */
    public void record(long atMicros) {
        record(atMicros, 1);
    }

    /**
     * {@code n} arrivals at {@code atMicros}. One older than the ring holds is counted as late and
     * otherwise ignored (it can no longer change a window that {@link #peakRates} looks at).
     */
    public void record(long atMicros, int n) {
        long bucket = Math.floorDiv(atMicros, bucketMicros);
        advanceTo(bucket);
        if (bucket <= newestBucket - counts.length) {
            late += n;
            return;
        }
        int slot = slot(bucket);
        counts[slot] = (int) Math.min(Integer.MAX_VALUE, (long) counts[slot] + n);
    }

    /** Moves the ring on to {@code bucket}, emptying the slots of the buckets it passes. */
    private void advanceTo(long bucket) {
        if (newestBucket == Long.MIN_VALUE) {
            newestBucket = bucket;
            return;
        }
        if (bucket <= newestBucket) return;
        long steps = Math.min(bucket - newestBucket, counts.length);
        for (long b = bucket - steps + 1; b <= bucket; b++) counts[slot(b)] = 0;
        newestBucket = bucket;
    }

    private int slot(long bucket) {
        return (int) Math.floorMod(bucket, (long) counts.length);
    }

    /**
     * The peak rate per window (requests per second, in the order of the windows): the most
     * arrivals in any window of that size whose end lies in the look-back before {@code nowMicros}
     * (the bucket of {@code nowMicros} included, as far as it has come), divided by the window.
     * Buckets before the first arrival count as empty.
     */
    public double[] peakRates(long nowMicros) {
        long nowBucket = Math.floorDiv(nowMicros, bucketMicros);
        advanceTo(nowBucket);
        double[] rates = new double[windowBuckets.length];
        if (newestBucket == Long.MIN_VALUE) return rates;
        // Sums over the ring from its oldest bucket: prefix[j] = the first j buckets.
        int n = counts.length;
        long oldest = newestBucket - n + 1;
        long[] prefix = new long[n + 1];
        for (int j = 0; j < n; j++) prefix[j + 1] = prefix[j] + counts[slot(oldest + j)];
        for (int i = 0; i < windowBuckets.length; i++) {
            int w = windowBuckets[i];
            long most = 0;
            // Window ends at ring positions n-1 (now) back to n-lookback; it starts at end-w+1 >= 0.
            for (int end = n - 1; end >= n - lookbackBuckets; end--) {
                int start = end - w + 1;
                if (start < 0) break;
                most = Math.max(most, prefix[end + 1] - prefix[start]);
            }
            rates[i] = most * 1e6 / (w * bucketMicros);
        }
        return rates;
    }

    /**
     * The rate over the latest window of index {@code window}: the arrivals in the window that ends
     * with the bucket of {@code nowMicros}, divided by the window. The mean rate now, where
     * {@link #peakRates} gives the recent peaks.
     */
    public double latestRate(long nowMicros, int window) {
        advanceTo(Math.floorDiv(nowMicros, bucketMicros));
        int w = windowBuckets[window];
        long sum = 0;
        for (int j = 0; j < w; j++) sum += counts[slot(newestBucket - j)];
        return sum * 1e6 / (w * bucketMicros);
    }

    /** The index of the window of {@code micros}. */
    public int windowIndex(long micros) {
        for (int i = 0; i < windowBuckets.length; i++) if (windowBuckets[i] * bucketMicros == micros) return i;
        throw new IllegalArgumentException("no window of " + micros + " us in this envelope");
    }

    /**
     * The planning trace's rate per window, {@code SampleRates} of Algorithm 3: the most arrivals
     * in any window of that size that lies within the trace (its buckets from the first arrival's
     * to the last arrival's), divided by the window; a window longer than the trace gets the
     * trace's mean rate over its buckets.
     */
    public static double[] sampleRates(ArrivalTrace trace, long bucketMicros, long[] windowsMicros) {
        int[] windows = windowBuckets(bucketMicros, windowsMicros);
        long[] times = trace.times();
        long first = Math.floorDiv(times[0], bucketMicros);
        long last = Math.floorDiv(times[times.length - 1], bucketMicros);
        if (last - first + 1 > 100_000_000) throw new IllegalArgumentException("the planning trace spans more than 10^8 buckets of " + bucketMicros + " us");
        int n = (int) (last - first + 1);
        long[] prefix = new long[n + 1];
        int[] perBucket = new int[n];
        for (long t : times) perBucket[(int) (Math.floorDiv(t, bucketMicros) - first)]++;
        for (int j = 0; j < n; j++) prefix[j + 1] = prefix[j] + perBucket[j];
        double[] rates = new double[windows.length];
        for (int i = 0; i < windows.length; i++) {
            int w = windows[i];
            if (w >= n) {
                rates[i] = prefix[n] * 1e6 / (n * (double) bucketMicros);
                continue;
            }
            long most = 0;
            for (int start = 0; start + w <= n; start++) most = Math.max(most, prefix[start + w] - prefix[start]);
            rates[i] = most * 1e6 / (w * (double) bucketMicros);
        }
        return rates;
    }

    /** Arrivals too old to count when they were recorded. */
    public long late() {
        return late;
    }

    /** The ring's counts, oldest slot first is not guaranteed: a copy of the ring as stored, for a job's state. */
    public int[] counts() {
        return counts.clone();
    }

    /** The bucket the ring's newest slot holds; {@code Long.MIN_VALUE} before any arrival. */
    public long newestBucket() {
        return newestBucket;
    }

    /**
     * Restores the state {@link #counts} and {@link #newestBucket} gave, on an envelope of the same
     * settings.
     *
     * @throws IllegalArgumentException if the ring's size differs (the settings changed): the caller starts afresh
     */
    public void restore(int[] ring, long newest) {
        if (ring.length != counts.length) {
            throw new IllegalArgumentException("the stored envelope has " + ring.length + " buckets; these settings keep " + counts.length);
        }
        System.arraycopy(ring, 0, counts, 0, counts.length);
        this.newestBucket = newest;
    }
}
