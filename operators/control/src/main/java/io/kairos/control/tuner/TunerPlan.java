package io.kairos.control.tuner;

import java.io.Serializable;
import io.kairos.control.inferline.PipelineDecisions;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.pipeline.PipelineSpec;
import io.kairos.sim.pipeline.PipelineConfig;
import io.kairos.sim.pipeline.StageConfig;
import io.kairos.workload.ArrivalTrace;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What the tuner tunes a pipeline against: the planner's configuration of every stage
 * ({@link StageScale}) and the planning trace's envelope, its rate at each of the settings'
 * windows ({@code SampleRates} of Algorithm 3).
 *
 * @param pipeline    the pipeline's id: the key of its arrivals
 * @param stages      its stages, in topological order
 * @param sampleRates the planning trace's rate per window of {@code settings}
 * @param settings    the windows and timing the sample rates were taken on
 */
public record TunerPlan(String pipeline, List<StageScale> stages, double[] sampleRates, TunerSettings settings) implements Serializable {

    public TunerPlan {
        stages = List.copyOf(stages);
        if (stages.isEmpty()) throw new IllegalArgumentException("pipeline '" + pipeline + "': a tuner plan needs at least one stage");
        if (sampleRates.length != settings.windowsMicros().length) {
            throw new IllegalArgumentException("pipeline '" + pipeline + "': " + sampleRates.length + " sample rates for " + settings.windowsMicros().length + " windows");
        }
        sampleRates = sampleRates.clone();
        for (double r : sampleRates) {
            if (!(r > 0) || Double.isInfinite(r)) throw new IllegalArgumentException("pipeline '" + pipeline + "': a sample rate must be positive, got " + r);
        }
    }

    /**
     * The plan of {@code pipeline} configured as {@code config} (the planner's output) on the
     * planning trace it was planned on: each stage's {@code s_m}, {@code mu_m} (its max batch over
     * the batch's latency on its hardware), planned replicas and group ({@link PipelineDecisions#group}).
     */
    public static TunerPlan of(PipelineSpec pipeline, PipelineConfig config, ModelCatalog catalog, ArrivalTrace planningTrace, TunerSettings settings) {
        Map<String, Double> scale = pipeline.scaleFactors();
        List<StageScale> stages = new ArrayList<>();
        for (Map.Entry<String, StageConfig> e : config.stages().entrySet()) {
            String stage = e.getKey();
            StageConfig c = e.getValue();
            String model = pipeline.stage(stage).model();
            stages.add(new StageScale(stage, PipelineDecisions.group(pipeline, stage), model, c.hardwareType(), scale.get(stage),
                    c.replicaThroughputPerSecond(catalog.get(model)), c.maxBatch(), c.replicas()));
        }
        return new TunerPlan(pipeline.id(), stages, ArrivalEnvelope.sampleRates(planningTrace, settings.bucketMicros(), settings.windowsMicros()), settings);
    }

    @Override
    public double[] sampleRates() {
        return sampleRates.clone();
    }

    /** The sample rate of window {@code i}. */
    public double sampleRate(int i) {
        return sampleRates[i];
    }

    /** The planned replicas of every stage, in order. */
    public int[] plannedReplicas() {
        int[] k = new int[stages.size()];
        for (int s = 0; s < k.length; s++) k[s] = stages.get(s).plannedReplicas();
        return k;
    }
}
