package io.kairos.workload;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Several {@link ModelLoad}s sent together: one time-ordered stream of {@link Arrival}s, the same
 * for the same seed.
 *
 * <p>Each load draws from its own random source, split off a root source in the order the loads
 * are listed. So a load's arrivals depend only on the seed and its position, not on how its
 * arrivals interleave with the others', and adding a load at the end leaves the earlier loads'
 * arrivals as they were.
 */
public final class Workload {
    private final List<ModelLoad> loads;

    public Workload(List<ModelLoad> loads) {
        if (loads == null || loads.isEmpty()) throw new IllegalArgumentException("a workload needs at least one model load");
        this.loads = List.copyOf(loads);
    }

    /** Parses a spec with Poisson arrivals; see {@link #parse(String, ArrivalSpec)}. */
    public static Workload parse(String spec) {
        return parse(spec, ArrivalSpec.POISSON);
    }

    /**
     * Parses the compact spec of the command line: comma-separated loads, each
     * {@code model:ratePerSecond:sloMs[:tenant]}, e.g. {@code resnet50:400:25,mlp:2000:10:acme}.
     * A window SLO is {@code windowStartMs-sloMs} in the SLO's place: {@code resnet50:400:100-1000}
     * wants each answer between 100 and 1,000 ms after its request. The tenant defaults to {@value ModelLoad#DEFAULT_TENANT}. Every load's arrivals are spaced as
     * {@code arrivals} says, at the load's rate. A problem is reported in one line naming the part
     * and the field.
     */
    public static Workload parse(String spec, ArrivalSpec arrivals) {
        if (spec == null || spec.isBlank()) {
            throw new SpecException("workload spec is empty; expected model:rate:sloMs[:tenant],... e.g. resnet50:400:25 (a window SLO: resnet50:400:100-1000)");
        }
        List<ModelLoad> loads = new ArrayList<>();
        String[] parts = spec.split(",", -1);
        for (int i = 0; i < parts.length; i++) {
            String part = parts[i].trim();
            if (part.isEmpty()) throw new SpecException("workload spec part " + (i + 1) + " is empty (stray comma?)");
            loads.add(parseLoad(part, arrivals));
        }
        return new Workload(loads);
    }

    private static ModelLoad parseLoad(String part, ArrivalSpec arrivals) {
        String at = "workload spec part '" + part + "': ";
        String[] f = part.split(":", -1);
        if (f.length < 3 || f.length > 4) {
            throw new SpecException(at + "expected model:rate:sloMs[:tenant], got " + f.length + " field" + (f.length == 1 ? "" : "s"));
        }
        String model = f[0].trim();
        if (model.isEmpty()) throw new SpecException(at + "model name is empty");
        double rate = number(f[1], at, "rate");
        String sloText = f[2].trim();
        double window = 0;
        int dash = sloText.indexOf('-', 1);
        if (dash > 0) {
            window = number(sloText.substring(0, dash), at, "window start");
            sloText = sloText.substring(dash + 1);
        }
        double slo = number(sloText, at, "sloMs");
        String tenant = f.length == 4 ? f[3].trim() : ModelLoad.DEFAULT_TENANT;
        if (tenant.isEmpty()) throw new SpecException(at + "tenant is empty");
        if (!(rate > 0)) throw new SpecException(at + "rate must be positive requests per second, got " + f[1].trim());
        if (!(slo > 0)) throw new SpecException(at + "sloMs must be a positive number of milliseconds, got " + sloText);
        if (dash > 0 && !(window > 0 && window <= slo)) {
            throw new SpecException(at + "window start must be above 0 and at most the SLO (" + plain(slo) + " ms), got " + plain(window));
        }
        return ModelLoad.of(tenant, model, rate, slo, arrivals).withWindow(window);
    }

    private static double number(String text, String at, String field) {
        String t = text.trim();
        try {
            double v = Double.parseDouble(t);
            if (Double.isFinite(v)) return v;
        } catch (NumberFormatException e) {
            // reported below, with the field's name
        }
        throw new SpecException(at + field + " '" + t + "' is not a number");
    }

    public List<ModelLoad> loads() {
        return loads;
    }

    /** The models asked for, in spec order, each once. */
    public Set<String> models() {
        Set<String> models = new LinkedHashSet<>();
        for (ModelLoad l : loads) models.add(l.model());
        return models;
    }

    public double totalRatePerSecond() {
        double total = 0;
        for (ModelLoad l : loads) total += l.ratePerSecond();
        return total;
    }

    /**
     * Arrivals expected in a run of {@code durationMicros}: the mean, not the count of a given
     * seed. Each load counts at its mean rate, so a replay shorter than the run is overcounted.
     */
    public long expectedArrivals(long durationMicros) {
        return Math.round(totalRatePerSecond() * durationMicros / 1_000_000.0);
    }

    /** The time-ordered arrivals of the run with this seed: endless, unless every load is a replay. */
    public Arrivals arrivals(long seed) {
        return new Arrivals(loads, seed);
    }

