package io.kairos.core.scheduling;

import io.kairos.core.api.PublicEvolving;
import io.kairos.core.device.Eviction;
import io.kairos.core.device.ModelCache;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.model.ModelSpec;

import java.util.List;
import java.util.Set;

/**
 * The scheduler's picture of one device: which models it may run (its placement), which of them
 * are loaded in its memory, when it is predicted to be free, from the latency profile of every
 * batch sent to it, and the last batch booked on it, so that the scheduler knows what runs at a
 * given instant and can preempt it. Predictions, corrected by observations: the scheduler never
 * waits for a device to report back before sending it more work, but when a device reports that a
 * batch really started and ended ({@link #observe}), the work booked behind that batch is planned
 * again from its real end (Clockwork's controller compares each action's expectation with its
 * result).
 *
 * <p>Loaded models are tracked the way Clockwork's controller tracks its workers: by mirroring
 * the device's own cache from the scheduler's dispatches and loads. A load the scheduler decides
 * ({@link #bookLoad}: the load planner's, a placement's) is work of its own on the timeline, the
 * device busy loading until it ends; a model's first batch, sent while no device holds it, loads
 * it in front of itself, and the device evicts the least recently used models to stay within its
 * memory budget; the view replays the same {@link ModelCache} on the same budget, so it knows
 * which batch will be a cold start and books the load time ({@link ModelSpec#loadMicros}) in front
 * of it.
 */
@PublicEvolving
public final class DeviceView {
    private final int slot;
    private final Set<String> models;
    // The device's hardware type as given; null: the catalog's first type.
    private final String hardwareType;
    // Set by the scheduler of the device's group (resolve): the type it predicts with, its place
    // among the group's types, and, where some model has no profile on the type, the catalog to
    // ask which do (null: every model runs here).
    private String resolvedType;
    private int typeIndex;
    private ModelCatalog onlyProfiled;
    private final ModelCache<AutoCloseable> loaded;
    // When the device is predicted to be free, and the work booked on it: what a report re-bases.
    private final DeviceTimeline timeline = new DeviceTimeline();

    /** A device with unbounded model memory: a model, once loaded, stays. */
    public DeviceView(int slot, Set<String> models) {
        this(slot, models, Long.MAX_VALUE);
    }

    /**
     * @param models            the models it may run, or {@code null} for every model
     * @param memoryBudgetBytes what its loaded models may take together, as the device is configured
     */
    public DeviceView(int slot, Set<String> models, long memoryBudgetBytes) {
        this(slot, models, memoryBudgetBytes, null);
    }

    /**
     * @param hardwareType the device's hardware type ({@link io.kairos.core.device.DeviceSlots#typeOf}),
     *                     or {@code null} for the catalog's first type
     */
    public DeviceView(int slot, Set<String> models, long memoryBudgetBytes, String hardwareType) {
        this(slot, models, memoryBudgetBytes, hardwareType, Eviction.LRU);
    }

    /** @param eviction the device's eviction rule, which the view replays */
    public DeviceView(int slot, Set<String> models, long memoryBudgetBytes, String hardwareType, Eviction eviction) {
        this.slot = slot;
        this.models = models == null ? null : Set.copyOf(models);
        this.loaded = new ModelCache<>(memoryBudgetBytes, eviction);
        this.hardwareType = hardwareType;
    }

    public int slot() {
        return slot;
    }

    /** The device's hardware type as given; {@code null}: the catalog's first type. */
    public String hardwareType() {
        return hardwareType;
    }

    /**
     * The scheduler of the device's group binds the view to its catalog: the type it predicts
     * with, and its index among the group's types; a model without a profile on the type is no
     * longer one the device {@link #holds}.
     */
    void resolve(ModelCatalog catalog, int typeIndex) {
        this.resolvedType = hardwareType != null ? hardwareType : catalog.firstHardwareType().name();
        this.typeIndex = typeIndex;
        boolean runsEveryModel = true;
        for (ModelSpec spec : catalog.all()) runsEveryModel &= spec.runsOn(resolvedType);
        this.onlyProfiled = runsEveryModel ? null : catalog;
    }

    /** The hardware type the scheduler predicts this device's batches with; {@code null} before its group bound it. */
    public String resolvedHardwareType() {
        return resolvedType;
    }

    /** The index of the device's type among its group's types. */
    int typeIndex() {
        return typeIndex;
    }

    /** Whether the device may run every model of the catalog: no placement list, and a profile of every model on its type. */
    public boolean holdsEveryModel() {
        return models == null && onlyProfiled == null;
    }

    /**
     * Whether the device may run {@code model}: its placement holds the model, and the model has
     * a profile on the device's hardware type (a model is never sent where it has none).
     */
    public boolean holds(String model) {
        return (models == null || models.contains(model)) && (onlyProfiled == null || profiledHere(model));
    }

    private boolean profiledHere(String model) {
        ModelSpec spec = onlyProfiled.get(model);
        return spec != null && spec.runsOn(resolvedType);
    }

