package io.kairos.core.device;

import io.kairos.core.api.PublicEvolving;
import java.util.Arrays;
import java.util.Locale;

/**
 * Which loaded model a device evicts when a model it must load does not fit: the rule of its
 * {@link ModelCache}, which the scheduler's view of the device replays with the same rule, so that
 * both agree on what the device holds.
 *
 * <ul>
 *   <li>{@link #LRU}: the least recently used first (ModelMesh's and Ray Serve's caches).</li>
 *   <li>{@link #FREQUENCY}: the model used least often per byte since it was loaded, aged
 *       (GreedyDual-Size-Frequency, Cherkasova 1998): each loaded model has the priority
 *       {@code L + uses / MiB}, set when it is loaded and on each batch of it; the lowest goes first
 *       (of equals, the least recently used), and {@code L}, the device's clock, rises to the
 *       priority of each model evicted. A model used often keeps its place over a burst of models
 *       used once, which an LRU cache lets push it out; a small model costs a load as a large one
 *       does while taking less room, so a byte of it is worth more; and since {@code L} rises with
 *       every eviction, a model used often long ago but no longer falls behind the models loaded
 *       since (the aging), where a plain count would keep it for ever.</li>
 * </ul>
 */
@PublicEvolving
public enum Eviction {
    LRU("lru"),
    FREQUENCY("frequency");

    private final String id;

    Eviction(String id) {
        this.id = id;
    }

    public String id() {
        return id;
    }

    /** The rule named {@code name} ({@code lru}, {@code frequency}), any case. */
    public static Eviction parse(String name) {
        for (Eviction e : values()) if (e.id.equals(name.toLowerCase(Locale.ROOT))) return e;
        throw new IllegalArgumentException("eviction must be one of " + String.join(", ", Arrays.stream(values()).map(Eviction::id).toList()) + ", got '" + name + "'");
    }

    @Override
    public String toString() {
        return id;
    }
}
