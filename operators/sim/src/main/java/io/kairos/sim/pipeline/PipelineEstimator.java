package io.kairos.sim.pipeline;

import io.kairos.core.device.DeviceSlots;
import io.kairos.core.model.LatencyProfile;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.pipeline.Edge;
import io.kairos.core.pipeline.PipelineSpec;
import io.kairos.core.plan.ServingPlan;
import io.kairos.core.request.Request;
import io.kairos.core.result.ResultStatus;
import io.kairos.core.scheduling.ConfiguredPolicy;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.core.scheduling.policy.TritonPolicy;
import io.kairos.schema.DecisionOutcome;
import io.kairos.schema.DecisionStatus;
import io.kairos.sim.ArrivalSource;
import io.kairos.sim.Controller;
import io.kairos.sim.FateListener;
import io.kairos.sim.Simulation;
import io.kairos.sim.TimedDecision;
import io.kairos.workload.Arrival;
import io.kairos.workload.ArrivalTrace;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Supplier;

/**
 * InferLine's estimator: the end-to-end latency of every request of a sample trace through a
 * pipeline under a configuration, and the P99, by discrete-event simulation with the job's own
 * scheduler.
 *
 * <p><b>What is simulated.</b> Each stage is one serving group: a {@link
 * io.kairos.core.scheduling.GroupScheduler} with one central queue for the stage's model, the
 * {@code triton} policy with the stage's max batch, no queue delay and no timeout (a batch of up
 * to the max goes to a replica the moment one is free: InferLine's centralised batched queue),
 * and no shedding, so that every request is served and a late one counts as a miss, never as a
 * drop. Its replicas are simulated devices of the stage's hardware type, each running a batch in
 * the time its model's profile on that type gives ({@link Simulation}, with typed device slots).
 * Each request of the trace enters at the entry stage at its trace time and follows one path:
 * after each stage it takes at most one outgoing edge, drawn by the edges' probabilities (the
 * conditions of conditional edges are not evaluated; their probabilities stand for them), from a
 * random source seeded once, so every configuration sees the same paths. A stage's request
 * arrives there when it left the stage before on its path.
 *
 * <p><b>Stage by stage.</b> The stages share no device and no queue, so a stage's behaviour
 * depends only on when its requests arrive, and those depend only on the stages upstream. The
 * estimator therefore runs one simulation per stage in the pipeline's topological order, each on
 * the arrivals its predecessors produced; this gives the same times as one simulation of the
 * whole pipeline, and lets a stage's result be reused: it is cached under the configurations of
 * the stage and of every stage upstream of it, so a planner's move on a stage re-simulates only
 * that stage and those downstream.
 *
 * <p><b>Stopping early.</b> {@link #estimate} stops as soon as more requests have exceeded the SLO
 * than its P99 allows ({@link PipelineEstimate#allowedMisses}): a request's time so far is a lower
 * bound of its end-to-end latency, so a request over the SLO after any stage is a miss. The
 * verdict is then certain, and an infeasible configuration costs a fraction of a full run. Before
 * simulating anything it counts the requests whose path is over the SLO even with every stage at
 * its quickest batch and no queue: on hardware too slow for the SLO, that settles it at once.
 *
 * <p>Single-threaded and not thread-safe (its cache); deterministic for a seed.
 */
public final class PipelineEstimator {
    /** The policy each stage's group runs. */
    public static final String POLICY = TritonPolicy.NAME;
    /** What the stage runs cache at most, in request latencies (4 bytes each): 128 MB. */
    private static final long CACHE_BUDGET = 32L << 20;
    private static final String TENANT = "pipeline";

