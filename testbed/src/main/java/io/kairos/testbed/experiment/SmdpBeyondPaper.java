package io.kairos.testbed.experiment;

import io.kairos.control.smdp.BatchServiceModel;
import io.kairos.control.smdp.CostWeights;
import io.kairos.control.smdp.SmdpSolver;
import io.kairos.core.metrics.ResultSummary;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.scheduling.BatchingTable;
import io.kairos.core.scheduling.ConfiguredPolicy;
import io.kairos.core.scheduling.policy.TritonPolicy;
import io.kairos.core.scheduling.policy.LatestStartPolicy;
import io.kairos.core.scheduling.policy.SmdpPolicy;
import io.kairos.core.scheduling.policy.WorkConservingPolicy;
import io.kairos.sim.SimulationReport;
import io.kairos.workload.ArrivalSpec;
import io.kairos.workload.ModelLoad;
import io.kairos.workload.Workload;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import static io.kairos.tools.format.Numbers.significant;

/**
 * Beyond the SMDP paper, on the simulator with the P4 GoogLeNet ({@link SmdpSimulation#CATALOG}):
 *
 * <ul>
 *   <li><b>Two models on one device</b>, each with its own table ({@code multimodel.csv}): copies
 *       A and B of the model at 40 % and 15 % of the device's largest throughput, no deadlines;
 *       {@code smdp} with each model's table solved for its own rate as if it had the device alone
 *       (the paper's model has one queue), against work-conserving and Triton's batcher (1 ms);
 *       per model and for the device: mean latency, power (a model's share: the energy of its
 *       batches over the run), energy per request and the cost {@code latency + w2 * power}.</li>
 *   <li><b>Energy against SLO attainment</b> ({@code pareto.csv}, {@code pareto.png}): one device at
 *       60 % load, SLO 15 or 50 ms, Poisson or bursty (Gamma, CV² 8) arrivals; {@code smdp} with
 *       its deadline guard as w2 sweeps 0..500, Triton's batcher as its queue delay sweeps 0..20 ms,
 *       and {@code kairos} (no knob: one point); each point's energy per request, attainment and mean
 *       latency, and whether it is on its policy's Pareto front of energy against attainment
 *       ({@code pareto}: no other point of the policy has no more energy and no less attainment,
 *       and is better in one) and of energy against mean latency ({@code pareto_latency}).</li>
 * </ul>
 */
final class SmdpBeyondPaper {
    private SmdpBeyondPaper() {}

    static final String MULTIMODEL_CSV = "multimodel.csv";
    static final String PARETO_CSV = "pareto.csv";
    static final double[] MULTIMODEL_W2 = {0, 1, 5, 20};
    static final double[] MULTIMODEL_RHO = {0.40, 0.15};
    static final double PARETO_RHO = 0.6;
    static final double[] PARETO_SLO_MS = {15, 50};
    static final double[] PARETO_W2 = {0, 0.5, 1, 2, 5, 10, 20, 50, 500};
    static final double[] PARETO_DELAY_MS = {0, 0.5, 1, 2, 5, 10, 20};
    static final long REQUESTS = 1_000_000;

    static final List<String> MULTIMODEL_COLUMNS = List.of("w2", "policy", "model", "rate_per_s", "latency_ms", "power_w",
            "energy_per_request_mj", "mean_batch", "cost", "requests");
    static final List<String> PARETO_COLUMNS = List.of("arrivals", "slo_ms", "policy", "knob", "slo_attainment", "goodput_per_s",
            "mean_latency_ms", "p99_ms", "energy_per_request_mj", "mean_power_w", "requests_per_j", "mean_batch", "pareto", "pareto_latency");

    private static final Map<String, String> NO_SHEDDING = Map.of(ConfiguredPolicy.SHED, "false", ConfiguredPolicy.SHED_EARLY, "false");

    /** The multi-model runs, each giving its rows. */
    static List<Callable<Object>> multimodel(SmdpSolver solver) {
        List<Callable<Object>> runs = new ArrayList<>();
        String[] models = {ModelCatalog.instanceName(SmdpSimulation.MODEL, 1), ModelCatalog.instanceName(SmdpSimulation.MODEL, 2)};
        for (double w2 : MULTIMODEL_W2) {
            for (String policy : List.of(SmdpPolicy.NAME, WorkConservingPolicy.NAME, TritonPolicy.NAME)) {
                runs.add(() -> {
                    Map<String, BatchingTable> tables = new LinkedHashMap<>();
                    Map<String, String> params = new LinkedHashMap<>(NO_SHEDDING);
                    if (policy.equals(SmdpPolicy.NAME)) {
                        params.put(SmdpPolicy.DEADLINE_GUARD, "false");
                        for (int m = 0; m < models.length; m++) {
                            BatchServiceModel alone = SmdpExperiment.P4.atLoad(MULTIMODEL_RHO[m]);
                            tables.put(models[m], SmdpExperiment.accepted(solver, alone, CostWeights.of(1, w2)).table());
                        }
                    }
                    List<ModelLoad> loads = new ArrayList<>();
                    double total = 0;
                    for (int m = 0; m < models.length; m++) {
                        double perMs = SmdpExperiment.P4.atLoad(MULTIMODEL_RHO[m]).arrivalRate();
                        total += perMs;
                        loads.add(ModelLoad.of(ModelLoad.DEFAULT_TENANT, models[m], perMs * 1000, 3_600_000, ArrivalSpec.POISSON));
                    }
                    long duration = Math.round(4 * REQUESTS / total * 1000);
                    SimulationReport r = SmdpSimulation.run(SmdpSimulation.plan(policy, params, tables), new Workload(loads), duration, SmdpExperiment.SIM_SEED);
                    List<List<String>> rows = new ArrayList<>();
                    for (int m = 0; m < models.length; m++) {
                        ResultSummary.Stats s = r.byModel().model(models[m]);
                        rows.add(multimodelRow(w2, policy, models[m], loads.get(m).ratePerSecond(), s, r.meanPowerWatts(models[m])));
                    }
                    rows.add(multimodelRow(w2, policy, ResultSummary.ALL, total * 1000, r.results(), r.meanPowerWatts()));
                    return rows;
                });
            }
        }
        return runs;
    }

