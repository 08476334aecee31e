package io.kairos.core.model;

import io.kairos.core.api.PublicEvolving;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A model the serving system knows: its input, how long it takes per batch size, and what it costs
 * to hold on a device: the memory it takes there and the time to load it (a cold start). Both are 0
 * for a model whose loading is not modelled, which the scheduler treats as loaded everywhere.
 * {@code energy} is the energy a batch takes, {@code null} where it was never measured: unknown,
 * which is not zero (see {@link #batchEnergyMillijoules}).
 *
 * <p>{@code latency} and {@code loadMicros} are the model's profile on the catalog's first hardware
 * type; {@code profiles} holds its profile on every type it has one on, in the catalog's order, the
 * first type's first (the same {@code latency} and {@code loadMicros}). Every profile of a model
 * allows the same batch sizes: a policy picks a batch's size before it picks the device.
 *
 * <p>{@code prePostMicros} is the time a request's pre- and post-processing takes beside the
 * model (tokenising, decoding: T_P of the model-aware scheduling thesis), on the device's host,
 * which it holds meanwhile; {@code networkMicros} the time a request takes to reach a device on
 * another machine (T_N). Both 0 unless the catalog gives them ({@code pre_post_ms},
 * {@code network_ms}); the placement policies weigh them against a load.
 */
@PublicEvolving
public record ModelSpec(String name, InputSpec input, LatencyProfile latency, long memoryBytes, long loadMicros, EnergyProfile energy,
                        Map<String, HardwareProfile> profiles, long prePostMicros, long networkMicros) {

    public ModelSpec {
        if (memoryBytes < 0) throw new IllegalArgumentException("model '" + name + "': memory must not be negative, got " + memoryBytes + " bytes");
        if (loadMicros < 0) throw new IllegalArgumentException("model '" + name + "': load time must not be negative, got " + loadMicros + " us");
        if (prePostMicros < 0) throw new IllegalArgumentException("model '" + name + "': pre/post-processing time must not be negative, got " + prePostMicros + " us");
        if (networkMicros < 0) throw new IllegalArgumentException("model '" + name + "': network time must not be negative, got " + networkMicros + " us");
        if (profiles == null || profiles.isEmpty()) {
            profiles = Map.of(HardwareType.DEFAULT_NAME, new HardwareProfile(latency, loadMicros));
        } else {
            HardwareProfile first = profiles.values().iterator().next();
            if (first.latency() != latency || first.loadMicros() != loadMicros) {
                throw new IllegalArgumentException("model '" + name + "': its first hardware type's profile must be its latency and load time");
            }
            int[] sizes = latency.batchSizes();
            profiles.forEach((type, p) -> {
                if (!java.util.Arrays.equals(p.latency().batchSizes(), sizes)) {
                    throw new IllegalArgumentException("model '" + name + "': its profile on hardware type '" + type + "' has batch sizes "
                            + java.util.Arrays.toString(p.latency().batchSizes()) + ", not the model's " + java.util.Arrays.toString(sizes));
                }
            });
            profiles = Collections.unmodifiableMap(new LinkedHashMap<>(profiles));
        }
    }

    /** A model without pre/post-processing or network time. */
    public ModelSpec(String name, InputSpec input, LatencyProfile latency, long memoryBytes, long loadMicros, EnergyProfile energy,
                     Map<String, HardwareProfile> profiles) {
        this(name, input, latency, memoryBytes, loadMicros, energy, profiles, 0, 0);
    }

    /** A model with a profile on the one type {@code default}. */
    public ModelSpec(String name, InputSpec input, LatencyProfile latency, long memoryBytes, long loadMicros, EnergyProfile energy) {
        this(name, input, latency, memoryBytes, loadMicros, energy, null);
    }

    /** A model whose energy is unknown. */
    public ModelSpec(String name, InputSpec input, LatencyProfile latency, long memoryBytes, long loadMicros) {
        this(name, input, latency, memoryBytes, loadMicros, null);
    }

    /** A model whose loading is not modelled and whose energy is unknown. */
    public ModelSpec(String name, InputSpec input, LatencyProfile latency) {
        this(name, input, latency, 0, 0);
    }

    /** The same model under another name (an instance of it, see {@link ModelCatalog#get}). */
    public ModelSpec named(String instance) {
        return new ModelSpec(instance, input, latency, memoryBytes, loadMicros, energy, profiles, prePostMicros, networkMicros);
    }

    /** The model's latency profile on {@code hardwareType}; {@code null} when it has none there (it must not run there). */
    public LatencyProfile latencyOn(String hardwareType) {
        HardwareProfile p = profiles.get(hardwareType);
        return p == null ? null : p.latency();
    }

    /** The model's profile on {@code hardwareType}, latency and load time; {@code null} when it has none there. */
    public HardwareProfile profileOn(String hardwareType) {
        return profiles.get(hardwareType);
    }

    /** Whether the model has a profile on {@code hardwareType}, i.e. may run on a device of it. */
    public boolean runsOn(String hardwareType) {
        return profiles.containsKey(hardwareType);
    }

    /** The hardware types the model has a profile on, in the catalog's order. */
    public List<String> hardwareTypes() {
        return List.copyOf(profiles.keySet());
    }

    public boolean energyKnown() {
        return energy != null;
    }

    /**
     * Millijoules a batch of {@code size} requests takes as it runs, padded to the next allowed
     * size as its latency is; empty when the model's energy is unknown.
     */
    public java.util.OptionalDouble batchEnergyMillijoules(int size) {
        if (energy == null) return java.util.OptionalDouble.empty();
        return java.util.OptionalDouble.of(energy.millijoules(latency.paddedSize(size)));
    }

    /** Whether running it may first have to load it: it takes memory, or time to load on some type. */
    public boolean hasLoadCost() {
        if (memoryBytes > 0 || loadMicros > 0) return true;
        for (HardwareProfile p : profiles.values()) {
            if (p.loadMicros() > 0) return true;
        }
        return false;
    }
}
