package io.kairos.core.workload;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
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

    /** Parses a spec with Poisson arrivals; see {@link #parse(String, ArrivalKind)}. */
    public static Workload parse(String spec) {
        return parse(spec, ArrivalKind.POISSON);
    }

    /**
     * Parses the compact spec of the command line: comma-separated loads, each
     * {@code model:ratePerSecond:sloMs[:tenant]}, e.g. {@code resnet50:400:25,mlp:2000:10:acme}.
     * The tenant defaults to {@value ModelLoad#DEFAULT_TENANT}. A problem is reported in one line
     * naming the part and the field.
     */
    public static Workload parse(String spec, ArrivalKind arrivals) {
        if (spec == null || spec.isBlank()) {
            throw new SpecException("workload spec is empty; expected model:rate:sloMs[:tenant],... e.g. resnet50:400:25");
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

    private static ModelLoad parseLoad(String part, ArrivalKind arrivals) {
        String at = "workload spec part '" + part + "': ";
        String[] f = part.split(":", -1);
        if (f.length < 3 || f.length > 4) {
            throw new SpecException(at + "expected model:rate:sloMs[:tenant], got " + f.length + " field" + (f.length == 1 ? "" : "s"));
        }
        String model = f[0].trim();
        if (model.isEmpty()) throw new SpecException(at + "model name is empty");
        double rate = number(f[1], at, "rate");
        double slo = number(f[2], at, "sloMs");
        String tenant = f.length == 4 ? f[3].trim() : ModelLoad.DEFAULT_TENANT;
        if (tenant.isEmpty()) throw new SpecException(at + "tenant is empty");
        if (!(rate > 0)) throw new SpecException(at + "rate must be positive requests per second, got " + f[1].trim());
        if (!(slo > 0)) throw new SpecException(at + "sloMs must be a positive number of milliseconds, got " + f[2].trim());
        return new ModelLoad(tenant, model, rate, slo, arrivals);
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

    /** Arrivals expected in a run of {@code durationMicros}: the mean, not the count of a given seed. */
    public long expectedArrivals(long durationMicros) {
        return Math.round(totalRatePerSecond() * durationMicros / 1_000_000.0);
    }

    /** The endless, time-ordered arrivals of the run with this seed. */
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

    /** The spec form, which {@link #parse} reads back (arrival kinds aside). */
    @Override
    public String toString() {
        StringBuilder s = new StringBuilder();
        for (ModelLoad l : loads) {
            if (s.length() > 0) s.append(',');
            s.append(l.model()).append(':').append(plain(l.ratePerSecond())).append(':').append(plain(l.sloMs()));
            if (!l.tenant().equals(ModelLoad.DEFAULT_TENANT)) s.append(':').append(l.tenant());
        }
        return s.toString();
    }

    private static String plain(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%s", v);
    }

    /**
     * The merged arrivals of one run. Each load's next arrival time is kept; {@link #next} hands out
     * the earliest, lowest load index first on a tie so that the order is fully determined. A linear
     * scan over the loads: workloads have a handful of them, and it allocates nothing.
     */
    public static final class Arrivals implements Iterator<Arrival> {
        private final ModelLoad[] loads;
        private final ArrivalProcess.Gaps[] gaps;
        private final long[] nextAt;

        private Arrivals(List<ModelLoad> loads, long seed) {
            this.loads = loads.toArray(ModelLoad[]::new);
            this.gaps = new ArrivalProcess.Gaps[this.loads.length];
            this.nextAt = new long[this.loads.length];
            SplittableRandom root = new SplittableRandom(seed);
            for (int i = 0; i < this.loads.length; i++) {
                gaps[i] = this.loads[i].process().start(root.split());
                nextAt[i] = gaps[i].nextGapMicros();
            }
        }

        /** Always true: a workload has no end; the caller stops at its duration. */
        @Override
        public boolean hasNext() {
            return true;
        }

        /** Offset of the arrival that {@link #next} will return. */
        public long peekOffsetMicros() {
            return nextAt[earliest()];
        }

        @Override
        public Arrival next() {
            int i = earliest();
            ModelLoad l = loads[i];
            Arrival a = new Arrival(nextAt[i], l.tenant(), l.model(), l.sloMs());
            nextAt[i] += gaps[i].nextGapMicros();
            return a;
        }

        private int earliest() {
            int best = 0;
            for (int i = 1; i < nextAt.length; i++) {
                if (nextAt[i] < nextAt[best]) best = i;
            }
            return best;
        }
    }

    /** A workload spec that cannot be read; the message is one line naming the part and the field. */
    public static final class SpecException extends IllegalArgumentException {
        public SpecException(String message) {
            super(message);
        }
    }
}
