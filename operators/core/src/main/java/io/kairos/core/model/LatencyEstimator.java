package io.kairos.core.model;


import io.kairos.core.api.Internal;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Latency profiles that correct themselves from measurements, as Clockwork's controller keeps its
 * execution-time estimates: per model and batch size, a window of the last {@code window} batches'
 * measured latencies, and the estimate is a percentile of that window. A batch size not measured
 * yet keeps its prior (catalog) latency, scaled as the nearest measured size was: a device that
 * runs 30 % slower than the catalog says is seen 30 % slower at every size after one batch.
 *
 * <p>Engine-free and deterministic; the job's scheduler and the simulator's feed it the same
 * measurements (the batches that really ran, cold starts left out, since their time is mostly the
 * load), so the simulator learns what the job learns.
 */
@Internal
public final class LatencyEstimator {

    /** The window and percentile of every estimate. */
    public record Settings(int window, double percentile) implements java.io.Serializable {
        /** The last 10 batches of each model and size, their 99th percentile. */
        public static final Settings DEFAULT = new Settings(10, 99);

        public Settings {
            if (window < 1) throw new IllegalArgumentException("estimator window must hold at least one measurement, got " + window);
            if (!(percentile > 0 && percentile <= 100)) throw new IllegalArgumentException("estimator percentile must be in (0, 100], got " + percentile);
        }
    }

    private final Settings settings;
    // By model and hardware type: a model runs at its own speed on each type, learned apart.
    private final Map<Key, ModelEstimate> models = new HashMap<>();

    private record Key(String model, String hardwareType) {}

    public LatencyEstimator(Settings settings) {
        this.settings = settings;
    }

    public Settings settings() {
        return settings;
    }

    /** The model's current profile: its prior until a batch of it was measured. */
    public LatencyProfile profile(String model, LatencyProfile prior) {
        return profile(model, null, prior);
    }

    /** The model's current profile on devices of {@code hardwareType}: its prior there until a batch of it was measured there. */
    public LatencyProfile profile(String model, String hardwareType, LatencyProfile prior) {
        ModelEstimate e = models.get(new Key(model, hardwareType));
        return e == null ? prior : e.profile;
    }

    /**
     * The model's estimate, to be kept by whoever measures it often (the scheduler keeps it on the
     * model's queue): {@link ModelEstimate#add} then costs no lookup by name, which matters with
     * thousands of models.
     */
    public ModelEstimate track(String model, LatencyProfile prior) {
        return track(model, null, prior);
    }

    /** {@link #track(String, LatencyProfile)} of the model on devices of {@code hardwareType}, learned apart from its other types. */
    public ModelEstimate track(String model, String hardwareType, LatencyProfile prior) {
        Key key = new Key(model, hardwareType);
        ModelEstimate e = models.get(key);
        if (e == null) {
            e = new ModelEstimate(prior, settings);
            models.put(key, e);
        }
        return e;
    }

    /**
     * Adds one measured batch of {@code size} requests, which ran padded to the next allowed size.
     * Returns the model's new profile when the measurement changed it, else null.
     */
    public LatencyProfile observe(String model, LatencyProfile prior, int size, long latencyMicros) {
        if (latencyMicros < 0) throw new IllegalArgumentException("a measured latency must not be negative, got " + latencyMicros);
        return track(model, prior).add(size, latencyMicros);
    }

    /** One model's windows, per allowed batch size, and the profile they give. */
    public static final class ModelEstimate {
        final LatencyProfile prior;
        final double percentile;
        final long[][] windows;
        final int[] counts;
        final int[] next;
        final long[] measured; // the window's percentile per size; -1: not measured
        final long[] sorted;
        LatencyProfile profile;

        ModelEstimate(LatencyProfile prior, Settings settings) {
            this.prior = prior;
            this.percentile = settings.percentile();
            int window = settings.window();
            int n = prior.batchSizeCount();
            this.windows = new long[n][window];
            this.counts = new int[n];
            this.next = new int[n];
            this.measured = new long[n];
            Arrays.fill(measured, -1);
            this.sorted = new long[window];
            this.profile = prior;
        }

