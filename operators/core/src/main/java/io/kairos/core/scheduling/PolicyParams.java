package io.kairos.core.scheduling;

import java.io.Serializable;
import java.util.HashMap;
import java.util.Map;

/**
 * A policy's parameters for a serving group, with per-model overrides. Immutable; a control
 * decision replaces it with a changed copy.
 */
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

    public String get(String model, String key) {
        Map<String, String> own = model == null ? null : perModel.get(model);
        String v = own == null ? null : own.get(key);
        return v != null ? v : group.get(key);
    }

    public double getDouble(String model, String key, double fallback) {
        String v = get(model, key);
        if (v == null) return fallback;
        try {
            return Double.parseDouble(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("policy parameter '" + key + "' must be a number, got '" + v + "'");
        }
    }

    public long getMillisAsMicros(String model, String key, double fallbackMs) {
        return Math.round(getDouble(model, key, fallbackMs) * 1000.0);
    }

    public int getInt(String model, String key, int fallback) {
        return (int) Math.round(getDouble(model, key, fallback));
    }

    public boolean getBoolean(String key, boolean fallback) {
        String v = get(null, key);
        return v == null ? fallback : Boolean.parseBoolean(v.trim());
    }

    @Override
    public String toString() {
        return perModel.isEmpty() ? group.toString() : group + " " + perModel;
    }
}