    private final ModelCatalog catalog;
    private final PipelineSpec pipeline;
    private final long[] arrivals;
    private final JobCalibration calibration;
    private final List<String> names;       // stages, topological order
    private final String[] models;
    private final int[][] visitors;          // per stage: the requests that visit it, in trace order
    private final int[][] from;              // per stage and visitor: the stage before on its path, -1 at the entry
    private final int[][] fromPosition;      // per stage and visitor: its position among that stage's visitors
    private final int[] lastStage;           // per request: where its path ends
    private final int[] lastPosition;
    private final int[][] upstream;          // per stage: itself and every stage with a path to it, topological order
    private final int[][] paths;             // the distinct paths the requests take, as stages
    private final int[] pathCounts;          // how many requests take each
    private final Map<StageKey, int[]> cache = new LinkedHashMap<>(64, 0.75f, true);
    // Stage runs that stopped early, by key and SLO: the misses up to a stage depend on nothing
    // downstream, so the same upstream stops at the same place whatever follows.
    private final Map<StoppedKey, Integer> stopped = new HashMap<>();
    private long cached;
    private long simulations;
    private long simulatedTotal;

    /** The configurations of a stage and its upstream stages: what its run depends on. */
    private record StageKey(int stage, List<StageConfig> configs) {}

    private record StoppedKey(StageKey stage, long sloMicros) {}

    /**
     * @param seed draws every request's path (and seeds the simulations, which here have no noise)
     * @throws IllegalArgumentException if a stage's model is not in the catalog
     */
    public PipelineEstimator(ModelCatalog catalog, PipelineSpec pipeline, ArrivalTrace trace, long seed) {
        this(catalog, pipeline, trace, seed, 0);
    }

    /**
     * With {@code hopOverheadMicros} added before every stage a request visits: the time a serving
     * job spends between stages that no scheduler sees (the stage's request crossing Kafka, its
     * admission, the result's emission), a constant measured on the job (the fidelity command's
     * pipeline mode measures it); 0 models none, as the planner's estimates do by default.
     *
     * @throws IllegalArgumentException if a stage's model is not in the catalog, or the overhead is negative
     */
    public PipelineEstimator(ModelCatalog catalog, PipelineSpec pipeline, ArrivalTrace trace, long seed, long hopOverheadMicros) {
        this(catalog, pipeline, trace, seed, JobCalibration.hopOverhead(hopOverheadMicros));
    }

    /**
     * Estimates for the job {@code calibration} describes: its overhead between stages, its
     * hand-over delay to the devices and its devices' overruns, each stage's simulation drawing the
     * latter two from its own seed.
     *
     * @throws IllegalArgumentException if a stage's model is not in the catalog
     */
    public PipelineEstimator(ModelCatalog catalog, PipelineSpec pipeline, ArrivalTrace trace, long seed, JobCalibration calibration) {
        this(catalog, pipeline, trace, seed, calibration, null);
    }

