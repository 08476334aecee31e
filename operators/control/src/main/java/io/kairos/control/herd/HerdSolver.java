package io.kairos.control.herd;

import com.google.ortools.Loader;
import com.google.ortools.linearsolver.MPConstraint;
import com.google.ortools.linearsolver.MPObjective;
import com.google.ortools.linearsolver.MPSolver;
import com.google.ortools.linearsolver.MPVariable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * Herd's ILP (Shepherd, NSDI'23) on OR-Tools: serving groups of models that maximise the minimum
 * burst tolerance {@code bt(i) = Σ_j size_j·x_ij / ν_k(i)} over the streams, {@code ν_k} the summed
 * need of model {@code k}'s streams (which share its queue; {@code n_i} where it has one).
 *
 * <p>Over the {@link HerdProblem}'s models {@code k} (a model's streams share its group, and its
 * {@code need} {@code ν_k} is the sum of its streams' {@code n_i}) and groups {@code j < J = min(N, K)}:
 * <pre>
 *   maximise t
 *   t·ν_k ≤ Σ_j w_kj                      for every model      (t ≤ min_i bt(i))
 *   w_kj ≤ size_j,  w_kj ≤ G·z_kj          (w_kj = size_j·z_kj, linearised: only upper bounds, as t pushes w up)
 *   Σ_j size_j ≤ N,  0 ≤ size_j ≤ G        cluster size, group size
 *   Σ_k m_k·z_kj ≤ mem                     memory: a group's models fit one device (each device of the group holds them all)
 *   Σ_j z_kj = 1                           surjectivity: a model (and its streams) in exactly one group
 *   Σ_c y_cj ≤ 1,  z_kj ≤ y_c(k)j          affinity: a group holds models of at most one set (c, j, k: the notes' ∀i,j,k is a typo)
 *   z_kj = 0 for j > k                     symmetry: groups ordered by their most demanding model
 * </pre>
 * The last line is the usual bin-packing symmetry breaking (groups numbered in the order of their
 * first model, models ordered by need, most demanding first); it loses no plan and cuts the
 * variables by about half. Memory is written only where it can bind, affinity only with two sets
 * or more.
 *
 * <p>The sizes of the answer are then set again for its grouping ({@link WaterFill}): the fewest
 * devices that reach the highest minimum burst tolerance for that grouping, then the devices the
 * objective does not need by square-root staffing, to the group of the lowest
 * {@code (size_j - Σ n_i) / sqrt(Σ n_i·CV²_i)} (their streams share their devices, and a group's
 * bursts grow as the square root of its load). Devices beyond every group's {@code G} are left
 * over. Last, {@link Balance} moves and swaps models between the groups while that raises the
 * lowest staffing, at no lower minimum.
 *
 * <p><b>A second objective.</b> Many groupings reach the same minimum (often the one capped by
 * {@code G / ν_max}), and the first solve is indifferent between them: it can leave devices idle
 * beside a group far above its mean load. So a second solve (the rest of the time limit but its
 * last tenth, which is {@link Balance}'s; the first has half) keeps {@code t} at the minimum reached and minimises the groups' mean load above their
 * devices, {@code Σ_j max(0, Σ_{i in j} n_i − size_j)}, from the first answer.
 *
 * <p>A first-fit grouping (models by need, the first group whose memory and affinity take it) is
 * handed to the solver as a hint, so that a time limit reached early still returns a plan; the
 * plan says how the solver ended and the gap to its bound. An infeasible problem is explained in
 * one line naming the constraint: the problem is solved again without the affinity sets, and if
 * that is feasible affinity is the cause, else memory within the cluster's size.
 *
 * <p>Backends: {@code CP_SAT} (default; {@code t} scaled to thousandths so that every variable is
 * an integer) or {@code SCIP}, both in OR-Tools' Linux library. The linear-solver API keeps the
 * model in native code, so no protocol buffers cross into Java.
 */
public final class HerdSolver {
    /** Group names: {@code herd-1}, {@code herd-2}, ... */
    public static final String GROUP_PREFIX = "herd-";

    /**
     * @param timeLimit how long the solver may search; the best plan found by then is returned
     * @param backend   {@code CP_SAT} or {@code SCIP}
     * @param threads   the solver's workers (CP-SAT; SCIP uses one)
     */
    public record Settings(Duration timeLimit, String backend, int threads) {
        public static final Settings DEFAULT = new Settings(Duration.ofSeconds(10), "CP_SAT", 2);

        public Settings {
            if (timeLimit.isNegative() || timeLimit.isZero()) throw new IllegalArgumentException("the time limit must be positive, got " + timeLimit);
            if (!backend.equals("CP_SAT") && !backend.equals("SCIP")) throw new IllegalArgumentException("the backend is CP_SAT or SCIP, got " + backend);
            if (threads < 1) throw new IllegalArgumentException("threads must be at least 1, got " + threads);
        }

        public Settings withTimeLimit(Duration limit) {
            return new Settings(limit, backend, threads);
        }
    }

    private static final double T_SCALE = 1000; // CP-SAT's t: burst tolerance in thousandths
    private static boolean loaded;

    private final Settings settings;

    public HerdSolver() {
        this(Settings.DEFAULT);
    }

    public HerdSolver(Settings settings) {
        this.settings = settings;
    }

    private static synchronized void loadNativeLibraries() {
        if (!loaded) {
            Loader.loadNativeLibraries();
            loaded = true;
        }
    }

    /** The plan of the highest minimum burst tolerance found within the time limit, or why there is none. */
    public HerdPlan solve(HerdProblem p) {
        loadNativeLibraries();
        long started = System.nanoTime();
        Duration half = settings.timeLimit().dividedBy(2);
        Answer a = solve(p, true, half, Double.NaN, null);
        if (a.status == MPSolver.ResultStatus.INFEASIBLE) {
            return HerdPlan.infeasible(explain(p), millisSince(started));
        }
        if (a.groupOf == null) {
            return HerdPlan.infeasible("no plan within the time limit of " + settings.timeLimit().toMillis() + " ms (solver " + a.status.name().toLowerCase(Locale.ROOT)
                    + "): give the solver more time", millisSince(started));
        }
        String status = a.status == MPSolver.ResultStatus.OPTIMAL ? "OPTIMAL" : "FEASIBLE";
        // Second, at no lower minimum: the grouping whose groups run least above their mean load.
        double reached = plan(p, a.groupOf, status, a.bound, 0).minBurstTolerance();
        // The last tenth of the limit is Balance's.
        Duration left = settings.timeLimit().minus(settings.timeLimit().dividedBy(10)).minus(Duration.ofNanos(System.nanoTime() - started));
        Answer spread = solve(p, true, left.isNegative() ? Duration.ofMillis(1) : left, reached, a.groupOf);
        int[] groupOf = spread.groupOf != null ? spread.groupOf : a.groupOf;
        // Third, the same groups with their models moved or swapped so that the least staffed group
        // stands as many standard deviations of its load above its mean as it can (Balance).
        groupOf = Balance.improve(p, groupOf, reached, started + settings.timeLimit().toNanos());
        return plan(p, groupOf, status, a.bound, millisSince(started));
    }

    /**
     * The first-fit grouping the solver is hinted with, its sizes water-filled: a baseline the
     * ILP's answer is never below; infeasible when first fit needs more groups than devices.
     */
    public static HerdPlan firstFit(HerdProblem p) {
        int[] groups = FirstFit.groups(p, Math.min(p.devices(), p.models().size()), true);
        if (groups == null) return HerdPlan.infeasible("first fit needs more groups than " + p.devices() + " device(s) make", 0);
        return plan(p, groups, "FEASIBLE", Double.NaN, 0);
    }

    /** How one solve ended: each model's group (null if none found) and the solver's bound on t. */
    private record Answer(MPSolver.ResultStatus status, int[] groupOf, double bound) {}

    /**
     * One solve. With {@code atLeast} NaN: maximise {@code t}. Else the second objective at
     * {@code t >= atLeast}: minimise the groups' load above their devices, {@code Σ_j o_j} with
     * {@code o_j >= Σ_{i in j} n_i - size_j}, {@code o_j >= 0}, from the grouping {@code start}.
     */
    private Answer solve(HerdProblem p, boolean affinity, Duration limit, double atLeast, int[] start) {
        List<HerdProblem.Model> models = p.models();
        int k = models.size();
        int groups = Math.min(p.devices(), k);
        int maxGroup = p.maxGroup();
        boolean integral = settings.backend().equals("CP_SAT");
        double scale = integral ? T_SCALE : 1;
        MPSolver solver = MPSolver.createSolver(settings.backend());
        if (solver == null) throw new IllegalStateException("OR-Tools has no " + settings.backend() + " solver on this platform");
        try {
            double tMax = Math.min(maxGroup, p.devices()) / models.get(0).need() * scale;
            MPVariable t = integral ? solver.makeIntVar(0, Math.floor(tMax), "t") : solver.makeNumVar(0, tMax, "t");
            MPVariable[] size = new MPVariable[groups];
            MPConstraint cluster = solver.makeConstraint(Double.NEGATIVE_INFINITY, p.devices(), "cluster");
            for (int j = 0; j < groups; j++) {
                size[j] = solver.makeIntVar(0, maxGroup, "size_" + j);
                cluster.setCoefficient(size[j], 1);
            }
            MPVariable[][] z = new MPVariable[k][];
            MPVariable[][] w = new MPVariable[k][];
            for (int m = 0; m < k; m++) {
                int reach = Math.min(m + 1, groups);
                z[m] = new MPVariable[reach];
                w[m] = new MPVariable[reach];
                MPConstraint once = solver.makeConstraint(1, 1, "once_" + m);
                MPConstraint tolerance = solver.makeConstraint(Double.NEGATIVE_INFINITY, 0, "bt_" + m);
                tolerance.setCoefficient(t, models.get(m).need() / scale);
                for (int j = 0; j < reach; j++) {
                    z[m][j] = solver.makeBoolVar("z_" + m + "_" + j);
                    w[m][j] = integral ? solver.makeIntVar(0, maxGroup, "w_" + m + "_" + j) : solver.makeNumVar(0, maxGroup, "w_" + m + "_" + j);
                    once.setCoefficient(z[m][j], 1);
                    tolerance.setCoefficient(w[m][j], -1);
                    MPConstraint bySize = solver.makeConstraint(0, Double.POSITIVE_INFINITY, "w_size_" + m + "_" + j);
                    bySize.setCoefficient(size[j], 1);
                    bySize.setCoefficient(w[m][j], -1);
                    MPConstraint byChoice = solver.makeConstraint(0, Double.POSITIVE_INFINITY, "w_z_" + m + "_" + j);
                    byChoice.setCoefficient(z[m][j], maxGroup);
                    byChoice.setCoefficient(w[m][j], -1);
                }
            }
            if (p.memoryBinds()) {
                double capacity = p.deviceMemoryBytes() / (1024.0 * 1024.0);
                for (int j = 0; j < groups; j++) {
                    MPConstraint memory = solver.makeConstraint(Double.NEGATIVE_INFINITY, capacity, "memory_" + j);
                    for (int m = j; m < k; m++) memory.setCoefficient(z[m][j], models.get(m).memoryBytes() / (1024.0 * 1024.0));
                }
            }
            List<String> sets = affinity ? sets(p) : List.of();
            MPVariable[][] y = null;
            if (sets.size() >= 2) {
                y = new MPVariable[sets.size()][groups];
                for (int j = 0; j < groups; j++) {
                    MPConstraint one = solver.makeConstraint(Double.NEGATIVE_INFINITY, 1, "affinity_" + j);
                    for (int c = 0; c < sets.size(); c++) {
                        y[c][j] = solver.makeBoolVar("y_" + c + "_" + j);
                        one.setCoefficient(y[c][j], 1);
                    }
                }
                for (int m = 0; m < k; m++) {
                    String set = models.get(m).affinity();
                    if (set == null) continue;
                    int c = sets.indexOf(set);
                    for (int j = 0; j < z[m].length; j++) {
                        MPConstraint in = solver.makeConstraint(0, Double.POSITIVE_INFINITY, "in_set_" + m + "_" + j);
                        in.setCoefficient(y[c][j], 1);
                        in.setCoefficient(z[m][j], -1);
                    }
                }
            }
            MPObjective objective = solver.objective();
            boolean spread = !Double.isNaN(atLeast);
            if (!spread) {
                objective.setCoefficient(t, 1);
                objective.setMaximization();
            } else {
                // t at least what the first solve reached (a hair below: the scaled t is whole thousandths).
                MPConstraint floor = solver.makeConstraint(integral ? Math.floor(atLeast * scale * (1 - 1e-6)) : atLeast * (1 - 1e-9), Double.POSITIVE_INFINITY, "t_floor");
                floor.setCoefficient(t, 1);
                double total = 0;
                double[] load = new double[k];
                for (int m = 0; m < k; m++) for (int i : models.get(m).streams()) load[m] += p.need(i);
                for (double l : load) total += l;
                for (int j = 0; j < groups; j++) {
                    MPVariable over = integral ? solver.makeIntVar(0, Math.ceil(total * T_SCALE), "over_" + j) : solver.makeNumVar(0, total, "over_" + j);
                    MPConstraint above = solver.makeConstraint(0, Double.POSITIVE_INFINITY, "over_" + j);
                    above.setCoefficient(over, 1);
                    above.setCoefficient(size[j], scale);
                    for (int m = j; m < k; m++) above.setCoefficient(z[m][j], -load[m] * scale);
                    objective.setCoefficient(over, 1);
                }
                objective.setMinimization();
            }
            int[] first = start != null ? start : FirstFit.groups(p, groups, affinity);
            if (first != null) hint(solver, p, first, groups, scale, integral, t, size, z, w, y, sets);
            solver.setTimeLimit(Math.max(1, limit.toMillis()));
            solver.setNumThreads(settings.threads());
            MPSolver.ResultStatus status = solver.solve();
            if (status != MPSolver.ResultStatus.OPTIMAL && status != MPSolver.ResultStatus.FEASIBLE) {
                // Out of time with nothing of its own: the hint is a plan all the same.
                return new Answer(status, status == MPSolver.ResultStatus.INFEASIBLE ? null : first, Double.NaN);
            }
            int[] groupOf = new int[k];
            for (int m = 0; m < k; m++) {
                groupOf[m] = -1;
                for (int j = 0; j < z[m].length; j++) {
                    if (z[m][j].solutionValue() > 0.5) groupOf[m] = j;
                }
            }
            double bound = spread ? Double.NaN : status == MPSolver.ResultStatus.OPTIMAL ? objective.value() / scale : objective.bestBound() / scale;
            return new Answer(status, groupOf, bound);
        } finally {
            solver.delete();
        }
    }

    private static void hint(MPSolver solver, HerdProblem p, int[] groupOf, int groups, double scale, boolean integral, MPVariable t,
                             MPVariable[] size, MPVariable[][] z, MPVariable[][] w, MPVariable[][] y, List<String> sets) {
        int[] sizes = WaterFill.sizes(p, groupOf, groups);
        List<MPVariable> vars = new ArrayList<>();
        List<Double> values = new ArrayList<>();
        double least = Double.POSITIVE_INFINITY;
        for (int m = 0; m < groupOf.length; m++) least = Math.min(least, sizes[groupOf[m]] / p.models().get(m).need());
        double tValue = least * scale;
        vars.add(t);
        values.add(integral ? Math.floor(tValue) : tValue);
        for (int j = 0; j < groups; j++) {
            vars.add(size[j]);
            values.add((double) sizes[j]);
        }
        for (int m = 0; m < groupOf.length; m++) {
            for (int j = 0; j < z[m].length; j++) {
                vars.add(z[m][j]);
                values.add(groupOf[m] == j ? 1.0 : 0.0);
                vars.add(w[m][j]);
                values.add(groupOf[m] == j ? (double) sizes[j] : 0.0);
            }
        }
        if (y != null) {
            for (int j = 0; j < groups; j++) {
                String set = null;
                for (int m = 0; m < groupOf.length; m++) if (groupOf[m] == j && p.models().get(m).affinity() != null) set = p.models().get(m).affinity();
                for (int c = 0; c < sets.size(); c++) {
                    vars.add(y[c][j]);
                    values.add(sets.get(c).equals(set) ? 1.0 : 0.0);
                }
            }
        }
        double[] v = new double[values.size()];
        for (int i = 0; i < v.length; i++) v[i] = values.get(i);
        solver.setHint(vars.toArray(MPVariable[]::new), v);
    }

    /** The affinity sets the models name, in order. */
    static List<String> sets(HerdProblem p) {
        TreeSet<String> sets = new TreeSet<>();
        for (HerdProblem.Model m : p.models()) if (m.affinity() != null) sets.add(m.affinity());
        return List.copyOf(sets);
    }

    /** Why an infeasible problem is: the constraint, in one line. */
    private String explain(HerdProblem p) {
        List<String> sets = sets(p);
        long total = 0;
        long largest = 0;
        for (HerdProblem.Model m : p.models()) {
            total += m.memoryBytes();
            largest = Math.max(largest, m.memoryBytes());
        }
        String memory = p.deviceMemoryBytes() == Long.MAX_VALUE ? "unbounded memory" : HerdProblem.mb(p.deviceMemoryBytes()) + " MB per device";
        if (sets.size() >= 2) {
            Answer free = solve(p, false, settings.timeLimit(), Double.NaN, null);
            if (free.status != MPSolver.ResultStatus.INFEASIBLE) {
                Map<String, Integer> count = new LinkedHashMap<>();
                for (String s : sets) count.put(s, 0);
                for (HerdProblem.Model m : p.models()) if (m.affinity() != null) count.merge(m.affinity(), 1, Integer::sum);
                return String.format(Locale.ROOT, "infeasible: affinity: models of different affinity sets never share a group, and the sets %s "
                        + "need more groups than %d device(s) make (at most one group per device, %s)", count, p.devices(), memory);
            }
        }
        return String.format(Locale.ROOT, "infeasible: memory: the %d models take %s MB together (the largest %s MB), and a group's models must fit "
                        + "one device's %s MB; %d device(s) make at most %d group(s), too few to hold them", p.models().size(), HerdProblem.mb(total),
                HerdProblem.mb(largest), HerdProblem.mb(p.deviceMemoryBytes()), p.devices(), p.devices());
    }

    /** The plan of a grouping: groups in order, sizes by water-filling, devices in slot order. */
    static HerdPlan plan(HerdProblem p, int[] groupOf, String status, double bound, long solveMillis) {
        int[] compact = compact(groupOf);
        int used = count(compact);
        int[] sizes = WaterFill.sizes(p, compact, used);
        List<HerdPlan.Group> out = new ArrayList<>();
        int slot = 0;
        for (int j = 0; j < used; j++) {
            List<Integer> devices = new ArrayList<>();
            for (int d = 0; d < sizes[j]; d++) devices.add(slot++);
            List<String> names = new ArrayList<>();
            List<HerdPlan.Share> shares = new ArrayList<>();
            for (int m = 0; m < compact.length; m++) {
                if (compact[m] != j) continue;
                HerdProblem.Model model = p.models().get(m);
                names.add(model.name());
                for (int i : model.streams()) {
                    RequestStream s = p.streams().get(i);
                    shares.add(new HerdPlan.Share(s.name(), s.model(), s.ratePerSecond(), p.throughput(i), p.need(i), sizes[j] / model.need()));
                }
            }
            out.add(new HerdPlan.Group(GROUP_PREFIX + (j + 1), devices, names, shares));
        }
        List<Integer> leftover = new ArrayList<>();
        while (slot < p.devices()) leftover.add(slot++);
        return new HerdPlan(out, status, bound, solveMillis, null, leftover);
    }

    private static long millisSince(long started) {
        return (System.nanoTime() - started) / 1_000_000;
    }

    /** The first-fit grouping the solver is hinted with. */
    static final class FirstFit {
        private FirstFit() {}

        /**
         * Models in need order, each into the first group whose memory and affinity take it, a new
         * one when none does; null when that needs more than {@code groups} groups.
         */
        static int[] groups(HerdProblem p, int groups, boolean affinity) {
            List<HerdProblem.Model> models = p.models();
            int[] groupOf = new int[models.size()];
            List<Long> memory = new ArrayList<>();
            List<String> set = new ArrayList<>();
            boolean bounded = p.deviceMemoryBytes() != Long.MAX_VALUE;
            for (int m = 0; m < models.size(); m++) {
                HerdProblem.Model model = models.get(m);
                String s = affinity ? model.affinity() : null;
                int chosen = -1;
                for (int j = 0; j < memory.size() && chosen < 0; j++) {
                    boolean fits = !bounded || memory.get(j) + model.memoryBytes() <= p.deviceMemoryBytes();
                    boolean sameSet = s == null || set.get(j) == null || set.get(j).equals(s);
                    if (fits && sameSet) chosen = j;
                }
                if (chosen < 0) {
                    if (memory.size() == groups) return null;
                    memory.add(0L);
                    set.add(null);
                    chosen = memory.size() - 1;
                }
                memory.set(chosen, memory.get(chosen) + model.memoryBytes());
                if (s != null) set.set(chosen, s);
                groupOf[m] = chosen;
            }
            return groupOf;
        }
    }

    /**
     * The ILP's grouping with its models moved between its groups, or swapped, while that raises
     * the lowest staffing of any group, {@code min_j (size_j - Σ n_i) / sqrt(Σ n_i·CV²_i)} with the
     * sizes {@link WaterFill} gives the grouping, and keeps the minimum burst tolerance at least
     * what the ILP reached. The ILP is indifferent among groupings of one minimum (it sees the
     * most demanding stream, capped at {@code G / ν_max}, and then only load above devices): with
     * every group at {@code G} devices, which models share a group decides how much room each
     * group keeps for its bursts. Memory and affinity hold after every move; a move never empties
     * a group (fewer, larger groups pool bursts; more, smaller ones do not). First improvement,
     * until none is left.
     */
    static final class Balance {
        private Balance() {}

        /** @param deadline {@link System#nanoTime()} by which it returns the best grouping found */
        static int[] improve(HerdProblem p, int[] groupOf, double minBt, long deadline) {
            int[] g = compact(groupOf);
            int groups = count(g);
            double best = staffing(p, g, groups, minBt);
            boolean improved = true;
            for (int pass = 0; improved && pass < 100; pass++) {
                improved = false;
                for (int m = 0; m < g.length && System.nanoTime() - deadline < 0; m++) {
                    for (int to = 0; to < groups; to++) {
                        if (to == g[m]) continue;
                        // Move m to group 'to'.
                        int from = g[m];
                        if (members(g, from) > 1) {
                            g[m] = to;
                            double v = fits(p, g, to) ? staffing(p, g, groups, minBt) : Double.NEGATIVE_INFINITY;
                            if (v > best + 1e-9) {
                                best = v;
                                improved = true;
                                continue;
                            }
                            g[m] = from;
                        }
                        // Swap m with each model of group 'to'.
                        for (int o = 0; o < g.length; o++) {
                            if (g[o] != to) continue;
                            g[m] = to;
                            g[o] = from;
                            double v = fits(p, g, to) && fits(p, g, from) ? staffing(p, g, groups, minBt) : Double.NEGATIVE_INFINITY;
                            if (v > best + 1e-9) {
                                best = v;
                                improved = true;
                                break;
                            }
                            g[m] = from;
                            g[o] = to;
                        }
                        if (g[m] != from) break;
                    }
                }
            }
            return g;
        }

        /** The lowest staffing of any group, or -∞ when the minimum burst tolerance falls below {@code minBt}. */
        static double staffing(HerdProblem p, int[] g, int groups, double minBt) {
            Loads loads = Loads.of(p, g, groups);
            int[] sizes = WaterFill.sizes(p, loads);
            double bt = Double.POSITIVE_INFINITY;
            double least = Double.POSITIVE_INFINITY;
            for (int j = 0; j < groups; j++) {
                if (loads.most()[j] > 0) bt = Math.min(bt, sizes[j] / loads.most()[j]);
                if (loads.load()[j] > 0) least = Math.min(least, loads.staffing(j, sizes[j]));
            }
            return bt < minBt * (1 - 1e-9) ? Double.NEGATIVE_INFINITY : least;
        }

        /** Group {@code j}'s models fit one device's memory and hold at most one affinity set. */
        private static boolean fits(HerdProblem p, int[] g, int j) {
            long memory = 0;
            String set = null;
            for (int m = 0; m < g.length; m++) {
                if (g[m] != j) continue;
                HerdProblem.Model model = p.models().get(m);
                memory += model.memoryBytes();
                if (model.affinity() != null) {
                    if (set != null && !set.equals(model.affinity())) return false;
                    set = model.affinity();
                }
            }
            return memory <= p.deviceMemoryBytes();
        }

        private static int members(int[] g, int j) {
            int n = 0;
            for (int x : g) if (x == j) n++;
            return n;
        }
    }

    /** The groups renumbered 0, 1, ... in the order of their first (most demanding) model. */
    static int[] compact(int[] groupOf) {
        java.util.Map<Integer, Integer> renumber = new java.util.HashMap<>();
        int[] out = new int[groupOf.length];
        for (int m = 0; m < groupOf.length; m++) out[m] = renumber.computeIfAbsent(groupOf[m], k -> renumber.size());
        return out;
    }

    /** The number of groups of a compact grouping. */
    private static int count(int[] compact) {
        int groups = 0;
        for (int x : compact) groups = Math.max(groups, x + 1);
        return groups;
    }

    /**
     * Per group of a grouping: its most demanding model's need, its load {@code Σ n_i} and its
     * spread {@code Σ n_i·CV²_i}, what its sizes and its staffing are judged by.
     */
    record Loads(double[] most, double[] load, double[] spread) {
        static Loads of(HerdProblem p, int[] groupOf, int groups) {
            double[] most = new double[groups];
            double[] load = new double[groups];
            double[] spread = new double[groups];
            for (int m = 0; m < groupOf.length; m++) {
                HerdProblem.Model model = p.models().get(m);
                most[groupOf[m]] = Math.max(most[groupOf[m]], model.need());
                for (int i : model.streams()) {
                    load[groupOf[m]] += p.need(i);
                    spread[groupOf[m]] += p.need(i) * p.streams().get(i).cv2();
                }
            }
            return new Loads(most, load, spread);
        }

        /** How many standard deviations of its load group {@code j}'s {@code size} devices stand above its mean: square-root staffing. */
        double staffing(int j, int size) {
            return (size - load[j]) / Math.sqrt(spread[j]);
        }
    }

    /** Group sizes for a grouping that maximise the minimum burst tolerance, then spread what is left by square-root staffing. */
    static final class WaterFill {
        private WaterFill() {}

        /**
         * First the fewest devices that reach the grouping's highest minimum burst tolerance
         * {@code t*}: one device per group holding a model, then one at a time to the group of the
         * lowest {@code size / max need} still below {@code G} (which maximises the minimum), and of
         * those sizes only {@code max(1, ⌈t*·max need⌉)} kept. Then the devices left, one at a time
         * ({@link #staff}): {@code bt} sees one stream at a time, but a group's streams share its
         * devices, so the devices the objective does not need go where the load stands least above
         * its mean, and no stream's {@code bt} falls.
         */
        static int[] sizes(HerdProblem p, int[] groupOf, int groups) {
            return sizes(p, Loads.of(p, groupOf, groups));
        }

        static int[] sizes(HerdProblem p, Loads loads) {
            double[] most = loads.most();
            int groups = most.length;
            int[] sizes = new int[groups];
            int left = p.devices();
            for (int j = 0; j < groups; j++) {
                if (most[j] > 0) {
                    sizes[j] = 1;
                    left--;
                }
            }
            fill(sizes, most, left, p.maxGroup());
            double best = Double.POSITIVE_INFINITY;
            for (int j = 0; j < groups; j++) if (most[j] > 0) best = Math.min(best, sizes[j] / most[j]);
            left = p.devices();
            for (int j = 0; j < groups; j++) {
                if (most[j] == 0) continue;
                // The fewest devices with size / most >= best; a hair of slack for the division's rounding.
                sizes[j] = Math.min(sizes[j], Math.max(1, (int) Math.ceil(best * most[j] - 1e-9)));
                left -= sizes[j];
            }
            staff(sizes, loads, left, p.maxGroup());
            return sizes;
        }

        /**
         * {@code left} devices, one at a time, to the group whose devices stand fewest standard
         * deviations of its load above its mean, {@code (size - Σ n_i) / sqrt(Σ n_i·CV²_i)}, below
         * {@code most} (the first of equals): square-root staffing.
         */
        private static void staff(int[] sizes, Loads loads, int left, int most) {
            while (left > 0) {
                int lowest = -1;
                double lowestZ = Double.POSITIVE_INFINITY;
                for (int j = 0; j < sizes.length; j++) {
                    if (loads.load()[j] == 0 || sizes[j] >= most) continue;
                    double z = loads.staffing(j, sizes[j]);
                    if (z < lowestZ) {
                        lowest = j;
                        lowestZ = z;
                    }
                }
                if (lowest < 0) return;
                sizes[lowest]++;
                left--;
            }
        }

        /** {@code left} devices, one at a time, to the group of the lowest {@code size / weight} below {@code most} (the first of equals). */
        private static void fill(int[] sizes, double[] weight, int left, int most) {
            while (left > 0) {
                int lowest = -1;
                for (int j = 0; j < sizes.length; j++) {
                    if (weight[j] == 0 || sizes[j] >= most) continue;
                    if (lowest < 0 || sizes[j] / weight[j] < sizes[lowest] / weight[lowest]) lowest = j;
                }
                if (lowest < 0) return;
                sizes[lowest]++;
                left--;
            }
        }
    }
}
