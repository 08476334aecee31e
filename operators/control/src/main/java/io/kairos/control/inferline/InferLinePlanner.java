package io.kairos.control.inferline;

import io.kairos.core.model.HardwareType;
import io.kairos.core.model.LatencyProfile;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.model.ModelSpec;
import io.kairos.core.pipeline.PipelineSpec;
import io.kairos.core.pipeline.Stage;
import io.kairos.sim.pipeline.PipelineConfig;
import io.kairos.sim.pipeline.PipelineEstimate;
import io.kairos.sim.pipeline.PipelineEstimator;
import io.kairos.sim.pipeline.StageConfig;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * InferLine's low-frequency planner: a pipeline configuration (per stage: hardware type, max
 * batch, replicas) that meets the end-to-end P99 SLO on a sample trace at low cost, checked by
 * the {@link PipelineEstimator}. Cost is the sum over the stages of replicas times the price per
 * hour of their hardware type.
 *
 * <p><b>Algorithm 1, a feasible start ({@link #initial}).</b> Every stage at its model's smallest
 * batch size, one replica, on its fastest hardware type (the lowest batch-1 latency; the cheaper
 * of equals, then the catalog's order). The pipeline's service time is its longest path at those
 * latencies; if it reaches the SLO no configuration can meet it, and the planner says so. Else,
 * while the estimator finds the P99 above the SLO, one replica is added to the bottleneck stage:
 * the stage of the highest utilisation {@code s_m·λ / (replicas·μ_m)}, with {@code s_m} the
 * stage's scale factor, {@code λ} the trace's mean arrival rate and {@code μ_m} one replica's
 * throughput at full batches ({@code maxBatch / tau(maxBatch)} on its type); ties go to the
 * stage first in topological order.
 *
 * <p><b>Algorithm 2, greedy cost reduction ({@link #plan}).</b> From Algorithm 1's configuration,
 * rounds: each tries three moves on every stage, all from the round's configuration, and keeps the
 * cheapest result the estimator finds feasible (of equal costs the first, in topological order
 * and this move order). Trying every move before keeping one is what makes the search steady: a
 * search that kept the first saving it found let a small early move spend the slack a larger one
 * needed, and landed on different local optima on traces of the same process. The moves:
 * <ol>
 *   <li><b>cheaper hardware</b>: the next cheaper type the model has a profile on (the dearest of
 *       the cheaper ones), at the same max batch;</li>
 *   <li><b>larger batch</b>: the next batch size of the model's profile; when no move of the
 *       round lowers the cost, the larger batch that lowers the estimated P99 most is kept at the
 *       same cost, which leaves more of the SLO to the other stages;</li>
 *   <li><b>one replica fewer</b>.</li>
 * </ol>
 * The first two re-derive the stage's replicas: the fewest the estimator finds feasible, from the
 * fewest that keep the stage's utilisation below 1 up to the most that still cost less than the
 * stage does now (for a larger batch: as many as now), searched upward from the fewest (more
 * replicas are taken never to make a stage slower; the count kept is one the estimator checked).
 * The rounds repeat until one keeps no move. Every move lowers the cost or raises a batch size,
 * so the search ends; estimates are cached by configuration, the estimator stops early on an
 * infeasible one and reuses the stages upstream of a move.
 *
 * <p>Plain Java on a given trace: no clock, no thread. Not thread-safe (the estimator's cache).
 */
public final class InferLinePlanner {
    /** A move of Algorithm 2. */
    public enum Move {
        CHEAPER_HARDWARE("cheaper hardware"), LARGER_BATCH("larger batch"), FEWER_REPLICAS("one replica fewer");

        private final String text;

        Move(String text) {
            this.text = text;
        }

        @Override
        public String toString() {
            return text;
        }
    }

    /** A step of the search, as the plan's log tells it. */
    public record Step(String text, PipelineConfig config, double costPerHour, PipelineEstimate estimate) {}

    /**
     * The planner's answer: a feasible configuration with its cost and estimate, or why there is
     * none.
     *
     * @param infeasibility null when {@code config} is the answer; else one line saying why there is none
     * @param estimates     how many configurations were estimated (cached ones once)
     */
    public record Plan(PipelineConfig config, double costPerHour, PipelineEstimate estimate, String infeasibility, List<Step> steps, int estimates) {
        public boolean feasible() {
            return infeasibility == null;
        }
    }

    private final PipelineEstimator estimator;
    private final ModelCatalog catalog;
    private final PipelineSpec pipeline;
    private final long sloMicros;
    private final double ratePerSecond;
    private final Map<String, Double> scaleFactors;
    private final Set<String> hardwareTypes;
    private final Map<PipelineConfig, PipelineEstimate> estimates = new HashMap<>();

    /**
     * @param estimator the pipeline, its catalog and the sample trace
     * @param sloMicros the end-to-end P99 target (the pipeline spec's own, or another)
     * @param ratePerSecond λ, what the bottleneck's utilisation is computed with: the trace's mean rate
     */
    public InferLinePlanner(PipelineEstimator estimator, long sloMicros, double ratePerSecond) {
        this(estimator, sloMicros, ratePerSecond, null);
    }

    /**
     * A planner that places stages only on {@code hardwareTypes} (a job's device types); null:
     * on any type of the catalog.
     */
    public InferLinePlanner(PipelineEstimator estimator, long sloMicros, double ratePerSecond, Collection<String> hardwareTypes) {
        if (sloMicros <= 0) throw new IllegalArgumentException("the SLO must be positive, got " + sloMicros + " us");
        if (!(ratePerSecond > 0) || Double.isInfinite(ratePerSecond)) throw new IllegalArgumentException("the arrival rate must be positive, got " + ratePerSecond);
        this.estimator = estimator;
        this.catalog = estimator.catalog();
        this.pipeline = estimator.pipeline();
        this.sloMicros = sloMicros;
        this.ratePerSecond = ratePerSecond;
        this.scaleFactors = pipeline.scaleFactors();
        this.hardwareTypes = hardwareTypes == null ? null : Set.copyOf(hardwareTypes);
    }

    public PipelineEstimator estimator() {
        return estimator;
    }

    /** Algorithm 1: a feasible configuration, cost aside; or why none exists. */
    public Plan initial() {
        List<Step> steps = new ArrayList<>();
        Map<String, StageConfig> start = new LinkedHashMap<>();
        Map<String, Long> batch1 = new HashMap<>();
        for (String name : pipeline.topologicalOrder()) {
            ModelSpec model = model(name);
            if (usableTypes(model).isEmpty()) {
                return new Plan(null, Double.NaN, null, "infeasible: stage '" + name + "''s model '" + model.name() + "' runs on " + model.hardwareTypes()
                        + ", none of the hardware types planned for " + new TreeSet<>(hardwareTypes), steps, estimates.size());
            }
            String fastest = fastestType(model);
            LatencyProfile profile = model.latencyOn(fastest);
            start.put(name, new StageConfig(fastest, profile.batchSizeAt(0), 1));
            batch1.put(model.name(), profile.latencyAt(0));
        }
        PipelineConfig config = PipelineConfig.of(pipeline, catalog, start);
        long service = pipeline.longestPathServiceMicros(batch1::get);
        if (service >= sloMicros) {
            return new Plan(null, Double.NaN, null, String.format(Locale.ROOT,
                    "infeasible: pipeline '%s' takes %s ms on its longest path alone on the fastest hardware (its service time), which reaches the SLO of %s ms",
                    pipeline.id(), ms(service), ms(sloMicros)), steps, estimates.size());
        }
        while (true) {
            PipelineEstimate e = estimate(config);
            if (e.feasible()) {
                steps.add(new Step(String.format(Locale.ROOT, "start %s: cost %s/h; feasible: %s", config, money(cost(config)), e.describe()),
                        config, cost(config), e));
                return new Plan(config, cost(config), e, null, steps, estimates.size());
            }
            String bottleneck = bottleneck(config);
            StageConfig c = config.stage(bottleneck);
            if (c.replicas() >= Math.max(1, estimator.visitors(bottleneck))) {
                // A replica per request of the trace leaves nothing to queue: cannot happen below the service time.
                return new Plan(null, Double.NaN, e, "infeasible: stage '" + bottleneck + "' already has a replica per request and the P99 is still above the SLO",
                        steps, estimates.size());
            }
            steps.add(new Step(String.format(Locale.ROOT, "start %s: %s; bottleneck '%s' (utilisation %.3f): one replica more", config,
                    e.describe(), bottleneck, utilisation(bottleneck, c)), config, cost(config), e));
            config = config.with(bottleneck, c.withReplicas(c.replicas() + 1));
        }
    }

    /** Algorithm 2 from Algorithm 1's start: the cheapest configuration the greedy moves reach; or why none exists. */
    public Plan plan() {
        Plan start = initial();
        if (!start.feasible()) return start;
        List<Step> steps = new ArrayList<>(start.steps());
        PipelineConfig config = start.config();
        PipelineEstimate current = start.estimate();
        while (true) {
            // Every move on every stage is tried from the same configuration; the round keeps the
            // cheapest feasible result, so an early small saving cannot spend the slack a larger
            // one needs (a first-found greedy lands on different local optima on different traces).
            PipelineConfig best = null;
            PipelineEstimate bestEstimate = null;
            String bestText = null;
            PipelineConfig batchOnly = null;
            PipelineEstimate batchOnlyEstimate = null;
            String batchOnlyText = null;
            for (String stage : pipeline.topologicalOrder()) {
                for (Move move : Move.values()) {
                    Range range = range(move, stage, config);
                    if (range == null) continue;
                    PipelineConfig found = fewestFeasible(stage, range, config);
                    if (found == null) continue;
                    PipelineEstimate e = estimate(found);
                    String text = move + " on '" + stage + "' -> " + found.stage(stage);
                    if (cheaper(found, config)) {
                        // Of equal costs, the first in topological and move order.
                        if (best == null || cheaper(found, best)) {
                            best = found;
                            bestEstimate = e;
                            bestText = text;
                        }
                    } else if (move == Move.LARGER_BATCH && e.p99Micros() < current.p99Micros()
                            && (batchOnly == null || e.p99Micros() < batchOnlyEstimate.p99Micros())) {
                        // A larger batch at the same cost leaves more of the SLO to the other stages.
                        batchOnly = found;
                        batchOnlyEstimate = e;
                        batchOnlyText = text;
                    }
                }
            }
            if (best == null) {
                if (batchOnly == null) break;
                best = batchOnly;
                bestEstimate = batchOnlyEstimate;
                bestText = batchOnlyText;
            }
            steps.add(new Step(String.format(Locale.ROOT, "%s: cost %s/h; %s", bestText, money(cost(best)), bestEstimate.describe()),
                    best, cost(best), bestEstimate));
            config = best;
            current = bestEstimate;
        }
        return new Plan(config, cost(config), current, null, steps, estimates.size());
    }

    /**
     * What a move tries on a stage: its hardware type and max batch, and the replicas from
     * {@code fewest} to {@code most}, every one of which makes the configuration cheaper.
     */
    record Range(String hardwareType, int maxBatch, int fewest, int most) {}

    /**
     * The replicas {@code move} tries on {@code stage}, or null when it does not apply (no cheaper
     * type, no larger batch, one replica left, or no count that is cheaper and can carry the load).
     * Cheaper hardware and a larger batch re-derive the replicas: from the fewest that keep the
     * stage's utilisation below 1 to the most that still cost less than the stage does now (a
     * larger batch: as many as now; on a free type: as many as give the stage's current throughput).
     */
    Range range(Move move, String stage, PipelineConfig config) {
        StageConfig c = config.stage(stage);
        ModelSpec model = model(stage);
        if (move == Move.FEWER_REPLICAS) return c.replicas() == 1 ? null : new Range(c.hardwareType(), c.maxBatch(), c.replicas() - 1, c.replicas() - 1);
        StageConfig moved;
        if (move == Move.CHEAPER_HARDWARE) {
            HardwareType cheaper = nextCheaperType(model, c.hardwareType());
            if (cheaper == null) return null;
            moved = new StageConfig(cheaper.name(), c.maxBatch(), 1);
        } else {
            LatencyProfile p = c.profile(model);
            int i = 0;
            while (i < p.batchSizeCount() && p.batchSizeAt(i) <= c.maxBatch()) i++;
            if (i == p.batchSizeCount()) return null;
            moved = c.withMaxBatch(p.batchSizeAt(i)).withReplicas(1);
        }
        int fewest = Math.max(1, (int) Math.floor(utilisation(stage, moved)) + 1);
        double price = catalog.hardwareType(moved.hardwareType()).pricePerHour();
        double stageCost = c.replicas() * catalog.hardwareType(c.hardwareType()).pricePerHour();
        int most;
        if (move == Move.LARGER_BATCH) {
            most = c.replicas(); // the same cost too: see plan()
        } else if (price > 0) {
            most = (int) Math.ceil(stageCost / price) - 1;
            while (most > 0 && !(most * price < stageCost - 1e-9 * Math.max(1, stageCost))) most--;
        } else {
            most = Math.max(fewest, replicasFor(model, c, moved)); // a bound on a search that cost cannot bound
        }
        return fewest > most ? null : new Range(moved.hardwareType(), moved.maxBatch(), fewest, most);
    }

    /**
     * The configuration with {@code stage} at the fewest replicas of {@code range} the estimator
     * finds feasible, or null when none is. Upward from the fewest, where the answer usually is
     * (one estimate when the stage's utilisation alone decides), by steps that double (1, 2, 4...,
     * the last at the most), then a bisection between the last infeasible count and the first
     * feasible one. On the premise that more replicas never make a stage slower; every answer is
     * one the estimator found feasible.
     */
    private PipelineConfig fewestFeasible(String stage, Range range, PipelineConfig config) {
        int infeasible = range.fewest() - 1;
        int step = 1;
        int at = range.fewest();
        while (true) {
            PipelineConfig c = withReplicas(stage, range, at, config);
            if (estimate(c).feasible()) break;
            if (at == range.most()) return null;
            infeasible = at;
            at = Math.min(range.most(), at + step);
            step *= 2;
        }
        int feasible = at;
        while (feasible - infeasible > 1) {
            int mid = (infeasible + feasible) >>> 1;
            if (estimate(withReplicas(stage, range, mid, config)).feasible()) feasible = mid;
            else infeasible = mid;
        }
        return withReplicas(stage, range, feasible, config);
    }

    private static PipelineConfig withReplicas(String stage, Range range, int replicas, PipelineConfig config) {
        return config.with(stage, new StageConfig(range.hardwareType(), range.maxBatch(), replicas));
    }

    /** The fewest replicas of {@code to} whose full-batch throughput is at least that of {@code from}'s replicas. */
    private static int replicasFor(ModelSpec model, StageConfig from, StageConfig to) {
        double needed = from.replicas() * from.replicaThroughputPerSecond(model);
        double each = to.replicaThroughputPerSecond(model);
        // A hair below a whole number is that number: throughputs are ratios of rounded microseconds.
        return Math.max(1, (int) Math.ceil(needed / each - 1e-9));
    }

    /** The stage of the highest utilisation {@code s_m·λ/(replicas·μ_m)}; the first in topological order of equals. */
    public String bottleneck(PipelineConfig config) {
        String worst = null;
        double highest = -1;
        for (String stage : pipeline.topologicalOrder()) {
            double u = utilisation(stage, config.stage(stage));
            if (u > highest) {
                highest = u;
                worst = stage;
            }
        }
        return worst;
    }

    /** {@code s_m·λ / (replicas·μ_m)}. */
    double utilisation(String stage, StageConfig c) {
        return scaleFactors.get(stage) * ratePerSecond / (c.replicas() * c.replicaThroughputPerSecond(model(stage)));
    }

    /** The type with the lowest latency at the model's smallest batch; the cheaper of equals, then the catalog's order. */
    private HardwareType fastestTypeOf(ModelSpec model) {
        return usableTypes(model).stream().map(catalog::hardwareType)
                .min(Comparator.comparingLong((HardwareType t) -> model.latencyOn(t.name()).latencyAt(0)).thenComparingDouble(HardwareType::pricePerHour))
                .orElseThrow();
    }

    private String fastestType(ModelSpec model) {
        return fastestTypeOf(model).name();
    }

    /** The dearest of the types cheaper than {@code type} that the model has a profile on; null if none. */
    private HardwareType nextCheaperType(ModelSpec model, String type) {
        double price = catalog.hardwareType(type).pricePerHour();
        HardwareType best = null;
        for (String t : usableTypes(model)) {
            HardwareType h = catalog.hardwareType(t);
            if (h.pricePerHour() < price && (best == null || h.pricePerHour() > best.pricePerHour())) best = h;
        }
        return best;
    }

    /** The types the model has a profile on that the planner may use, in the catalog's order. */
    private List<String> usableTypes(ModelSpec model) {
        return model.hardwareTypes().stream().filter(t -> hardwareTypes == null || hardwareTypes.contains(t)).toList();
    }

    private ModelSpec model(String stage) {
        Stage s = pipeline.stage(stage);
        return catalog.get(s.model());
    }

    private PipelineEstimate estimate(PipelineConfig config) {
        PipelineEstimate e = estimates.get(config);
        if (e == null) {
            e = estimator.estimate(config, sloMicros);
            estimates.put(config, e);
        }
        return e;
    }

    /** Whether {@code a} costs less than {@code b}, beyond rounding. */
    private boolean cheaper(PipelineConfig a, PipelineConfig b) {
        return cost(a) < cost(b) - 1e-9 * Math.max(1, cost(b));
    }

    private double cost(PipelineConfig config) {
        return config.costPerHour(catalog);
    }

    static String ms(long micros) {
        return String.format(Locale.ROOT, "%.3f", micros / 1000.0).replaceAll("\\.?0+$", "");
    }

    static String money(double perHour) {
        return String.format(Locale.ROOT, "%.4f", perHour).replaceAll("\\.?0+$", "");
    }
}
