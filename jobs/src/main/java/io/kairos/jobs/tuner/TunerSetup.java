package io.kairos.jobs.tuner;

import io.kairos.control.inferline.InferLinePlanner;
import io.kairos.control.inferline.PipelineDecisions;
import io.kairos.control.tuner.TunerPlan;
import io.kairos.control.tuner.TunerSettings;
import io.kairos.core.device.DeviceSlots;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.pipeline.PipelineSpec;
import io.kairos.core.plan.ServingPlan;
import io.kairos.sim.pipeline.PipelineConfig;
import io.kairos.sim.pipeline.PipelineEstimator;
import io.kairos.workload.ArrivalTrace;

import java.util.List;
import java.util.Map;

/**
 * What the tuner job tunes a pipeline against, planned as {@code kairos plan pipeline} plans it
 * (InferLine's planner on the sample trace, the same seed): the planner's configuration, the
 * tuner's plan on it, each stage's devices as the plan's decisions place them, and those decisions.
 * The planner is deterministic, so a tuner job set up from the same pipeline, trace, catalog,
 * devices and seed tunes exactly the placement that {@code kairos plan pipeline --publish}
 * published.
 *
 * @param placed  each stage's device slots, in the plan's stage order ({@link PipelineDecisions#devices})
 * @param actions the plan's decisions, in the order to publish them ({@link PipelineDecisions#actions})
 */
public record TunerSetup(PipelineSpec pipeline, PipelineConfig config, long sloMicros, TunerPlan plan, List<List<Integer>> placed,
                         List<Object> actions) {

    /**
     * @throws IllegalArgumentException in one line where the planner finds no configuration, or
     *                                  the devices lack what it plans
     */
    public static TunerSetup plan(PipelineSpec pipeline, ArrivalTrace trace, ModelCatalog catalog, DeviceSlots devices, long sloMicros, long seed,
                                  TunerSettings settings) {
        return plan(pipeline, trace, catalog, devices, sloMicros, seed, settings, null);
    }

    /**
     * Against the job's {@code current} plan, as {@code kairos plan pipeline --publish} places it:
     * the stages on slots no other group holds ({@link PipelineDecisions#devices(PipelineSpec, PipelineConfig, DeviceSlots, ServingPlan)}).
     * Read after the pipeline was published, the plan holds its groups, which give their slots up
     * to it again: the same slots.
     *
     * @param current the job's plan as its control topic holds it; null: a job that has placed nothing
     */
    public static TunerSetup plan(PipelineSpec pipeline, ArrivalTrace trace, ModelCatalog catalog, DeviceSlots devices, long sloMicros, long seed,
                                  TunerSettings settings, ServingPlan current) {
        PipelineEstimator estimator = new PipelineEstimator(catalog, pipeline, trace, seed);
        InferLinePlanner.Plan planned = new InferLinePlanner(estimator, sloMicros, trace.meanRatePerSecond(), devices.distinctTypes()).plan();
        if (!planned.feasible()) throw new IllegalArgumentException("pipeline '" + pipeline.id() + "': " + planned.infeasibility());
        PipelineConfig config = planned.config();
        List<List<Integer>> placed = PipelineDecisions.devices(pipeline, config, devices, current).stream().map(PipelineDecisions.StageDevices::slots).toList();
        return new TunerSetup(pipeline, config, sloMicros, TunerPlan.of(pipeline, config, catalog, trace, settings), placed,
                PipelineDecisions.actions(pipeline, config, devices, sloMicros, current));
    }

    /** The tuner job's function for this pipeline alone, on the job's {@code devices}, its decisions written as {@code writer}. */
    public TunePipelines function(DeviceSlots devices, String writer) {
        return new TunePipelines(Map.of(pipeline.id(), plan), devices, Map.of(pipeline.id(), placed), writer);
    }
}
