package io.kairos.core.scheduling;

import io.kairos.core.api.PublicEvolving;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.DoublePredicate;
import java.util.function.Function;

/**
 * Reads a policy's {@link PolicyParams} into typed values, once, when a policy is set: a decision
 * applied, a simulation built, the job's default from the command line. A bad value throws an
 * {@link IllegalArgumentException} that names the serving group, the model (for a per-model
 * override), the parameter and the value; so does a parameter the policy never asked for, with the
 * ones it knows. A policy knows exactly the keys it asks for, so it asks for every key it has,
 * whether set or not.
 *
 * <p>Beside the strings, the reader hands out the group's batching tables ({@link #batchingTables}),
 * and the network a control decision delivered to the group ({@link #network}): typed values that
 * their own control decisions deliver. A policy that batches from tables takes them, the learned
 * policy takes the network, the others leave them.
 */
@PublicEvolving
public final class ParamReader {
    private final String group;
    private final String policy;
    private final PolicyParams params;
    private final String model;
    private final Set<String> groupKeys;
    private final Set<String> modelKeys;
    private final ControlInputs inputs;

    /** @param group the serving group, for messages; null when the parameters are a default for every group */
    public ParamReader(String group, String policy, PolicyParams params) {
        this(group, policy, params, ControlInputs.NONE);
    }

    /** @param inputs the group's batching tables and network, as its control decisions delivered them */
    public ParamReader(String group, String policy, PolicyParams params, ControlInputs inputs) {
        this(group, policy, params, null, new TreeSet<>(), new TreeSet<>(), inputs);
    }

    private ParamReader(String group, String policy, PolicyParams params, String model, Set<String> groupKeys, Set<String> modelKeys,
                        ControlInputs inputs) {
        this.group = group;
        this.policy = policy;
        this.params = params;
        this.model = model;
        this.groupKeys = groupKeys;
        this.modelKeys = modelKeys;
        this.inputs = inputs;
    }

    /** The network a control decision delivered to the group, or null when none did. */
    public PublishedNetwork network() {
        return inputs.network();
    }

    /** The group's batching tables by model, as control decisions set them; empty when none is. */
    public Map<String, BatchingTable> batchingTables() {
        return inputs.tables();
    }

    /** A number that {@code valid} accepts ({@code requirement} says what it accepts, for the message). */
    public double number(String key, double fallback, DoublePredicate valid, String requirement) {
        String raw = raw(key);
        if (raw == null) return fallback;
        double v;
        try {
            v = Double.parseDouble(raw.trim());
        } catch (NumberFormatException e) {
            throw bad(key, raw, requirement);
        }
        if (!Double.isFinite(v) || !valid.test(v)) throw bad(key, raw, requirement);
        return v;
    }

    /** A duration in milliseconds, at least 0, as microseconds. */
    public long millisAsMicros(String key, double fallbackMs) {
        return Math.round(number(key, fallbackMs, v -> v >= 0, "a number of milliseconds, at least 0") * 1000.0);
    }

    /** A whole number of at least 1. */
    public int positiveInt(String key, int fallback) {
        String raw = raw(key);
        if (raw == null) return fallback;
        double v = number(key, fallback, d -> d >= 1 && d <= Integer.MAX_VALUE && d == Math.rint(d), "a whole number, at least 1");
        return (int) v;
    }

    /**
     * Whole numbers of at least 1, separated by commas, in increasing order without repeats
     * (e.g. Triton's preferred batch sizes {@code 4,8}); empty when not set.
     */
    public int[] increasingPositiveInts(String key) {
        String raw = raw(key);
        if (raw == null || raw.isBlank()) return new int[0];
        String requirement = "whole numbers of at least 1 separated by commas, in increasing order";
        String[] parts = raw.split(",", -1);
        int[] out = new int[parts.length];
        for (int i = 0; i < parts.length; i++) {
            try {
                out[i] = Integer.parseInt(parts[i].trim());
            } catch (NumberFormatException e) {
                throw bad(key, raw, requirement);
            }
            if (out[i] < 1 || (i > 0 && out[i] <= out[i - 1])) throw bad(key, raw, requirement);
        }
        return out;
    }

    /**
     * Whether the parameter is set to {@code word} (ignoring case and surrounding blanks): for a
     * parameter that takes a word besides its numbers, read with the number reader otherwise.
     */
    public boolean is(String key, String word) {
        String raw = raw(key);
        return raw != null && raw.trim().equalsIgnoreCase(word);
    }

