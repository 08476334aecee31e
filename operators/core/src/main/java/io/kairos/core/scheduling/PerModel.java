package io.kairos.core.scheduling;

import io.kairos.core.api.PublicEvolving;
import java.util.Map;

/**
 * A policy's typed configuration for its serving group and the models that override it. Looked up
 * on every schedule: a map read, and none when no model overrides anything.
 */
@PublicEvolving
public record PerModel<C>(C group, Map<String, C> models) {
    public PerModel {
        models = Map.copyOf(models);
    }

    /** The same configuration for every model. */
    public static <C> PerModel<C> of(C group) {
        return new PerModel<>(group, Map.of());
    }

    /** The configuration {@code model} runs with. */
    public C of(String model) {
        if (models.isEmpty()) return group;
        C own = models.get(model);
        return own != null ? own : group;
    }
}
