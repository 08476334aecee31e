package io.kairos.control.herd;

import io.kairos.core.model.LatencyProfile;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.model.ModelSpec;
import io.kairos.sim.Simulation;
import io.kairos.sim.SimulationReport;
import io.kairos.workload.ModelLoad;
import io.kairos.workload.Workload;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Shepherd's {@code T_i}: the most goodput (requests per second served within their SLO) a
 * stream reaches on one device, measured by the simulator with the stream's own arrival process
 * (its CV²) under the group's policy.
 *
 * <p>Goodput rises with the offered rate while the device keeps up and flattens, or falls, past
 * its capacity; {@code T_i} is the top of that curve. It is found by simulating the stream at
 * offered rates on a grid around the device's capacity bound {@code C} (the most requests per
 * second a device can finish within the SLO: {@code max b / tau(b)} over the batch sizes with
 * {@code tau(b) <= SLO}), at 40 % to 120 % of {@code C}, then once more halfway between the best
 * point and each neighbour. Each run sends {@link #arrivalsPerRun} requests (the first tenth a
 * warm-up), with a fixed seed: the same stream gets the same {@code T_i}.
 *
 * <p>Streams of one model, SLO and CV² have the same {@code T_i} whatever their rates, so the
 * answers are cached by those three. Plain Java, no clock; not thread-safe (the cache).
 */
public final class SingleDeviceGoodput {
    /** What a measurement depends on. */
    record Key(String model, long sloMicros, double cv2) {}

    /**
     * @param perSecond   the most goodput found
     * @param atRate      the offered rate it was found at
     * @param simulations how many runs it took
     */
    public record Measured(double perSecond, double atRate, int simulations) {}

    static final double[] GRID = {0.4, 0.6, 0.75, 0.85, 0.95, 1.05, 1.2};

    private final ModelCatalog catalog;
    private final String policy;
    private final int arrivalsPerRun;
    private final long seed;
    private final Map<Key, Measured> cache = new HashMap<>();
    private int simulations;

    /** 20,000 requests a run under {@code policy}, seed 1. */
    public SingleDeviceGoodput(ModelCatalog catalog, String policy) {
        this(catalog, policy, 20_000, 1);
    }

    public SingleDeviceGoodput(ModelCatalog catalog, String policy, int arrivalsPerRun, long seed) {
        if (arrivalsPerRun < 100) throw new IllegalArgumentException("a run needs at least 100 requests, got " + arrivalsPerRun);
        Simulation.builder(catalog).policy(policy); // an unknown policy fails now, not at the first stream
        this.catalog = catalog;
        this.policy = policy;
        this.arrivalsPerRun = arrivalsPerRun;
        this.seed = seed;
    }

    public String policy() {
        return policy;
    }

    /** How many simulations every measurement so far took together. */
    public int simulations() {
        return simulations;
    }

    /**
     * {@code T_i} of the stream; 0 when no batch of its model finishes within its SLO on a device.
     *
     * @throws IllegalArgumentException for a model the catalog lacks
     */
    public Measured of(RequestStream stream) {
        ModelSpec model = catalog.get(stream.model());
        if (model == null) throw new IllegalArgumentException("model '" + stream.model() + "' is not in the catalog");
        Key key = new Key(stream.model(), stream.sloMicros(), stream.cv2());
        Measured m = cache.get(key);
        if (m == null) {
            m = measure(model, stream);
            cache.put(key, m);
        }
        return m;
    }

    /** The most requests per second one device finishes within {@code sloMicros}: {@code max b / tau(b)} over the sizes with {@code tau(b) <= SLO}; 0 if none. */
    public static double capacityBound(ModelSpec model, long sloMicros) {
        LatencyProfile p = model.latency();
        double best = 0;
        for (int i = 0; i < p.batchSizeCount(); i++) {
            long tau = p.latencyAt(i);
            if (tau <= sloMicros) best = Math.max(best, p.batchSizeAt(i) * 1e6 / tau);
        }
        return best;
    }

    private Measured measure(ModelSpec model, RequestStream stream) {
        double bound = capacityBound(model, stream.sloMicros());
        if (bound == 0) return new Measured(0, 0, 0);
        int runs = 0;
        double[] goodput = new double[GRID.length];
        int best = 0;
        for (int i = 0; i < GRID.length; i++) {
            goodput[i] = goodput(stream, GRID[i] * bound);
            runs++;
            if (goodput[i] > goodput[best]) best = i;
        }
        double bestRate = GRID[best] * bound;
        double bestGoodput = goodput[best];
        // Once more halfway to each neighbour of the best point: the top is rarely on the grid.
        for (int n : new int[]{best - 1, best + 1}) {
            if (n < 0 || n >= GRID.length) continue;
            double rate = (GRID[best] + GRID[n]) / 2 * bound;
            double g = goodput(stream, rate);
            runs++;
            if (g > bestGoodput) {
                bestGoodput = g;
                bestRate = rate;
            }
        }
        simulations += runs;
        return new Measured(bestGoodput, bestRate, runs);
    }

    private double goodput(RequestStream stream, double ratePerSecond) {
        long duration = Math.max(1_000_000L, Math.round(arrivalsPerRun / ratePerSecond * 1e6));
        SimulationReport r = Simulation.builder(catalog).devices(1).policy(policy)
                .workload(new Workload(List.of(new ModelLoad("herd", stream.model(), stream.sloMs(), stream.arrivals(ratePerSecond)))))
                .duration(duration).warmup(duration / 10).seed(seed).build().run();
        return r.goodputPerSecond();
    }
}