    /** Every arrival of the run with this seed whose offset is below {@code durationMicros}. */
    public List<Arrival> arrivalsWithin(long seed, long durationMicros) {
        List<Arrival> out = new ArrayList<>();
        Arrivals it = arrivals(seed);
        while (it.peekOffsetMicros() < durationMicros) out.add(it.next());
        return out;
    }

    /** The spec form, each load at its mean rate, which {@link #parse} reads back (arrival processes aside). */
    @Override
    public String toString() {
        StringBuilder s = new StringBuilder();
        for (ModelLoad l : loads) {
            if (s.length() > 0) s.append(',');
            s.append(l.model()).append(':').append(plain(l.ratePerSecond())).append(':');
            if (l.windowStartMs() > 0) s.append(plain(l.windowStartMs())).append('-');
            s.append(plain(l.sloMs()));
            if (!l.tenant().equals(ModelLoad.DEFAULT_TENANT)) s.append(':').append(l.tenant());
        }
        return s.toString();
    }

    private static String plain(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%s", v);
    }

    /**
     * The merged arrivals of one run, in time order: the earliest next arrival first, the lowest
     * load index first on a tie, so the order is fully determined by the seed.
     *
     * <p>The loads waiting for their next arrival sit in a binary min-heap keyed by (time, load
     * index), so handing out an arrival costs one gap and O(log loads) comparisons: the Azure
     * workload has 4,026 loads and more. An ended load leaves the heap. Keys and load indices are
     * kept in two parallel arrays, so a sift reads no other memory. {@link #nextLoadIndex}
     * allocates nothing, for callers (the simulator) that want no {@link Arrival} objects.
     */
    public static final class Arrivals implements Iterator<Arrival> {
        private final ModelLoad[] loads;
        private final ArrivalProcess.Gaps[] gaps;
        private final long[] heapAt;
        private final int[] heapLoad;
        private int size;

        private Arrivals(List<ModelLoad> loads, long seed) {
            this.loads = loads.toArray(ModelLoad[]::new);
            int n = this.loads.length;
            this.gaps = new ArrivalProcess.Gaps[n];
            this.heapAt = new long[n];
            this.heapLoad = new int[n];
            SplittableRandom root = new SplittableRandom(seed);
            for (int i = 0; i < n; i++) {
                gaps[i] = this.loads[i].process().start(root.split());
                long first = gaps[i].nextGapMicros();
                if (first == ArrivalProcess.END) continue;
                heapAt[size] = first;
                heapLoad[size] = i;
                size++;
            }
            for (int k = size / 2 - 1; k >= 0; k--) siftDown(k);
        }

        /** True until every load's stream has ended; endless loads (Poisson, fixed, Gamma, MMPP) never end. */
        @Override
        public boolean hasNext() {
            return size > 0;
        }

        /** Offset of the arrival that {@link #next} will return; {@link Long#MAX_VALUE} once every stream has ended. */
        public long peekOffsetMicros() {
            return size > 0 ? heapAt[0] : Long.MAX_VALUE;
        }

        @Override
        public Arrival next() {
            long at = peekOffsetMicros();
            ModelLoad l = loads[nextLoadIndex()];
            return new Arrival(at, l.tenant(), l.model(), l.sloMs(), l.windowStartMs());
        }

        /**
         * Hands out the next arrival, as {@link #next} does, but returns only the index of its load
         * in {@link Workload#loads}; its offset is the {@link #peekOffsetMicros} read before.
         *
         * @throws NoSuchElementException when every stream has ended
         */
        public int nextLoadIndex() {
            if (size == 0) throw new NoSuchElementException("every arrival stream of the workload has ended");
            int load = heapLoad[0];
            long at = heapAt[0];
            long gap = gaps[load].nextGapMicros();
            if (gap >= ArrivalProcess.END - at) {
                // Ended (or beyond the end of time, which is the same): the last leaf takes the root.
                size--;
                heapAt[0] = heapAt[size];
                heapLoad[0] = heapLoad[size];
            } else {
                heapAt[0] = at + gap;
            }
            if (size > 1) siftDown(0);
            return load;
        }

        /**
         * Moves the entry at {@code k} down until neither child comes before it. A plain
         * sift-down rather than Floyd's bottom-up one: the busiest loads, which most arrivals come
         * from, go back with a time that is soon and stop near the top, and on the Azure workload
         * the bottom-up variant measured slower.
         */
        private void siftDown(int k) {
            long at = heapAt[k];
            int load = heapLoad[k];
            while (true) {
                int c = 2 * k + 1;
                if (c >= size) break;
                long cAt = heapAt[c];
                int cLoad = heapLoad[c];
                int r = c + 1;
                if (r < size && (heapAt[r] < cAt || (heapAt[r] == cAt && heapLoad[r] < cLoad))) {
                    c = r;
                    cAt = heapAt[r];
                    cLoad = heapLoad[r];
                }
                if (cAt > at || (cAt == at && cLoad > load)) break;
                heapAt[k] = cAt;
                heapLoad[k] = cLoad;
                k = c;
            }
            heapAt[k] = at;
            heapLoad[k] = load;
        }
    }

    /** A workload spec that cannot be read; the message is one line naming the part and the field. */
    public static final class SpecException extends IllegalArgumentException {
        public SpecException(String message) {
            super(message);
        }
    }
}
