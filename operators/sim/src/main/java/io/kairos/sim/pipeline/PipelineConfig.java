package io.kairos.sim.pipeline;

import io.kairos.core.model.HardwareType;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.model.ModelSpec;
import io.kairos.core.pipeline.PipelineSpec;
import io.kairos.core.pipeline.Stage;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * A configuration of a whole pipeline: a {@link StageConfig} for every stage, in the pipeline's
 * topological order, and what it costs: the sum over the stages of replicas times the price per
 * hour of their hardware type. Immutable; two configurations are equal when every stage is
 * configured alike, which is what a planner caches its estimates by.
 */
public final class PipelineConfig {
    private final Map<String, StageConfig> stages;

    private PipelineConfig(Map<String, StageConfig> stages) {
        this.stages = Collections.unmodifiableMap(stages);
    }

    /**
     * The configuration of every stage of {@code pipeline}, checked against the catalog: each stage
     * configured once, on a hardware type its model has a profile on, with a max batch that is one
     * of the model's batch sizes.
     *
     * @throws IllegalArgumentException in one line naming the stage
     */
    public static PipelineConfig of(PipelineSpec pipeline, ModelCatalog catalog, Map<String, StageConfig> byStage) {
        Map<String, StageConfig> ordered = new LinkedHashMap<>();
        for (String name : pipeline.topologicalOrder()) {
            StageConfig c = byStage.get(name);
            if (c == null) throw new IllegalArgumentException("pipeline '" + pipeline.id() + "': stage '" + name + "' has no configuration");
            Stage stage = pipeline.stage(name);
            ModelSpec model = catalog.get(stage.model());
            if (model == null) throw new IllegalArgumentException("stage '" + name + "': the catalog has no model '" + stage.model() + "'");
            if (catalog.hardwareType(c.hardwareType()) == null) {
                throw new IllegalArgumentException("stage '" + name + "': the catalog has no hardware type '" + c.hardwareType() + "'");
            }
            if (!model.runsOn(c.hardwareType())) {
                throw new IllegalArgumentException("stage '" + name + "': model '" + model.name() + "' has no profile on hardware type '"
                        + c.hardwareType() + "'; it runs on " + model.hardwareTypes());
            }
            if (model.latency().largestSizeAtMost(c.maxBatch()) != c.maxBatch()) {
                throw new IllegalArgumentException("stage '" + name + "': max batch " + c.maxBatch() + " is not one of model '" + model.name()
                        + "''s batch sizes " + java.util.Arrays.toString(model.latency().batchSizes()));
            }
            ordered.put(name, c);
        }
        for (String name : byStage.keySet()) {
            if (pipeline.stage(name) == null) throw new IllegalArgumentException("pipeline '" + pipeline.id() + "' has no stage '" + name + "'");
        }
        return new PipelineConfig(ordered);
    }

    /** The stages' configurations in the pipeline's topological order. */
    public Map<String, StageConfig> stages() {
        return stages;
    }

    public StageConfig stage(String name) {
        StageConfig c = stages.get(name);
        if (c == null) throw new IllegalArgumentException("no stage '" + name + "' in this configuration");
        return c;
    }

    /** This configuration with stage {@code name} configured as {@code c} (not checked against a catalog: the caller's moves keep it valid). */
    public PipelineConfig with(String name, StageConfig c) {
        if (!stages.containsKey(name)) throw new IllegalArgumentException("no stage '" + name + "' in this configuration");
        Map<String, StageConfig> next = new LinkedHashMap<>(stages);
        next.put(name, c);
        return new PipelineConfig(next);
    }

    /** What the configuration's devices cost per hour: replicas times their type's price, summed over the stages. */
    public double costPerHour(ModelCatalog catalog) {
        double cost = 0;
        for (StageConfig c : stages.values()) cost += c.replicas() * price(catalog, c.hardwareType());
        return cost;
    }

    /** How many devices of each hardware type the configuration takes, by type name. */
    public Map<String, Integer> devicesByType() {
        Map<String, Integer> n = new TreeMap<>();
        for (StageConfig c : stages.values()) n.merge(c.hardwareType(), c.replicas(), Integer::sum);
        return n;
    }

    /** All the replicas together. */
    public int replicas() {
        int n = 0;
        for (StageConfig c : stages.values()) n += c.replicas();
        return n;
    }

    static double price(ModelCatalog catalog, String type) {
        HardwareType t = catalog.hardwareType(type);
        if (t == null) throw new IllegalArgumentException("the catalog has no hardware type '" + type + "'");
        return t.pricePerHour();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PipelineConfig p && p.stages.equals(stages);
    }

    @Override
    public int hashCode() {
        return stages.hashCode();
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("{");
        stages.forEach((name, c) -> s.append(s.length() > 1 ? ", " : "").append(String.format(Locale.ROOT, "%s: %s", name, c)));
        return s.append('}').toString();
    }
}
