package io.kairos.core.device;

import io.kairos.core.api.Internal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The models loaded on one device, within a memory budget; when a model must load and does not
 * fit, others are evicted by the cache's {@link Eviction} rule: least recently used first, or least
 * often used per byte with aging.
 *
 * <p>A load is in two steps so that the device can load one model while it runs batches of the
 * others: {@link #makeRoom} evicts and reserves the model's bytes before the load starts (the
 * budget holds while the load is under way), {@link #install} turns the reservation into a loaded
 * model when the load is done, {@link #cancel} gives it back when the load failed.
 *
 * <p>Not thread-safe: the device confines it to the one thread that runs its batches, which is
 * also what makes eviction safe, since no batch can be running a model while it is evicted.
 *
 * @param <S> what a loaded model is (an ONNX Runtime session); closed on eviction
 */
@Internal
public final class ModelCache<S extends AutoCloseable> {
    private static final double MIB = 1 << 20;
    private final long budgetBytes;
    private final Eviction eviction;
    // Access order: iteration starts at the least recently used model.
    private final LinkedHashMap<String, Loaded<S>> loaded = new LinkedHashMap<>(16, 0.75f, true);
    private final Map<String, Long> reserved = new HashMap<>();
    private long usedBytes;
    private long evictions;
    // FREQUENCY's clock L: the priority of the last model evicted.
    private double clock;

    private static final class Loaded<S> {
        final S model;
        final long bytes;
        long uses;
        double priority;

        Loaded(S model, long bytes) {
            this.model = model;
            this.bytes = bytes;
        }
    }

    /** A cache that evicts the least recently used models first. */
    public ModelCache(long budgetBytes) {
        this(budgetBytes, Eviction.LRU);
    }

    public ModelCache(long budgetBytes, Eviction eviction) {
        if (budgetBytes < 1) throw new IllegalArgumentException("a device's model memory budget must be positive, got " + budgetBytes);
        this.budgetBytes = budgetBytes;
        this.eviction = eviction;
    }

    public Eviction eviction() {
        return eviction;
    }

    /** The loaded model, marked as just used (once more); null when it is not loaded (or only being loaded). */
    public S get(String model) {
        Loaded<S> l = loaded.get(model);
        if (l == null) return null;
        used(l);
        return l.model;
    }

    /**
     * The loaded model, marked as just used but not counted as one more use: the batch whose load
     * {@link #install} counted it already (a device that loads beside its batches looks it up again).
     */
    public S getUncounted(String model) {
        Loaded<S> l = loaded.get(model);
        return l == null ? null : l.model;
    }

    /** One more use of a loaded model: its priority under {@link Eviction#FREQUENCY}, {@code L + uses / MiB}. */
    private void used(Loaded<S> l) {
        l.uses++;
        l.priority = clock + l.uses / Math.max(1.0, l.bytes / MIB);
    }

    /** Whether the model is loaded, without marking it used. */
    public boolean isLoaded(String model) {
        return loaded.containsKey(model);
    }

    public boolean isLoading(String model) {
        return reserved.containsKey(model);
    }

    /**
     * Evicts least recently used models until {@code bytes} more fit in the budget, and reserves
     * them for {@code model}. Models being loaded are never evicted, so with several loads under way
     * the budget can be exceeded until they finish. Returns the evicted models, oldest first.
     *
     * @throws IllegalArgumentException when the model alone is larger than the budget
     */
    public List<String> makeRoom(String model, long bytes) {
        if (bytes > budgetBytes) {
            throw new IllegalArgumentException("model '" + model + "' needs " + bytes + " bytes, more than the device's budget of " + budgetBytes);
        }
        if (loaded.containsKey(model) || reserved.containsKey(model)) throw new IllegalStateException("model '" + model + "' is already loaded or being loaded");
        List<String> evicted = new ArrayList<>();
        while (usedBytes + bytes > budgetBytes && !loaded.isEmpty()) {
            String victim = victim();
            Loaded<S> gone = loaded.remove(victim);
            if (eviction == Eviction.FREQUENCY) clock = Math.max(clock, gone.priority);
            usedBytes -= gone.bytes;
            evictions++;
            evicted.add(victim);
            close(gone.model);
        }
        reserved.put(model, bytes);
        usedBytes += bytes;
        return evicted;
    }

    /** The next model to evict: the least recently used, or under FREQUENCY the lowest priority (of equals, the least recently used). */
    private String victim() {
        Iterator<Map.Entry<String, Loaded<S>>> it = loaded.entrySet().iterator();
        Map.Entry<String, Loaded<S>> pick = it.next();
        if (eviction == Eviction.LRU) return pick.getKey();
        while (it.hasNext()) {
            Map.Entry<String, Loaded<S>> e = it.next();
            if (e.getValue().priority < pick.getValue().priority) pick = e;
        }
        return pick.getKey();
    }

    /** The load of a model that {@link #makeRoom} reserved for is done: its first use. */
    public void install(String model, S loadedModel) {
        Long bytes = reserved.remove(model);
        if (bytes == null) throw new IllegalStateException("model '" + model + "' was installed without room made for it");
        Loaded<S> l = new Loaded<>(loadedModel, bytes);
        used(l);
        loaded.put(model, l);
    }

    /** The load of a model failed: its reservation is given back. */
    public void cancel(String model) {
        Long bytes = reserved.remove(model);
        if (bytes != null) usedBytes -= bytes;
    }

    /** Unloads a model on request (a control decision took it off the device); false when it was not loaded. */
    public boolean unload(String model) {
        Loaded<S> l = loaded.remove(model);
        if (l == null) return false;
        usedBytes -= l.bytes;
        close(l.model);
        return true;
    }

    /** Loaded models and the bytes each takes, least recently used first. */
    public Map<String, Long> loadedBytes() {
        Map<String, Long> bytes = new LinkedHashMap<>();
        loaded.forEach((model, l) -> bytes.put(model, l.bytes));
        return bytes;
    }

    /** Loaded models, least recently used first. */
    public List<String> lruOrder() {
        return new ArrayList<>(loaded.keySet());
    }

    /** Bytes of the loaded models and of the loads under way. */
    public long usedBytes() {
        return usedBytes;
    }

    public long budgetBytes() {
        return budgetBytes;
    }

    public long evictions() {
        return evictions;
    }

    /** Closes every loaded model. */
    public void clear() {
        for (Loaded<S> l : loaded.values()) close(l.model);
        loaded.clear();
        usedBytes = 0;
        for (long b : reserved.values()) usedBytes += b;
    }

    private static void close(AutoCloseable model) {
        try {
            model.close();
        } catch (Exception e) {
            // An evicted model that fails to close leaks native memory but harms no batch; go on.
        }
    }
}
