package io.kairos.core.scheduling;

import io.kairos.core.api.PublicEvolving;
import java.io.Serializable;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A policy's parameters for a serving group as a control decision or the command line gives them:
 * strings, group-wide and per model. Immutable; a control decision replaces it with a changed
 * copy. A policy reads them once, into typed fields ({@link ParamReader}); nothing parses them
 * while scheduling.
 */
@PublicEvolving
public final class PolicyParams implements Serializable {
    private static final long serialVersionUID = 1L;
    public static final PolicyParams NONE = new PolicyParams(Map.of(), Map.of());

    private final Map<String, String> group;
    private final Map<String, Map<String, String>> perModel;

    private PolicyParams(Map<String, String> group, Map<String, Map<String, String>> perModel) {
        this.group = group;
        this.perModel = perModel;
    }

    public static PolicyParams of(Map<String, String> group) {
        return new PolicyParams(Map.copyOf(group), Map.of());
    }

    public PolicyParams withGroup(Map<String, String> values) {
        return new PolicyParams(Map.copyOf(values), perModel);
    }

    public PolicyParams withModel(String model, Map<String, String> values) {
        Map<String, Map<String, String>> copy = new HashMap<>(perModel);
        copy.put(model, Map.copyOf(values));
        return new PolicyParams(group, Map.copyOf(copy));
    }

    /** The same group-wide values without any per-model override. */
    public PolicyParams withoutModels() {
        return perModel.isEmpty() ? this : new PolicyParams(group, Map.of());
    }

    /** A model's value of {@code key}, else the group's; {@code model} null: the group's. */
    public String get(String model, String key) {
        Map<String, String> own = model == null ? null : perModel.get(model);
        String v = own == null ? null : own.get(key);
        return v != null ? v : group.get(key);
    }

    /** The group-wide values. */
    public Map<String, String> group() {
        return group;
    }

    /** The per-model overrides, by model. */
    public Map<String, Map<String, String>> perModel() {
        return perModel;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PolicyParams p && group.equals(p.group) && perModel.equals(p.perModel);
    }

    @Override
    public int hashCode() {
        return Objects.hash(group, perModel);
    }

    @Override
    public String toString() {
        return perModel.isEmpty() ? group.toString() : group + " " + perModel;
    }
}