    /** The value as it is set (surrounding blanks removed), or {@code fallback} when not set: a name, a file. */
    public String text(String key, String fallback) {
        String raw = raw(key);
        return raw == null ? fallback : raw.trim();
    }

    /** Whether the parameter is set at all (for the group, or for this reader's model or its group). */
    public boolean isSet(String key) {
        return raw(key) != null;
    }

    /** One of the words {@code allowed} (ignoring surrounding blanks). */
    public String oneOf(String key, String fallback, java.util.List<String> allowed) {
        String raw = raw(key);
        if (raw == null) return fallback;
        String v = raw.trim();
        if (!allowed.contains(v)) throw bad(key, raw, "one of " + String.join(", ", allowed));
        return v;
    }

    /**
     * Whether the parameter is set by this reader's own values: the model's overrides for a
     * model's reader (not the group's it falls back on), the group's for the group's.
     */
    public boolean isSetHere(String key) {
        raw(key);
        Map<String, String> own = model == null ? params.group() : params.perModel().get(model);
        return own != null && own.containsKey(key);
    }

    /** {@code true} or {@code false}. */
    public boolean flag(String key, boolean fallback) {
        String raw = raw(key);
        if (raw == null) return fallback;
        String v = raw.trim();
        if (v.equalsIgnoreCase("true")) return true;
        if (v.equalsIgnoreCase("false")) return false;
        throw bad(key, raw, "true or false");
    }

    /**
     * Values that may be set per model: {@code read} turns the group's values into the group's
     * configuration, and each model's values, falling back on the group's key by key, into the
     * model's. The keys {@code read} asks for are the ones a model may set.
     */
    public <C> PerModel<C> perModel(Function<ParamReader, C> read) {
        if (model != null) throw new IllegalStateException("perModel() of a model's reader");
        C groupConfig = read.apply(this);
        Map<String, C> models = new HashMap<>();
        for (String m : new TreeSet<>(params.perModel().keySet())) {
            models.put(m, read.apply(new ParamReader(group, policy, params, m, groupKeys, modelKeys, inputs)));
        }
        return new PerModel<>(groupConfig, models);
    }

    /** Throws for a parameter the policy did not ask for, naming the ones it knows. */
    public void rejectUnknown() {
        for (String key : new TreeSet<>(params.group().keySet())) {
            if (!groupKeys.contains(key)) {
                throw new IllegalArgumentException(where(null) + policy + " has no parameter '" + key + "' (set to '" + params.group().get(key)
                        + "'); it knows " + known(groupKeys));
            }
        }
        for (Map.Entry<String, Map<String, String>> e : new TreeMap<>(params.perModel()).entrySet()) {
            for (String key : new TreeSet<>(e.getValue().keySet())) {
                if (!modelKeys.contains(key)) {
                    throw new IllegalArgumentException(where(e.getKey()) + policy + " has no per-model parameter '" + key + "' (set to '"
                            + e.getValue().get(key) + "'); per model it knows " + known(modelKeys));
                }
            }
        }
    }

    private static String known(Set<String> keys) {
        return keys.isEmpty() ? "none" : String.join(", ", keys);
    }

    private String raw(String key) {
        (model == null ? groupKeys : modelKeys).add(key);
        return params.get(model, key);
    }

    /** The error for a value of {@code key} that is set but not allowed: "... parameter 'key' must be {@code requirement}, got ...". */
    public IllegalArgumentException bad(String key, String requirement) {
        return bad(key, params.get(model, key), requirement);
    }

    private IllegalArgumentException bad(String key, String raw, String requirement) {
        // A model's reader falls back on the group's value: name the model only for its own.
        Map<String, String> own = model == null ? null : params.perModel().get(model);
        String scope = own != null && own.containsKey(key) ? model : null;
        return new IllegalArgumentException(where(scope) + policy + " parameter '" + key + "' must be " + requirement + ", got '" + raw + "'");
    }

    private String where(String model) {
        String g = group == null ? "" : "serving group '" + group + "'";
        String m = model == null ? "" : "model '" + model + "'";
        String both = g.isEmpty() || m.isEmpty() ? g + m : g + ", " + m;
        return both.isEmpty() ? "" : both + ": ";
    }
}