    /** {@code null} when the device holds every model. */
    public Set<String> models() {
        return models;
    }

    /**
     * How long a batch of {@code model} sent now would first spend loading it: 0 when the device
     * holds it, or when the model's loading is not modelled.
     */
    public long loadMicros(ModelSpec model) {
        if (!model.hasLoadCost() || loaded.isLoaded(model.name())) return 0;
        // On its type: a model may load slower onto one type than another.
        io.kairos.core.model.HardwareProfile on = resolvedType == null ? null : model.profileOn(resolvedType);
        return on == null ? model.loadMicros() : on.loadMicros();
    }

    /**
     * Whether a batch of {@code model} sent here now would start without loading it: the device
     * holds it in memory, or the model's loading is not modelled.
     */
    public boolean isWarm(ModelSpec model) {
        return !model.hasLoadCost() || loaded.isLoaded(model.name());
    }

    /**
     * When a batch of {@code model} sent now could start computing: after the work already booked
     * here and, on a device that does not hold the model, after its load. What every feasibility
     * test compares a deadline with, since it is what {@link GroupScheduler#dispatch} books.
     */
    public long readyAtMicros(ModelSpec model, long nowMicros) {
        return startAtMicros(nowMicros) + loadMicros(model);
    }

    /** The batches booked here that are predicted to be running or waiting at {@code now}. */
    public int outstandingBatches(long nowMicros) {
        return timeline.outstandingBatches(nowMicros);
    }

    /**
     * A batch of {@code model} was booked here: the device holds the model from then on, having
     * evicted the ones it needed room from by its eviction rule (one more use of it, if held). A model larger than the whole
     * budget is not tracked: the device fails its batches.
     */
    public void hold(ModelSpec model) {
        if (!model.hasLoadCost() || loaded.get(model.name()) != null) return;
        track(model.name(), model.memoryBytes());
    }

    /**
     * Counts a model as loaded, after the evictions that make room for it, which it returns; one
     * larger than the budget is not tracked.
     */
    private List<String> track(String model, long bytes) {
        if (bytes > loaded.budgetBytes()) return List.of();
        List<String> evicted = loaded.makeRoom(model, bytes);
        loaded.install(model, NOTHING_TO_CLOSE);
        return evicted;
    }

    /**
     * Whether a model the device does not hold in memory fits beside those it does without evicting
     * any: an explicit load of a newly placed model never pushes out another.
     */
    public boolean fitsWithoutEviction(ModelSpec model) {
        return model.hasLoadCost() && !loaded.isLoaded(model.name()) && loaded.usedBytes() + model.memoryBytes() <= loaded.budgetBytes();
    }

    /** What the models held here, and the loads booked, take of its memory. */
    public long memoryUsedBytes() {
        return loaded.usedBytes();
    }

    /** What its loaded models may take together. */
    public long memoryBudgetBytes() {
        return loaded.budgetBytes();
    }

    /** The device was told to unload a model. */
    public void unload(String model) {
        loaded.unload(model);
    }

    /**
     * The device could not load {@code model}: it does not hold it, and its load, where it is the
     * last work booked here, ends now rather than as predicted (the device gave up on it), so the
     * device is free from now for the work of other models.
     */
    public void loadFailed(String model, long nowMicros) {
        loaded.unload(model);
        timeline.loadFailed(model, nowMicros);
    }

    /** The rule by which the device makes room for a load. */
    public Eviction eviction() {
        return loaded.eviction();
    }

    /** The models the device is predicted to hold in memory, least recently used first. */
    public List<String> loadedModels() {
        return loaded.lruOrder();
    }

    private static final AutoCloseable NOTHING_TO_CLOSE = () -> {};

    public long freeAtMicros() {
        return timeline.freeAtMicros();
    }

    /** Work already sent to the device and not yet predicted done at {@code now}. */
    public long outstandingMicros(long nowMicros) {
        return Math.max(0, timeline.freeAtMicros() - nowMicros);
    }

    /** When a batch sent now would start. */
    public long startAtMicros(long nowMicros) {
        return Math.max(nowMicros, timeline.freeAtMicros());
    }

    /**
     * Books work of the given latency after the work already there, work that is no batch of the
     * scheduler's (nothing to preempt); returns its predicted start.
     */
    public long book(long nowMicros, long latencyMicros) {
        return timeline.book(null, nowMicros, latencyMicros);
    }

