package io.kairos.control.tuner;

import io.kairos.control.smdp.CostWeights;
import io.kairos.control.smdp.RateDrift;
import io.kairos.control.smdp.TablePlanner;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.model.ModelSpec;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Keeps the {@code smdp} policy's batching tables solved for the rate their models now see: a
 * model's table is solved again ({@link TablePlanner}) when the rate per device of its group has
 * drifted from the rate per device the table was solved for by more than the {@link RateDrift}
 * share, either way; the rate per device moves when the traffic moves and when the tuner changes
 * the group's replicas. So the policy stays optimal without a person running {@code kairos plan
 * smdp}.
 *
 * <p>A rate the model cannot carry on its devices (at or above their capacity) gets no table: the
 * table in place stays, and {@link Result#problem} says why, once until the rate drifts from it
 * (the tuner's replicas are what answers such a rate). Plain Java; not thread-safe.
 */
public final class BatchingFollower {
    /**
     * What a call found.
     *
     * @param plan    the new table and its decision, when one was solved
     * @param problem why no table could be solved for a drifted rate; null otherwise
     */
    public record Result(Optional<TablePlanner.Plan> plan, String problem) {
        static final Result NONE = new Result(Optional.empty(), null);
    }

    private final ModelCatalog catalog;
    private final RateDrift drift;
    private final TablePlanner planner;
    private final CostWeights weights;
    /** Per {@code group/model}: the rate per device its table was solved for. */
    private final Map<String, Double> solvedPerDevice = new HashMap<>();
    /** Per {@code group/model}: the rate per device no table could be solved for, not tried again until the rate drifts from it. */
    private final Map<String, Double> refusedPerDevice = new HashMap<>();

    public BatchingFollower(ModelCatalog catalog, RateDrift drift, TablePlanner planner, CostWeights weights) {
        this.catalog = catalog;
        this.drift = drift;
        this.planner = planner;
        this.weights = weights;
    }

    /** The table in place for {@code model} in {@code group} was solved for {@code ratePerSecond} on {@code devices} devices. */
    public void solvedFor(String group, String model, double ratePerSecond, int devices) {
        solvedPerDevice.put(group + "/" + model, ratePerSecond / devices);
    }

    /** The rate per device {@code model}'s table in {@code group} was solved for; NaN when none was. */
    public double solvedPerDevice(String group, String model) {
        return solvedPerDevice.getOrDefault(group + "/" + model, Double.NaN);
    }

    /**
     * A new table for {@code model} in {@code group} if its rate per device has drifted (or none
     * was solved yet): {@code ratePerSecond} over the group's {@code devices}. A silent model (rate
     * 0) keeps its table.
     */
    public Result follow(String group, String model, double ratePerSecond, int devices) {
        if (!(ratePerSecond > 0) || devices < 1) return Result.NONE;
        String key = group + "/" + model;
        double perDevice = ratePerSecond / devices;
        Double solved = solvedPerDevice.get(key);
        if (solved != null && !drift.drifted(solved, perDevice)) return Result.NONE;
        Double refused = refusedPerDevice.get(key);
        if (refused != null && !drift.drifted(refused, perDevice)) return Result.NONE;
        ModelSpec spec = catalog.get(model);
        if (spec == null) return new Result(Optional.empty(), "model '" + model + "' is not in the catalog");
        try {
            TablePlanner.Plan plan = planner.plan(group, spec, ratePerSecond, devices, weights);
            solvedPerDevice.put(key, perDevice);
            refusedPerDevice.remove(key);
            return new Result(Optional.of(plan), null);
        } catch (IllegalArgumentException e) {
            refusedPerDevice.put(key, perDevice);
            return new Result(Optional.empty(), e.getMessage());
        }
    }
}
