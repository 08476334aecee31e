package io.kairos.control.herd;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Herd's answer: serving groups, each with its device slots, its models and their streams, and
 * every stream's burst tolerance {@code bt(i) = size_j / n_i} (how many times its average need
 * of devices its group has); or why there is none.
 *
 * <p>Groups' device sets are disjoint and a model is in one group: a plan that breaks either is
 * refused with the reason ({@link IllegalArgumentException}), so no plan handed on can put two
 * schedulers on one device.
 *
 * @param status        how the solver ended: {@code OPTIMAL}, {@code FEASIBLE} (the time limit came
 *                      first: the best plan found, with its {@code gap}), {@code INFEASIBLE}
 * @param bound         the best bound the solver proved on the minimum burst tolerance
 * @param infeasibility one line naming the constraint that cannot be met; null when there is a plan
 * @param leftover      device slots no group needs (every group at the most devices a group may have)
 */
public record HerdPlan(List<Group> groups, String status, double bound, long solveMillis, String infeasibility, List<Integer> leftover) {

    /** A stream in its group: its {@code n_i} and {@code bt(i)}. */
    public record Share(String stream, String model, double rate, double throughput, double need, double burstTolerance) {}

    /** A serving group: its name, device slots, models and streams. */
    public record Group(String name, List<Integer> devices, List<String> models, List<Share> streams) {
        public Group {
            devices = List.copyOf(devices);
            models = List.copyOf(models);
            streams = List.copyOf(streams);
            if (devices.isEmpty()) throw new IllegalArgumentException("serving group '" + name + "' has no device");
        }

        /** The devices its streams keep busy on average: {@code Σ n_i}. */
        public double load() {
            return streams.stream().mapToDouble(Share::need).sum();
        }

        /** The lowest burst tolerance of the group's streams. */
        public double minBurstTolerance() {
            return streams.stream().mapToDouble(Share::burstTolerance).min().orElse(Double.POSITIVE_INFINITY);
        }
    }

    public HerdPlan {
        groups = List.copyOf(groups);
        leftover = List.copyOf(leftover);
        Map<Integer, String> holder = new HashMap<>();
        Map<String, String> groupOfModel = new HashMap<>();
        for (Group g : groups) {
            for (int d : g.devices()) {
                String other = holder.putIfAbsent(d, g.name());
                if (other != null) {
                    throw new IllegalArgumentException("device " + d + " is in serving groups '" + other + "' and '" + g.name()
                            + "': groups' devices must be disjoint (a device runs one group's batches)");
                }
            }
            for (String m : g.models()) {
                String other = groupOfModel.putIfAbsent(m, g.name());
                if (other != null) {
                    throw new IllegalArgumentException("model '" + m + "' is in serving groups '" + other + "' and '" + g.name()
                            + "': the job routes a model to one group");
                }
            }
        }
        for (int d : leftover) {
            if (holder.containsKey(d)) throw new IllegalArgumentException("device " + d + " is left over and in serving group '" + holder.get(d) + "'");
        }
    }

    static HerdPlan infeasible(String why, long solveMillis) {
        return new HerdPlan(List.of(), "INFEASIBLE", Double.NaN, solveMillis, why, List.of());
    }

    public boolean feasible() {
        return infeasibility == null;
    }

    /** Herd's objective: the lowest burst tolerance of any stream. */
    public double minBurstTolerance() {
        return groups.stream().mapToDouble(Group::minBurstTolerance).min().orElse(Double.NaN);
    }

    /** {@code (bound - min bt) / min bt}: 0 when the plan is proven optimal; NaN when no bound is known. */
    public double gap() {
        double value = minBurstTolerance();
        if (!Double.isFinite(bound) || !(value > 0)) return Double.NaN;
        return Math.max(0, bound - value) / value;
    }

    /** Each stream's group. */
    public Map<String, String> groupOfStream() {
        Map<String, String> out = new HashMap<>();
        for (Group g : groups) for (Share s : g.streams()) out.put(s.stream(), g.name());
        return out;
    }

    /** The plan as lines of text: each group, its devices and streams with {@code n_i} and {@code bt(i)}, then the minimum. */
    public List<String> lines() {
        List<String> lines = new ArrayList<>();
        if (!feasible()) {
            lines.add(infeasibility);
            return lines;
        }
        for (Group g : groups) {
            lines.add(String.format(Locale.ROOT, "group %s: %d device(s) %s, models %s, min bt %.3f, load %.2f devices", g.name(), g.devices().size(),
                    ranges(g.devices()), String.join(", ", g.models()), g.minBurstTolerance(), g.load()));
            for (Share s : g.streams()) {
                lines.add(String.format(Locale.ROOT, "  stream %-20s model %-16s rate %10.2f/s  T %10.2f/s  n %8.3f  bt %8.3f", s.stream(), s.model(), s.rate(),
                        s.throughput(), s.need(), s.burstTolerance()));
            }
        }
        if (!leftover.isEmpty()) lines.add("left to the default group: device(s) " + ranges(leftover));
        lines.add(String.format(Locale.ROOT, "minimum burst tolerance %.4f (%s%s), %d group(s), solved in %d ms", minBurstTolerance(), status.toLowerCase(Locale.ROOT),
                Double.isNaN(gap()) ? "" : String.format(Locale.ROOT, ", gap %.2f %%", 100 * gap()), groups.size(), solveMillis));
        return lines;
    }

    /** Slots as ranges: {@code 0-3,6}. */
    static String ranges(List<Integer> slots) {
        List<Integer> sorted = new ArrayList<>(slots);
        sorted.sort(null);
        StringBuilder s = new StringBuilder();
        int i = 0;
        while (i < sorted.size()) {
            int j = i;
            while (j + 1 < sorted.size() && sorted.get(j + 1) == sorted.get(j) + 1) j++;
            if (s.length() > 0) s.append(',');
            s.append(sorted.get(i));
            if (j > i) s.append('-').append(sorted.get(j));
            i = j + 1;
        }
        return s.toString();
    }
}