        /** The model's current profile: its prior until a batch of it was measured. */
        public LatencyProfile profile() {
            return profile;
        }

        /** Whether a request with {@code budgetMicros} from arrival to deadline is out of reach alone by the estimate, and within it by the prior. */
        public boolean outOfReachByEstimateOnly(long budgetMicros) {
            return profile.latencyAt(0) > budgetMicros && prior.latencyAt(0) <= budgetMicros;
        }

        /** Forgets every measurement: the profile is the prior again. */
        public void forget() {
            Arrays.fill(counts, 0);
            Arrays.fill(next, 0);
            Arrays.fill(measured, -1);
            profile = prior;
        }

        /**
         * Adds one measured batch of {@code size} requests, which ran padded to the next allowed
         * size. Returns the new profile when the measurement changed it, else null.
         */
        public LatencyProfile add(int size, long latencyMicros) {
            if (latencyMicros < 0) throw new IllegalArgumentException("a measured latency must not be negative, got " + latencyMicros);
            int i = indexOf(size);
            if (i < 0) return null; // larger than the profile allows: not a batch this scheduler sent
            return record(i, latencyMicros) ? profile : null;
        }

        int indexOf(int size) {
            for (int i = 0; i < prior.batchSizeCount(); i++) {
                if (prior.batchSizeAt(i) >= size) return i;
            }
            return -1;
        }

        /** Adds a measurement at size index i; true when the profile changed. */
        private boolean record(int i, long micros) {
            long[] w = windows[i];
            // A full window that gives up the very value it takes keeps its percentile: the common
            // case of a device that runs as profiled, with nothing to sort.
            if (counts[i] == w.length && w[next[i]] == micros) {
                next[i] = (next[i] + 1) % w.length;
                return false;
            }
            w[next[i]] = micros;
            next[i] = (next[i] + 1) % w.length;
            if (counts[i] < w.length) counts[i]++;
            int n = counts[i];
            System.arraycopy(w, 0, sorted, 0, n);
            Arrays.sort(sorted, 0, n);
            // Nearest rank: the smallest measurement with at least percentile % of the window at or below it.
            long estimate = sorted[Math.max(0, (int) Math.ceil(percentile / 100.0 * n) - 1)];
            if (estimate == measured[i]) return false;
            measured[i] = estimate;
            LatencyProfile updated = rebuild();
            if (sameLatencies(updated, profile)) return false;
            profile = updated;
            return true;
        }

        private LatencyProfile rebuild() {
            int n = prior.batchSizeCount();
            int[] sizes = new int[n];
            long[] latency = new long[n];
            for (int i = 0; i < n; i++) {
                sizes[i] = prior.batchSizeAt(i);
                latency[i] = measured[i] >= 0 ? measured[i] : scaledFromNearest(i);
            }
            return new LatencyProfile(sizes, latency);
        }

        // The prior at size i, times the ratio of estimate to prior at the nearest measured size (the smaller on a tie).
        private long scaledFromNearest(int i) {
            for (int d = 1; d < measured.length; d++) {
                for (int j : new int[]{i - d, i + d}) {
                    if (j < 0 || j >= measured.length || measured[j] < 0) continue;
                    long priorJ = prior.latencyAt(j);
                    if (priorJ == 0) return prior.latencyAt(i);
                    return Math.round(prior.latencyAt(i) * ((double) measured[j] / priorJ));
                }
            }
            return prior.latencyAt(i);
        }

        private static boolean sameLatencies(LatencyProfile a, LatencyProfile b) {
            for (int i = 0; i < a.batchSizeCount(); i++) {
                if (a.latencyAt(i) != b.latencyAt(i)) return false;
            }
            return true;
        }
    }
}
