package io.kairos.testbed.experiment;

import io.kairos.control.smdp.BatchServiceModel;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.plan.ServingPlan;
import io.kairos.core.scheduling.BatchingTable;
import io.kairos.core.scheduling.ConfiguredPolicy;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.core.scheduling.policy.SmdpPolicy;
import io.kairos.core.scheduling.policy.StaticBatchPolicy;
import io.kairos.core.scheduling.policy.WorkConservingPolicy;
import io.kairos.sim.Simulation;
import io.kairos.sim.SimulationReport;
import io.kairos.workload.ArrivalSpec;
import io.kairos.workload.ModelLoad;
import io.kairos.workload.Workload;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * The SMDP paper's queue in the simulator: one device, Poisson arrivals at {@code rho} times the
 * largest batch's throughput, GoogLeNet on a Tesla P4 at every batch size 1..32 (so that no batch
 * is padded, as the paper's model has it), no deadlines (an SLO of an hour, no shedding) and an
 * unbounded buffer. The policies are the scheduler's own: {@code smdp} with a table from the
 * solver (its deadline guard off: the paper's policy), {@code work-conserving} and
 * {@code static} with a batch of 8, 16 or 32. What it measures is what the stationary analysis
 * computes: mean latency (arrival to batch end) and mean power over the run.
 */
final class SmdpSimulation {
    static final String MODEL = "googlenet-p4";
    static final int MAX_BATCH = 32;
    /** The paper's GoogLeNet on a P4 with every size 1..32 allowed. */
    static final ModelCatalog CATALOG = ModelCatalog.parse("""
            {"models": [{"name": "%s", "input": {"dtype": "FLOAT32", "shape": [1]}, "batch_sizes": [%s],
              "latency_ms": {"alpha": 0.3051, "beta": 1.052}, "energy_mj": {"beta": 19.90, "zeta0": 19.60}}]}"""
            .formatted(MODEL, IntStream.rangeClosed(1, MAX_BATCH).mapToObj(Integer::toString).collect(Collectors.joining(", "))),
            "the SMDP paper's GoogLeNet on a Tesla P4");
    private static final double NO_DEADLINE_MS = 3_600_000;

    private SmdpSimulation() {}

    /** One device on {@code plan} under {@code load} for {@code durationMicros}, the first 1 % not counted. */
    static SimulationReport run(ServingPlan plan, Workload load, long durationMicros, long seed) {
        return Simulation.builder(CATALOG).plan(plan).workload(load)
                .duration(durationMicros).warmup(durationMicros / 100).learnLatency(null).seed(seed).build().run();
    }

    /** A one-device plan of {@code policy} with these group parameters and, for {@code smdp}, these tables by model. */
    static ServingPlan plan(String policy, Map<String, String> params, Map<String, BatchingTable> tables) {
        ServingPlan plan = new ServingPlan(1, Long.MAX_VALUE, policy, PolicyParams.of(params), CATALOG);
        tables.forEach((model, table) -> plan.setBatchingTable(ServingPlan.DEFAULT_GROUP, model, table));
        return plan;
    }

    /** What one run measured. */
    record Measured(double latencyMs, double powerW, double requestsPerJoule, double meanBatch, long requests, double wallSeconds) {
        /** The paper's average cost per ms, {@code w1 * latency + w2 * power}. */
        double cost(double w1, double w2) {
            return w1 * latencyMs + w2 * powerW;
        }

        /** Relative gap to an analytic cost, (simulated - analytic) / analytic. */
        double gap(double w1, double w2, double analytic) {
            return cost(w1, w2) / analytic - 1;
        }
    }

    /**
     * Runs a policy on the queue at load {@code rho} for about {@code requests} arrivals (the first
     * 1 % not counted, the queue's start from empty); {@code policy} is {@code smdp} (then
     * {@code table} is its table), {@code work-conserving} or {@code static-B}.
     */
    static Measured run(BatchServiceModel p4, double rho, String policy, BatchingTable table, long requests, long seed) {
        double perMs = p4.atLoad(rho).arrivalRate();
        long duration = Math.round(requests / perMs * 1000);
        Map<String, String> params = Map.of(ConfiguredPolicy.SHED, "false", ConfiguredPolicy.SHED_EARLY, "false");
        ServingPlan plan;
        if (policy.equals(SmdpPolicy.NAME)) {
            plan = new ServingPlan(1, Long.MAX_VALUE, SmdpPolicy.NAME,
                    PolicyParams.of(Map.of(ConfiguredPolicy.SHED, "false", ConfiguredPolicy.SHED_EARLY, "false", SmdpPolicy.DEADLINE_GUARD, "false")), CATALOG);
            plan.setBatchingTable(ServingPlan.DEFAULT_GROUP, MODEL, table);
        } else if (policy.equals(WorkConservingPolicy.NAME)) {
            plan = new ServingPlan(1, Long.MAX_VALUE, WorkConservingPolicy.NAME, PolicyParams.of(params), CATALOG);
        } else if (policy.startsWith("static-")) {
            Map<String, String> withBatch = new java.util.HashMap<>(params);
            withBatch.put(StaticBatchPolicy.BATCH, policy.substring("static-".length()));
            plan = new ServingPlan(1, Long.MAX_VALUE, StaticBatchPolicy.NAME, PolicyParams.of(withBatch), CATALOG);
        } else {
            throw new IllegalArgumentException("no such batching policy in the SMDP experiment: " + policy);
        }
        Workload load = new Workload(List.of(ModelLoad.of(ModelLoad.DEFAULT_TENANT, MODEL, perMs * 1000, NO_DEADLINE_MS, ArrivalSpec.POISSON)));
        SimulationReport r = run(plan, load, duration, seed);
        return new Measured(r.meanLatencyMs(), r.meanPowerWatts(), r.requestsPerJoule(), r.meanBatchSize(), r.ok() + r.late(),
                r.wallNanos() / 1e9);
    }
}
