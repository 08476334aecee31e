package io.kairos.control.herd;

import io.kairos.core.model.ModelCatalog;
import io.kairos.core.plan.ServingPlan;
import io.kairos.schema.ControlDecision;
import io.kairos.sim.Simulation;
import io.kairos.sim.SimulationReport;
import io.kairos.wire.plan.DecisionKey;
import io.kairos.wire.plan.Decisions;
import io.kairos.workload.ModelLoad;
import io.kairos.workload.Workload;

import java.util.ArrayList;
import java.util.List;

/**
 * What a Herd plan will do before it is applied: the job's current plan and the plan with Herd's
 * decisions applied (by the job's own {@link Decisions}), each simulated on the same arrivals of
 * the streams (one load per stream, its rate, SLO and CV², one seed), so that the two predicted
 * attainments differ by the plans alone.
 */
public final class HerdDryRun {
    private HerdDryRun() {}

    /** The two runs: the job's plan as it is, and with the Herd plan applied. */
    public record Result(SimulationReport current, SimulationReport herd) {}

    /**
     * {@code current} with {@code actions} applied in order, as the job applies them.
     *
     * @throws IllegalArgumentException naming the decision the plan refuses
     */
    public static ServingPlan applied(ServingPlan current, List<Object> actions) {
        ServingPlan plan = current.copy();
        long version = 1;
        for (Object action : actions) {
            ControlDecision d = ControlDecision.newBuilder().setVersion(version++).setIssuedAtMicros(0).setIssuedBy("kairos-plan-herd")
                    .setKey(DecisionKey.of(action)).setAction(action).build();
            try {
                Decisions.apply(plan, d);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(DecisionKey.of(action) + ": " + e.getMessage(), e);
            }
        }
        return plan;
    }

    /** The streams as the simulator's load: each at its rate with its own arrival process. */
    public static Workload workload(List<RequestStream> streams) {
        List<ModelLoad> loads = new ArrayList<>();
        for (RequestStream s : streams) loads.add(new ModelLoad(ModelLoad.DEFAULT_TENANT, s.model(), s.sloMs(), s.arrivals(s.ratePerSecond())));
        return new Workload(loads);
    }

    /**
     * Simulates both plans for {@code durationMicros} (the first tenth a warm-up) on the same arrivals.
     *
     * @param current the job's plan, with its devices' memory and the catalog
     */
    public static Result run(ModelCatalog catalog, ServingPlan current, List<Object> actions, List<RequestStream> streams, long durationMicros, long seed) {
        Workload workload = workload(streams);
        SimulationReport before = simulate(catalog, current, workload, durationMicros, seed);
        SimulationReport after = simulate(catalog, applied(current, actions), workload, durationMicros, seed);
        return new Result(before, after);
    }

    private static SimulationReport simulate(ModelCatalog catalog, ServingPlan plan, Workload workload, long durationMicros, long seed) {
        return Simulation.builder(catalog).plan(plan).workload(workload).duration(durationMicros).warmup(durationMicros / 10).seed(seed).build().run();
    }
}