    /**
     * As {@link #PipelineEstimator(ModelCatalog, PipelineSpec, ArrivalTrace, long, JobCalibration)},
     * each request's path drawn as the serving job draws it ({@link PipelineSpec#draw}, from the
     * request's id and the stage) rather than from {@code seed}: where the trace's requests are
     * the ones a job is sent, under these ids, both send the same requests down the same paths.
     * A condition is taken by its edge's probability, as the estimator always takes it.
     *
     * @param requestIds the id of the trace's {@code i}-th request; null: the paths drawn from {@code seed}
     */
    public PipelineEstimator(ModelCatalog catalog, PipelineSpec pipeline, ArrivalTrace trace, long seed, JobCalibration calibration,
                             java.util.function.IntFunction<String> requestIds) {
        this.calibration = calibration;
        this.catalog = catalog;
        this.pipeline = pipeline;
        this.arrivals = trace.times();
        this.names = pipeline.topologicalOrder();
        int stages = names.size();
        Map<String, Integer> index = new HashMap<>();
        for (int s = 0; s < stages; s++) index.put(names.get(s), s);
        models = new String[stages];
        for (int s = 0; s < stages; s++) {
            models[s] = pipeline.stage(names.get(s)).model();
            if (!catalog.contains(models[s])) throw new IllegalArgumentException("stage '" + names.get(s) + "': the catalog has no model '" + models[s] + "'");
        }
        // Each stage's outgoing edges as (target, cumulative probability), in the order written.
        int[][] targets = new int[stages][];
        double[][] cumulative = new double[stages][];
        for (int s = 0; s < stages; s++) {
            List<Edge> out = pipeline.outgoing(names.get(s));
            targets[s] = new int[out.size()];
            cumulative[s] = new double[out.size()];
            double sum = 0;
            for (int e = 0; e < out.size(); e++) {
                targets[s][e] = index.get(out.get(e).to());
                sum += out.get(e).probability();
                cumulative[s][e] = sum;
            }
        }
        int n = arrivals.length;
        IntList[] visits = new IntList[stages];
        IntList[] before = new IntList[stages];
        IntList[] beforeAt = new IntList[stages];
        for (int s = 0; s < stages; s++) {
            visits[s] = new IntList();
            before[s] = new IntList();
            beforeAt[s] = new IntList();
        }
        lastStage = new int[n];
        lastPosition = new int[n];
        SplittableRandom random = new SplittableRandom(seed);
        int entry = index.get(pipeline.entry().name());
        Map<List<Integer>, Integer> byPath = new LinkedHashMap<>();
        List<Integer> path = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            int s = entry;
            int prev = -1;
            int prevAt = -1;
            path.clear();
            while (true) {
                path.add(s);
                int at = visits[s].size();
                visits[s].add(r);
                before[s].add(prev);
                beforeAt[s].add(prevAt);
                prev = s;
                prevAt = at;
                int next = -1;
                if (targets[s].length > 0) {
                    double u = requestIds == null ? random.nextDouble() : PipelineSpec.draw(requestIds.apply(r), names.get(s));
                    for (int e = 0; e < targets[s].length; e++) {
                        if (u < cumulative[s][e]) {
                            next = targets[s][e];
                            break;
                        }
                    }
                }
                if (next < 0) break;
                s = next;
            }
            lastStage[r] = prev;
            lastPosition[r] = prevAt;
            byPath.merge(List.copyOf(path), 1, Integer::sum);
        }
        paths = new int[byPath.size()][];
        pathCounts = new int[byPath.size()];
        int p = 0;
        for (Map.Entry<List<Integer>, Integer> e : byPath.entrySet()) {
            paths[p] = e.getKey().stream().mapToInt(Integer::intValue).toArray();
            pathCounts[p++] = e.getValue();
        }
        visitors = new int[stages][];
        from = new int[stages][];
        fromPosition = new int[stages][];
        for (int s = 0; s < stages; s++) {
            visitors[s] = visits[s].toArray();
            from[s] = before[s].toArray();
            fromPosition[s] = beforeAt[s].toArray();
        }
        upstream = new int[stages][];
        for (int s = 0; s < stages; s++) {
            boolean[] reaches = new boolean[stages];
            reaches[s] = true;
            for (int t = s; t >= 0; t--) { // topological order: every stage with a path to t comes before it
                if (!reaches[t]) continue;
                for (int u = 0; u < t; u++) {
                    for (int target : targets[u]) if (target == t) reaches[u] = true;
                }
            }
            IntList up = new IntList();
            for (int t = 0; t < stages; t++) if (reaches[t]) up.add(t);
            upstream[s] = up.toArray();
        }
    }

    /** The time added before every stage a request visits, microseconds. */
    public long hopOverheadMicros() {
        return calibration.hopOverheadMicros();
    }

    public PipelineSpec pipeline() {
        return pipeline;
    }

    public ModelCatalog catalog() {
        return catalog;
    }

    /** How many requests the trace has. */
    public int requests() {
        return arrivals.length;
    }

    /** How many of the trace's requests visit {@code stage}: its share of the trace, the drawn counterpart of its scale factor. */
    public int visitors(String stage) {
        int s = names.indexOf(stage);
        if (s < 0) throw new IllegalArgumentException("pipeline '" + pipeline.id() + "' has no stage '" + stage + "'");
        return visitors[s].length;
    }

    /** How many stage simulations have run, cached ones aside. */
    public long simulations() {
        return simulations;
    }

    /** How many stage visits have been simulated in all: the work done. */
    public long simulatedRequests() {
        return simulatedTotal;
    }

    /**
     * The configuration's P99 against {@code sloMicros}, stopping as soon as more requests missed
     * it than the P99 allows.
     */
    public PipelineEstimate estimate(PipelineConfig config, long sloMicros) {
        return run(config, sloMicros, true, false);
    }

    /** Every request's end-to-end latency, in trace order, and the P99 and misses against {@code sloMicros}; never stops early. */
    public PipelineEstimate estimateAll(PipelineConfig config, long sloMicros) {
        return run(config, sloMicros, false, true);
    }

    /**
     * How a stage's replicas change during a scaled run ({@link #estimateScaled}): its group starts
     * on {@code initialSlots} of the pool and follows the decisions for it, fixed beforehand
     * ({@code decisions}, e.g. a tuner's, which depend on the arrivals only) or made in the loop
     * ({@code controller}, e.g. an autoscaler that watches the group's queue); either may be empty.
     *
     * @param group        the stage's serving group: the decisions' target
     * @param initialSlots the pool's slots the group holds at the start
     * @param decisions    decided at their times, as the job decides them
     * @param controller   a fresh controller per run, or null
     */
    public record StageScaling(String group, List<Integer> initialSlots, List<TimedDecision> decisions, Supplier<Controller> controller) {
        public StageScaling {
            if (initialSlots.isEmpty()) throw new IllegalArgumentException("group '" + group + "' must start on at least one device");
            initialSlots = List.copyOf(initialSlots);
            decisions = List.copyOf(decisions);
        }
    }

    /**
     * A scaled run's result: every request's end-to-end latency ({@link PipelineEstimate}, never
     * stopped early) and, per stage, the decisions its run applied, in time order (its replicas
     * over time: what the run cost).
     */
    public record ScaledEstimate(PipelineEstimate estimate, Map<String, List<TimedDecision>> applied) {}

    /**
     * Every request's end-to-end latency when the stages' replicas change during the trace: each
     * stage is simulated on the whole device {@code pool} (a device in no group is idle), its group
     * on the slots and decisions of {@code scaling} (a stage without an entry keeps the
     * configuration's replicas on the first slots of its type). The stage's policy, batch and
     * hardware are the configuration's; nothing is cached. Decisions are decided with the job's own
     * code: a bad one is rejected and changes nothing.
     */
    public ScaledEstimate estimateScaled(PipelineConfig config, long sloMicros, DeviceSlots pool, Map<String, StageScaling> scaling) {
        if (sloMicros <= 0) throw new IllegalArgumentException("the SLO must be positive, got " + sloMicros + " us");
        int n = arrivals.length;
        int stages = names.size();
        int[][] latency = new int[stages][];
        int misses = 0;
        Map<String, List<TimedDecision>> applied = new LinkedHashMap<>();
        for (int s = 0; s < stages; s++) {
            StageConfig c = config.stage(names.get(s));
            StageScaling sc = scaling.get(names.get(s));
            if (sc == null) {
                List<Integer> ofType = pool.slotsOf(c.hardwareType());
                if (ofType.size() < c.replicas()) {
                    throw new IllegalArgumentException("stage '" + names.get(s) + "' needs " + c.replicas() + " device(s) of type " + c.hardwareType() + "; the pool " + pool + " has " + ofType.size());
                }
                sc = new StageScaling(names.get(s), ofType.subList(0, c.replicas()), List.of(), null);
            }
            List<TimedDecision> stageApplied = new ArrayList<>();
            StageRun run = simulate(s, c, latency, sloMicros, Integer.MAX_VALUE, pool, sc, stageApplied);
            latency[s] = run.latencies;
            misses += newMisses(s, run.latencies, latency, sloMicros);
            applied.put(names.get(s), List.copyOf(stageApplied));
        }
        int[] endToEnd = new int[n];
        for (int r = 0; r < n; r++) endToEnd[r] = latency[lastStage[r]][lastPosition[r]];
        long p99 = kthSmallest(endToEnd.clone(), (int) ((99L * n + 99) / 100) - 1);
        return new ScaledEstimate(new PipelineEstimate(n, sloMicros, misses, PipelineEstimate.allowedMisses(n), p99, true, endToEnd, 0), applied);
    }

    private PipelineEstimate run(PipelineConfig config, long sloMicros, boolean stopEarly, boolean keepLatencies) {
        if (sloMicros <= 0) throw new IllegalArgumentException("the SLO must be positive, got " + sloMicros + " us");
        int n = arrivals.length;
        int allowed = PipelineEstimate.allowedMisses(n);
        int stages = names.size();
        StageConfig[] configs = new StageConfig[stages];
        for (int s = 0; s < stages; s++) configs[s] = config.stage(names.get(s));
        if (stopEarly) {
            int certain = aloneOverSlo(configs, sloMicros);
            if (certain > allowed) return new PipelineEstimate(n, sloMicros, certain, allowed, -1, false, null, 0);
        }
        int[][] latency = new int[stages][];
        int misses = 0;
        long simulated = 0;
        for (int s = 0; s < stages; s++) {
            StageConfig[] up = new StageConfig[upstream[s].length];
            for (int i = 0; i < up.length; i++) up[i] = configs[upstream[s][i]];
            StageKey key = new StageKey(s, List.of(up));
            int[] done = cache.get(key);
            if (done == null && stopEarly) {
                Integer found = stopped.get(new StoppedKey(key, sloMicros));
                if (found != null) return new PipelineEstimate(n, sloMicros, found, allowed, -1, false, null, simulated);
            }
            if (done == null) {
                int budget = stopEarly ? allowed - misses : Integer.MAX_VALUE;
                StageRun run = simulate(s, configs[s], latency, sloMicros, budget, null, null, null);
                simulated += run.simulated;
                if (!run.complete) {
                    if (stopped.size() < 100_000) stopped.put(new StoppedKey(key, sloMicros), misses + run.misses);
                    return new PipelineEstimate(n, sloMicros, misses + run.misses, allowed, -1, false, null, simulated);
                }
                done = run.latencies;
                remember(key, done);
            }
            latency[s] = done;
            misses += newMisses(s, done, latency, sloMicros);
            if (stopEarly && misses > allowed) return new PipelineEstimate(n, sloMicros, misses, allowed, -1, false, null, simulated);
        }
        int[] endToEnd = new int[n];
        for (int r = 0; r < n; r++) endToEnd[r] = latency[lastStage[r]][lastPosition[r]];
        long p99 = kthSmallest(endToEnd.clone(), (int) ((99L * n + 99) / 100) - 1);
        return new PipelineEstimate(n, sloMicros, misses, allowed, p99, true, keepLatencies ? endToEnd : null, simulated);
    }

    /**
     * The requests whose path takes longer than the SLO even alone, every stage at its quickest
     * batch on its hardware: certain misses, counted without simulating anything. What rejects a
     * move to hardware too slow for the SLO at once.
     */
    private int aloneOverSlo(StageConfig[] configs, long slo) {
        long[] quickest = new long[configs.length];
        for (int s = 0; s < configs.length; s++) {
            LatencyProfile profile = configs[s].profile(catalog.get(models[s]));
            long q = Long.MAX_VALUE;
            for (int i = 0; i < profile.batchSizeCount(); i++) q = Math.min(q, profile.latencyAt(i));
            quickest[s] = q;
        }
        int over = 0;
        for (int p = 0; p < paths.length; p++) {
            long alone = 0;
            for (int s : paths[p]) alone += quickest[s] + calibration.hopOverheadMicros();
            if (alone > slo) over += pathCounts[p];
        }
        return over;
    }

    /** The visitors of stage {@code s} over the SLO after it that were not over it before: each request counted at the first stage it is over. */
    private int newMisses(int s, int[] done, int[][] latency, long slo) {
        int count = 0;
        int[] prev = from[s];
        int[] prevAt = fromPosition[s];
        for (int k = 0; k < done.length; k++) {
            if (done[k] > slo && (prev[k] < 0 || latency[prev[k]][prevAt[k]] <= slo)) count++;
        }
        return count;
    }

    private void remember(StageKey key, int[] latencies) {
        cache.put(key, latencies);
        cached += latencies.length;
        var it = cache.entrySet().iterator();
        while (cached > CACHE_BUDGET && it.hasNext()) {
            var eldest = it.next();
            if (eldest.getKey().equals(key)) continue;
            cached -= eldest.getValue().length;
            it.remove();
        }
    }

    /** A stage's simulation: its visitors' latencies so far (from their trace arrival to the end of their batch here). */
    private record StageRun(int[] latencies, boolean complete, int misses, long simulated) {}

    /**
     * Simulates stage {@code s} on the arrivals its predecessors give; stops taking arrivals once
     * more than {@code budget} of its visitors, within the SLO before it, are over it after it.
     */
    private StageRun simulate(int s, StageConfig config, int[][] latency, long slo, int budget, DeviceSlots pool, StageScaling scaling,
                              List<TimedDecision> applied) {
        int[] who = visitors[s];
        int n = who.length;
        int[] latencies = new int[n];
        if (n == 0) return new StageRun(latencies, true, 0, 0);
        long[] at = new long[n];
        for (int k = 0; k < n; k++) {
            int r = who[k];
            at[k] = arrivals[r] + calibration.hopOverheadMicros() + (from[s][k] < 0 ? 0 : latency[from[s][k]][fromPosition[s][k]]);
        }
        int[] order = inTimeOrder(at);
        // Every request gets the pipeline's SLO at this stage: its deadline then only orders the
        // queue, first come first served, as InferLine's central queue; nothing is shed by it.
        StageFeed stage = new StageFeed(s, models[s], at, order, latencies, slo, budget);
        Map<String, String> params = Map.of(
                TritonPolicy.MAX_BATCH, Integer.toString(config.maxBatch()),
                TritonPolicy.MAX_QUEUE_DELAY_MS, "0",
                TritonPolicy.QUEUE_TIMEOUT_MS, "0",
                ConfiguredPolicy.SHED, "false",
                ConfiguredPolicy.MAX_PENDING, Integer.toString(Math.max(1, n)));
        long last = at[order[n - 1]];
        Simulation.Builder sim = Simulation.builder(catalog);
        if (scaling == null) {
            sim.devices(DeviceSlots.uniform(config.hardwareType(), config.replicas())).policy(POLICY, params);
        } else {
            // The whole pool, the stage's group on its slots: a device in no group is idle.
            ServingPlan plan = new ServingPlan(pool, Long.MAX_VALUE, POLICY, PolicyParams.of(params), catalog);
            Map<Integer, Set<String>> placed = new LinkedHashMap<>();
            for (int slot : scaling.initialSlots()) placed.put(slot, Set.of(models[s]));
            plan.place(scaling.group(), placed);
            plan.assign(models[s], scaling.group());
            sim.plan(plan).decisions(scaling.decisions());
            if (scaling.controller() != null) sim.controller(scaling.controller());
            stage.applied = applied;
        }
        sim.load((seed, until) -> stage)
                .duration(last + 1)
                .learnLatency(null)
                .preemption(false)
                .dispatchDelay(calibration.dispatchDelay())
                .noise(calibration.noise())
                .seed(s)
                .build()
                .run(stage);
        simulations++;
        simulatedTotal += stage.handedOut;
        return new StageRun(latencies, !stage.stopped, stage.misses, stage.handedOut);
    }

    /**
     * The {@code k}-th smallest value (from 0) of {@code v}, which it reorders: a selection with
     * three-way partitions (latencies repeat a lot), linear on average where a sort of a million
     * latencies per estimate is not.
     */
    static int kthSmallest(int[] v, int k) {
        int lo = 0;
        int hi = v.length - 1;
        SplittableRandom random = new SplittableRandom(v.length);
        while (lo < hi) {
            int pivot = v[lo + random.nextInt(hi - lo + 1)];
            // v[lo, lt) < pivot, v[lt, i) == pivot, v(gt, hi] > pivot
            int lt = lo;
            int gt = hi;
            int i = lo;
            while (i <= gt) {
                if (v[i] < pivot) swap(v, lt++, i++);
                else if (v[i] > pivot) swap(v, i, gt--);
                else i++;
            }
            if (k < lt) hi = lt - 1;
            else if (k > gt) lo = gt + 1;
            else return pivot;
        }
        return v[k];
    }

    private static void swap(int[] v, int a, int b) {
        int t = v[a];
        v[a] = v[b];
        v[b] = t;
    }

    /** Positions 0..n-1 by time, ties by position (stable). */
    private static int[] inTimeOrder(long[] at) {
        int n = at.length;
        long max = 0;
        for (long t : at) max = Math.max(max, t);
        int[] order = new int[n];
        if (max < Long.MAX_VALUE / n - 1) {
            // One primitive sort of time * n + position: stable, and no boxing.
            long[] keys = new long[n];
            for (int k = 0; k < n; k++) keys[k] = at[k] * n + k;
            Arrays.sort(keys);
            for (int i = 0; i < n; i++) order[i] = (int) (keys[i] % n);
            return order;
        }
        Integer[] boxed = new Integer[n];
        for (int k = 0; k < n; k++) boxed[k] = k;
        Arrays.sort(boxed, (a, b) -> Long.compare(at[a], at[b]));
        for (int i = 0; i < n; i++) order[i] = boxed[i];
        return order;
    }

    /**
     * One stage's run: hands its arrivals to the simulation in time order and hears each one's end.
     * The simulation names each request by its number in the order handed out ({@link
     * ArrivalSource#next}), which is how an end finds its visitor.
     */
    private final class StageFeed implements ArrivalSource, FateListener {
        final int s;
        final String model;
        final long[] at;
        final int[] order;
        final int[] latencies;
        final long slo;
        final int budget;
        final double sloMs;
        int handedOut;
        int misses;
        boolean stopped;
        List<TimedDecision> applied; // where a scaled run records the decisions it applied; null otherwise

        StageFeed(int s, String model, long[] at, int[] order, int[] latencies, long slo, int budget) {
            this.s = s;
            this.model = model;
            this.at = at;
            this.order = order;
            this.latencies = latencies;
            this.slo = slo;
            this.budget = budget;
            this.sloMs = slo / 1000.0;
        }

        @Override
        public long peekMicros() {
            return stopped || handedOut == order.length ? ArrivalSource.NONE : at[order[handedOut]];
        }

        @Override
        public Arrival next() {
            return new Arrival(at[order[handedOut++]], TENANT, model, sloMs);
        }

        @Override
        public void onDecision(TimedDecision decision, DecisionOutcome outcome) {
            if (applied != null && outcome.getStatus() == DecisionStatus.APPLIED) applied.add(decision);
        }

        @Override
        public void onFate(Request request, ResultStatus status, long endMicros, int batchSize) {
            if (status == ResultStatus.DROPPED || status == ResultStatus.FAILED) {
                throw new IllegalStateException("stage '" + names.get(s) + "': request " + request.id() + " was " + status + " in a run that sheds nothing");
            }
            int k = order[Integer.parseInt(request.id())];
            long soFar = endMicros - arrivals[visitors[s][k]];
            latencies[k] = (int) Math.min(Integer.MAX_VALUE, soFar);
            // Counted where it first goes over: it arrived here within the SLO.
            if (soFar > slo && request.arrivalMicros() - arrivals[visitors[s][k]] <= slo) {
                if (++misses > budget) stopped = true;
            }
        }
    }

    /** A growable array of ints. */
    private static final class IntList {
        private int[] values = new int[16];
        private int size;

        void add(int v) {
            if (size == values.length) values = Arrays.copyOf(values, size * 2);
            values[size++] = v;
        }

        int size() {
            return size;
        }

        int[] toArray() {
            return Arrays.copyOf(values, size);
        }
    }

    @Override
    public String toString() {
        return "estimator of pipeline '" + pipeline.id() + "' on " + arrivals.length + " requests";
    }

    /** For tests: the stage names in the order simulated. */
    List<String> stageOrder() {
        return new ArrayList<>(names);
    }
}
