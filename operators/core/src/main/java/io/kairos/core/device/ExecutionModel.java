package io.kairos.core.device;

import io.kairos.core.api.Internal;
import io.kairos.core.model.HardwareProfile;
import io.kairos.core.model.LatencyProfile;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.model.ModelSpec;

import java.util.List;
import java.util.SplittableRandom;

/**
 * How long one simulated device takes: the one model of a device's time, used by the job's
 * simulated devices (in real time: the wire module's {@code RealTimeSimulatedDevice}) and by the
 * simulator's (in virtual time: {@code DiscreteEventDevice}). A batch takes its model's profiled
 * latency on the device's hardware type times the device's speed factor, perturbed by the noise,
 * plus the model's load time on that type (from the catalog, times the speed factor) when the
 * model is not in the device's memory: a cold start. A model with no profile on the type fails
 * there: the scheduler never sends it one.
 *
 * <p>The memory is a {@link ModelCache} on the device's budget, filled with the models' catalog
 * sizes, least recently used evicted first: the very cache that the scheduler's view of the device
 * replays on the same budget, so that the scheduler books exactly the cold starts the device
 * spends. A model without load cost in the catalog (no memory, no load time) is always warm.
 *
 * <p>Not thread-safe: a device calls it in the order it takes batches.
 */
@Internal
public final class ExecutionModel {
    private final ModelCatalog catalog;
    private final String hardwareType;
    private final double speedFactor;
    private final ExecutionNoise noise;
    private final SplittableRandom random;
    private final ModelCache<AutoCloseable> memory;

    /**
     * @param speedFactor       multiplies every profiled time (1: the catalog's device; 0: no time at all)
     * @param memoryBudgetBytes what the loaded models may take together ({@link Long#MAX_VALUE}: unbounded)
     */
    public ExecutionModel(ModelCatalog catalog, double speedFactor, ExecutionNoise noise, long memoryBudgetBytes, SplittableRandom random) {
        this(catalog, catalog.firstHardwareType().name(), speedFactor, noise, memoryBudgetBytes, random);
    }

    /**
     * A device of {@code hardwareType}: its batches take their model's profile on that type, and a
     * model without one fails there.
     */
    public ExecutionModel(ModelCatalog catalog, String hardwareType, double speedFactor, ExecutionNoise noise, long memoryBudgetBytes, SplittableRandom random) {
        this(catalog, hardwareType, speedFactor, noise, memoryBudgetBytes, Eviction.LRU, random);
    }

    /** The same, evicting loaded models by {@code eviction} when one must load that does not fit. */
    public ExecutionModel(ModelCatalog catalog, String hardwareType, double speedFactor, ExecutionNoise noise, long memoryBudgetBytes,
                          Eviction eviction, SplittableRandom random) {
        if (!(speedFactor >= 0) || Double.isInfinite(speedFactor)) throw new IllegalArgumentException("speed factor must be a non-negative number, got " + speedFactor);
        if (catalog.hardwareType(hardwareType) == null) {
            throw new IllegalArgumentException("device of hardware type '" + hardwareType + "', which the model catalog lacks (it has "
                    + catalog.hardwareTypes().stream().map(io.kairos.core.model.HardwareType::name).toList() + ")");
        }
        this.catalog = catalog;
        this.hardwareType = hardwareType;
        this.speedFactor = speedFactor;
        this.noise = noise;
        this.random = random;
        this.memory = new ModelCache<>(memoryBudgetBytes, eviction);
    }

    /** What one batch takes on the device: its time, whether it first loaded its model, or why it failed. */
    public record Run(long latencyMicros, boolean coldStart, String error) {
        static Run failed(String error) {
            return new Run(0, false, error);
        }

        public boolean succeeded() {
            return error == null;
        }
    }

    /** Runs a batch of {@code size} requests of {@code model}: loads the model first if it is not in memory. */
    public Run run(String model, int size) {
        return run(model, size, true);
    }

    /**
     * The same; {@code prePostHere} false for a batch whose requests' pre- and post-processing run
     * elsewhere (sent from another machine): the device runs the inference alone.
     */
    public Run run(String model, int size, boolean prePostHere) {
        ModelSpec spec = catalog.get(model);
        if (spec == null) return Run.failed("no profile for model '" + model + "'");
        HardwareProfile on = spec.profileOn(hardwareType);
        if (on == null) return Run.failed("model '" + model + "' has no profile on hardware type '" + hardwareType + "'");
        LatencyProfile profile = on.latency();
        if (size > profile.maxBatch()) return Run.failed("batch of " + size + " exceeds the largest allowed size " + profile.maxBatch() + " of model '" + model + "'");
        // Pre- and post-processing (T_P) run on the host beside the model, at its own speed.
        long latency = noise.actualMicros(scaled(profile.latencyMicros(size)), random) + (prePostHere ? spec.prePostMicros() : 0);
        if (!spec.hasLoadCost() || memory.get(model) != null) return new Run(latency, false, null);
        if (spec.memoryBytes() > memory.budgetBytes()) {
            return Run.failed("model '" + model + "' needs " + spec.memoryBytes() + " bytes, more than the device's budget of " + memory.budgetBytes());
        }
        hold(spec);
        return new Run(latency + scaled(on.loadMicros()), true, null);
    }

    /** The hardware type whose profiles the device's batches take. */
    public String hardwareType() {
        return hardwareType;
    }

    /**
     * Loads a model ahead of its batches (a placement put it here), beside the models already
     * loaded; false when it does not fit without evicting one, or is loaded already. The load
     * itself takes no device time: a device loads beside its batches.
     */
    public boolean load(String model) {
        ModelSpec spec = catalog.get(model);
        if (spec == null || !spec.hasLoadCost() || !spec.runsOn(hardwareType) || memory.isLoaded(model)) return false;
        if (memory.usedBytes() + spec.memoryBytes() > memory.budgetBytes()) return false;
        hold(spec);
        return true;
    }

    /**
     * Loads a model as work of its own (the scheduler booked its load on the device's timeline):
     * makes room for it as a cold start would, and returns how long the device spends loading it,
     * its load time on the type times the speed factor; 0 when there is nothing to load (loaded
     * already, no load cost, no profile on the type, or larger than the whole memory, which its
     * batches then fail on).
     */
    public long loadAsWork(String model) {
        ModelSpec spec = catalog.get(model);
        if (spec == null || !spec.hasLoadCost() || memory.isLoaded(model)) return 0;
        HardwareProfile on = spec.profileOn(hardwareType);
        if (on == null || spec.memoryBytes() > memory.budgetBytes()) return 0;
        hold(spec);
        return scaled(on.loadMicros());
    }

    /** Takes a model out of memory (a placement took it off the device). */
    public void unload(String model) {
        memory.unload(model);
    }

    /** The models in memory, least recently used first. */
    public List<String> loadedModels() {
        return memory.lruOrder();
    }

    private void hold(ModelSpec spec) {
        memory.makeRoom(spec.name(), spec.memoryBytes());
        memory.install(spec.name(), NOTHING_TO_CLOSE);
    }

    private long scaled(long micros) {
        return Math.round(micros * speedFactor);
    }

    private static final AutoCloseable NOTHING_TO_CLOSE = () -> {};
}