    /**
     * Books the load of {@code model} as work of its own, after the work already booked: the device
     * is busy loading until it ends, so a batch of the model booked behind it starts after it, and
     * the model's memory is counted from now (the device reserves it when the load starts). Where
     * the device holds the model already, or its loading is not modelled, nothing is booked.
     * Returns when the load ends, from which the model is held; {@code now} if nothing was booked.
     *
     * @throws IllegalArgumentException when the model does not fit beside those held: the caller
     *         unloads first what makes room ({@link #unload})
     */
    public long bookLoad(ModelSpec model, long nowMicros) {
        if (loadMicros(model) == 0) return nowMicros;
        if (!fitsWithoutEviction(model)) {
            throw new IllegalArgumentException("device " + slot + " cannot load model '" + model.name() + "' (" + model.memoryBytes()
                    + " bytes) beside " + loaded.usedBytes() + " of " + loaded.budgetBytes() + " bytes held: unload first");
        }
        bookLoadEvicting(model, nowMicros);
        return timeline.freeAtMicros();
    }

    /**
     * {@link #bookLoad}, the room made as the device makes it for a load: by its eviction rule,
     * after the work booked here (the device unloads in turn with its batches). Returns the models
     * evicted, the order the device evicts them in; none where nothing was booked.
     *
     * @throws IllegalArgumentException when the model is larger than the device's whole memory
     */
    public List<String> bookLoadEvicting(ModelSpec model, long nowMicros) {
        long load = loadMicros(model);
        if (load == 0) return List.of();
        if (model.memoryBytes() > loaded.budgetBytes()) {
            throw new IllegalArgumentException("device " + slot + " cannot load model '" + model.name() + "' (" + model.memoryBytes()
                    + " bytes): its memory is " + loaded.budgetBytes() + " bytes");
        }
        timeline.book(model.name(), nowMicros, load);
        return track(model.name(), model.memoryBytes());
    }

    /**
     * Whether work of {@code model} is booked here that is not predicted done at {@code now}: a
     * batch of it, or its load. A copy with none is idle, one the load planner may drop.
     */
    public boolean busyWith(String model, long nowMicros) {
        return timeline.busyWith(model, nowMicros);
    }

    /** When the load of {@code model} booked here is predicted to end; -1 when none is booked and not yet predicted done. */
    public long loadEndMicros(String model) {
        return timeline.loadEndMicros(model);
    }

    /**
     * Books a batch sent at {@code now} whose predicted start, computed with {@link #startAtMicros},
     * is not before the work already there.
     */
    public void book(Dispatch batch, long nowMicros) {
        if (batch.device() != slot) throw new IllegalArgumentException(batch.model() + " batch for device " + batch.device() + " booked on device " + slot);
        if (batch.predictedStartMicros() < timeline.freeAtMicros()) {
            throw new IllegalArgumentException(batch.model() + " batch predicted to start at " + batch.predictedStartMicros()
                    + " on device " + slot + ", which is busy until " + timeline.freeAtMicros());
        }
        timeline.book(batch, nowMicros);
    }

    /**
     * What the device reports of a batch booked here: it really ran from {@code startMicros} to
     * {@code endMicros} (noise, a slower device, a load the view did not foresee, a hand-over that
     * took longer). The work booked behind it is planned again from that end, each batch starting
     * when the one before it ends, or when it was sent if that is later, and keeping its predicted
     * length; the device is then free when the last of them ends. A batch this view no longer
     * knows (forgotten, or preempted after all) re-bases everything still booked, which the device
     * runs after it.
     */
    public void observe(Dispatch batch, long startMicros, long endMicros) {
        timeline.observe(batch, startMicros, endMicros);
    }

    /** When the view predicts a batch booked here and not yet reported to start; -1 when it knows none. */
    public long predictedStartMicros(Dispatch batch) {
        return timeline.predictedStartMicros(batch);
    }

    /** The last batch booked on this device, or null. It may have ended already. */
    public Dispatch lastBooked() {
        return timeline.lastBooked();
    }

    /**
     * The batch that {@link #unbookLast} would take off the device at {@code now}: the last one
     * booked, if it is predicted to be running at {@code now} or not to have started yet; else null.
     */
    public Dispatch preemptibleAt(long nowMicros) {
        return timeline.preemptibleAt(nowMicros);
    }

    /**
     * Takes the {@link #preemptibleAt preemptible} batch off the device: the device is then free
     * from {@code now} if the batch was running, or from the batch's predicted start if it had not
     * started (the work before it stays). Returns the batch.
     */
    public Dispatch unbookLast(long nowMicros) {
        if (timeline.preemptibleAt(nowMicros) == null) throw new IllegalStateException("device " + slot + " runs no batch that can be preempted at " + nowMicros);
        return timeline.unbookLast(nowMicros);
    }

    /**
     * Carries the predictions over from the view this one replaces (placement changed, device
     * stayed): when it is free, and which models it holds in memory.
     */
    public void inherit(DeviceView previous) {
        timeline.inherit(previous.timeline);
        previous.loaded.loadedBytes().forEach((model, bytes) -> {
            if (!loaded.isLoaded(model)) track(model, bytes);
        });
    }

    @Override
    public String toString() {
        String type = hardwareType == null ? "" : " (" + hardwareType + ")";
        return "device " + slot + type + (models == null ? " (all models)" : " " + models) + " free at " + timeline.freeAtMicros();
    }
}