    private static List<String> multimodelRow(double w2, String policy, String model, double rate, ResultSummary.Stats s, double power) {
        double latency = s.meanLatencyMicros() / 1000;
        return List.of(significant(w2), policy, model, significant(rate), significant(latency), significant(power), significant(s.energyPerRequestMillijoules()),
                significant(s.meanBatchSize()), significant(latency + w2 * power), Long.toString(s.served()));
    }

    /** The Pareto runs, each giving one row (its {@code pareto} column filled in by {@link #markFronts}). */
    static List<Callable<Object>> pareto(SmdpSolver solver) {
        List<Callable<Object>> runs = new ArrayList<>();
        BatchServiceModel model = SmdpExperiment.P4.atLoad(PARETO_RHO);
        for (String arrivals : List.of("poisson", "gamma:cv2=8")) {
            for (double slo : PARETO_SLO_MS) {
                for (double w2 : PARETO_W2) {
                    runs.add(() -> {
                        BatchingTable table = SmdpExperiment.accepted(solver, model, CostWeights.of(1, w2)).table();
                        Map<String, String> params = Map.of(ConfiguredPolicy.SHED_EARLY, "false");
                        return paretoRow(arrivals, slo, SmdpPolicy.NAME, "w2=" + significant(w2),
                                SmdpSimulation.plan(SmdpPolicy.NAME, params, Map.of(SmdpSimulation.MODEL, table)));
                    });
                }
                for (double delay : PARETO_DELAY_MS) {
                    runs.add(() -> paretoRow(arrivals, slo, TritonPolicy.NAME, "delay=" + significant(delay) + "ms",
                            SmdpSimulation.plan(TritonPolicy.NAME, Map.of(ConfiguredPolicy.SHED_EARLY, "false",
                                    TritonPolicy.MAX_QUEUE_DELAY_MS, significant(delay)), Map.of())));
                }
                runs.add(() -> paretoRow(arrivals, slo, LatestStartPolicy.KAIROS, "", SmdpSimulation.plan(LatestStartPolicy.KAIROS, Map.of(), Map.of())));
            }
        }
        return runs;
    }

    private static List<String> paretoRow(String arrivals, double slo, String policy, String knob, io.kairos.core.plan.ServingPlan plan) {
        double perMs = SmdpExperiment.P4.atLoad(PARETO_RHO).arrivalRate();
        Workload load = new Workload(List.of(ModelLoad.of(ModelLoad.DEFAULT_TENANT, SmdpSimulation.MODEL, perMs * 1000, slo, ArrivalSpec.parse(arrivals))));
        SimulationReport r = SmdpSimulation.run(plan, load, Math.round(REQUESTS / perMs * 1000), SmdpExperiment.SIM_SEED);
        return List.of(arrivals, significant(slo), policy, knob, significant(r.sloAttainment()), significant(r.goodputPerSecond()), significant(r.meanLatencyMs()),
                significant(r.p99Micros() / 1000.0), significant(r.energyPerRequestMillijoules()), significant(r.meanPowerWatts()), significant(r.requestsPerJoule()),
                significant(r.meanBatchSize()), "", "");
    }

    /** Fills the {@code pareto} columns: whether a point is on its policy's front at its arrivals and SLO. */
    static List<List<String>> markFronts(List<List<String>> rows) {
        int e = PARETO_COLUMNS.indexOf("energy_per_request_mj"), a = PARETO_COLUMNS.indexOf("slo_attainment"),
                l = PARETO_COLUMNS.indexOf("mean_latency_ms");
        List<List<String>> out = new ArrayList<>();
        for (List<String> row : rows) {
            List<String> marked = new ArrayList<>(row);
            // Attainment is better higher: negated, both criteria are better lower.
            marked.set(PARETO_COLUMNS.indexOf("pareto"), Boolean.toString(!dominated(rows, row, e, a, -1)));
            marked.set(PARETO_COLUMNS.indexOf("pareto_latency"), Boolean.toString(!dominated(rows, row, e, l, 1)));
            out.add(marked);
        }
        return out;
    }

    /** Whether another point of the same arrivals, SLO and policy is no worse in energy and in {@code other} and better in one. */
    private static boolean dominated(List<List<String>> rows, List<String> row, int energy, int other, int sign) {
        double re = Double.parseDouble(row.get(energy)), ro = sign * Double.parseDouble(row.get(other));
        for (List<String> o : rows) {
            if (o == row || !o.subList(0, 3).equals(row.subList(0, 3))) continue;
            double oe = Double.parseDouble(o.get(energy)), oo = sign * Double.parseDouble(o.get(other));
            if (oe <= re && oo <= ro && (oe < re || oo < ro)) return true;
        }
        return false;
    }
}
