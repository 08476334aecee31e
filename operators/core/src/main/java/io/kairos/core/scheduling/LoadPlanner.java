package io.kairos.core.scheduling;

import io.kairos.core.model.LatencyProfile;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.model.ModelSpec;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Decides when a model gets another copy on a device of its group, and which idle copy leaves to
 * make room for it: Clockwork's load tracker, as a decision of its own rather than a load carried
 * in front of a batch. A model's demand is its arrival rate in device time, a full batch's latency
 * per request, and the work its queue holds against its head's deadline; its supply is the copies
 * the group's devices hold or have a load of booked. A model whose demand takes more than
 * {@link #TARGET_UTILISATION} of its copies, or whose queue holds more than its copies can serve in
 * full batches by the head's deadline, gets one more copy: on the device, among those its placement
 * lists that do not hold it, where the load could start first, with room beside what it holds or
 * made by dropping copies that are idle (no work of theirs booked) and that their models can spare.
 * The load is booked on the device's timeline ({@link DeviceView#bookLoad}), so batches of the model
 * go there only once it is done, and the copies that exist serve it meanwhile.
 *
 * <p>A model-aware placement (the registry, {@code auto}, colocation) decides from the devices'
 * memory itself when a model wants another copy ({@link PlacementPolicy#copyWanted}: the
 * registry's load elsewhere); the planner loads that copy on the device where the load could
 * start first, room made by the device's own eviction rule, as the device would make it. A model
 * that no device holds is left to its first batch, which carries the one unavoidable load
 * ({@link DeviceChoice}).
 * The decisions come back as {@link ModelAction}s, unloads before the load they make
 * room for, which the engine sends the devices in that order, as it sends a placement's.
 */
final class LoadPlanner {
    /**
     * The share of its copies' time a model's demand may take before it gets another: room for
     * bursts, for batches smaller than full and for the noise of the estimate.
     */
    static final double TARGET_UTILISATION = 0.7;
    /**
     * How often the planner looks at most: a load takes hundreds of milliseconds, so deciding on
     * every arrival would cost the scheduler's loop more than it gives.
     */
    static final long EVERY_MICROS = 1_000;
    /**
     * How much more demand a model's copies must bear before one of them may go: a copy is spared
     * only while the others would stay under {@code TARGET_UTILISATION / SPARE_MARGIN}, so that a
     * rate estimate wavering around a threshold does not load and drop the same copy by turns.
     */
    static final double SPARE_MARGIN = 1.25;

    /**
     * How long after its latest arrival a model keeps one copy whatever its rate: a rate is
     * estimated from two arrivals on, and a model that just came must not lose its only copy.
     */
    static final long RECENT_MICROS = 1_000_000;
    /**
     * How much history a model's rate needs before copies are added by it: from a handful of
     * arrivals the estimate, unbiased but wide, may call for several copies a steady rate never
     * would (two arrivals 1 ms apart read as 1,000 requests/s).
     */
    static final long RATE_HISTORY_MICROS = 100_000;

    /** A model's demand as its group sees it: its queue (null when it has none), its arrival rate and its latest arrival. */
    interface Demand {
        RequestQueue queue(String model);

        double ratePerSecond(RequestQueue q, long nowMicros);

        long lastArrivalMicros(RequestQueue q);

        long firstArrivalMicros(RequestQueue q);
    }

    private final ModelCatalog catalog;
    private final DeviceChoice choice;
    private final Demand demand;
    private long nextMicros = Long.MIN_VALUE;
    /**
     * The copies whose load failed, as "slot/model": a device that could not load a model (its
     * file does not open there, it does not fit the device's real memory) would fail the same way
     * again, so the planner does not try it there until the placement changes.
     */
    private final Set<String> failed = new HashSet<>();

    LoadPlanner(ModelCatalog catalog, DeviceChoice choice, Demand demand) {
        this.catalog = catalog;
        this.choice = choice;
        this.demand = demand;
    }

    /** The loads and unloads decided at {@code now} for the models with requests pending, booked on the views. */
    List<ModelAction> plan(long nowMicros, Iterable<RequestQueue> pending, List<DeviceView> devices) {
        if (!choice.loadCosts()) return List.of();
        List<ModelAction> actions = copiesWanted(nowMicros, pending, devices);
        if (nowMicros < nextMicros) return actions;
        nextMicros = nowMicros + EVERY_MICROS;
        for (RequestQueue q : pending) {
            ModelSpec spec = choice.spec(q);
            if (!spec.hasLoadCost() || choice.placementOf(q.model()).modelAware()) continue;
            int copies = copies(spec, devices);
            // None yet: the first batch carries the first load, the one no copy can serve meanwhile.
            if (copies == 0) continue;
            int wanted = wanted(q, copies, nowMicros, 1);
            // A queue that grew while a copy was still loading says nothing of the rate: no copy
            // loaded now would serve it sooner (the first load carried by the first batch, a
            // copy the planner booked). Judged by the rate alone until the copies are there, and
            // for a second after the first load, while its backlog drains.
            if (loading(spec, devices, nowMicros) || nowMicros - demand.firstArrivalMicros(q) < spec.loadMicros() + RECENT_MICROS) {
                wanted = Math.min(wanted, wanted(q, Integer.MAX_VALUE, nowMicros, 1));
            }
            while (copies < wanted) {
                DeviceView to = deviceFor(spec, devices, nowMicros);
                if (to == null) break;
                if (actions.isEmpty()) actions = new ArrayList<>();
                for (String victim : roomOn(to, spec, devices, nowMicros)) {
                    to.unload(victim);
                    actions.add(ModelAction.unload(to.slot(), victim, "room for '" + spec.name() + "': an idle copy its model can spare"));
                }
                String why = why(q, copies, nowMicros);
                to.bookLoad(spec, nowMicros);
                actions.add(ModelAction.load(to.slot(), spec.name(), why));
                copies++;
            }
        }
        return actions;
    }

    /**
     * The copies the model-aware placements want now ({@link PlacementPolicy#copyWanted}), booked on
     * the views: asked at every decision, not every {@link #EVERY_MICROS}, since a placement wants
     * one the moment the batches just sent fill its copies, and the batch waiting for it has no
     * other device to go to.
     */
    List<ModelAction> copiesWanted(long nowMicros, Iterable<RequestQueue> pending, List<DeviceView> devices) {
        if (!choice.loadCosts() || !choice.modelAware()) return List.of();
        List<ModelAction> actions = List.of();
        for (RequestQueue q : pending) {
            ModelSpec spec = choice.spec(q);
            PlacementPolicy placement = choice.placementOf(q.model());
            if (spec.hasLoadCost() && placement.modelAware()) actions = copyWanted(q, spec, placement, devices, nowMicros, actions);
        }
        return actions;
    }

    /**
     * The copy a model-aware placement wants of {@code q}'s model now, if any, added to
     * {@code actions}: on the device its placement lists that neither holds the model nor failed to
     * load it, where the load could start first (the lowest slot of equals), after the unloads its
     * eviction rule makes room with.
     */
    private List<ModelAction> copyWanted(RequestQueue q, ModelSpec spec, PlacementPolicy placement, List<DeviceView> devices, long nowMicros,
            List<ModelAction> actions) {
        if (q.isEmpty()) return actions;
        String why = placement.copyWanted(spec, devices, nowMicros);
        if (why == null) return actions;
        DeviceView to = null;
        for (DeviceView d : devices) {
            if (!d.holds(spec.name()) || d.isWarm(spec) || spec.memoryBytes() > d.memoryBudgetBytes() || failed.contains(d.slot() + "/" + spec.name())) continue;
            if (to == null || d.startAtMicros(nowMicros) < to.startAtMicros(nowMicros)) to = d;
        }
        if (to == null) return actions;
        if (actions.isEmpty()) actions = new ArrayList<>();
        for (String victim : to.bookLoadEvicting(spec, nowMicros)) {
            actions.add(ModelAction.unload(to.slot(), victim,
                    "room for '" + spec.name() + "': the device's eviction rule (" + to.eviction().name().toLowerCase(Locale.ROOT) + ")"));
        }
        actions.add(ModelAction.load(to.slot(), spec.name(), placement.name() + ": " + why));
        return actions;
    }

    /**
     * The loads and unloads a placement asks of {@code device}, placed with a model list and keeping
     * what its previous view held, added to {@code actions}: Clockwork's controller loads and
     * unloads explicitly, so what the device no longer serves leaves its memory now, and what it
     * newly serves is loaded before its first batch, in name order, as far as it fits without
     * pushing out another placed model, each load booked after the device's work from when it is
     * free (the placement came with no clock of its own). A device that serves every model gets
     * none: the planner and the first batches load what it needs.
     */
    void placed(DeviceView device, List<ModelAction> actions) {
        if (device.models() == null) return;
        for (String model : device.loadedModels()) {
            if (!device.holds(model)) {
                device.unload(model);
                actions.add(ModelAction.unload(device.slot(), model, ModelAction.UNPLACED));
            }
        }
        for (String model : new java.util.TreeSet<>(device.models())) {
            if (!catalog.contains(model)) continue;
            ModelSpec spec = catalog.get(model);
            if (device.holds(model) && device.fitsWithoutEviction(spec)) {
                device.bookLoad(spec, device.freeAtMicros());
                actions.add(ModelAction.load(device.slot(), model, ModelAction.PLACED));
            }
        }
    }

    /**
     * The device could not load the model: the planner leaves that copy out until {@link
     * #placementChanged}. The caller has dropped it from the device's view.
     */
    void loadFailed(int slot, String model) {
        failed.add(slot + "/" + model);
    }

    /** The group's placement or devices changed: every device may be tried again for every model. */
    void placementChanged() {
        failed.clear();
    }

    /**
     * What made the planner want copy number {@code copies + 1} of {@code q}'s model, for the
     * operator: its rate in full batches against the utilisation target, or the queue its copies
     * cannot serve by the head's deadline.
     */
    String why(RequestQueue q, int copies, long nowMicros) {
        int byRate = wanted(q, copies, nowMicros, 1, false);
        if (byRate > copies) {
            LatencyProfile p = q.profile();
            double rate = demand.ratePerSecond(q, nowMicros);
            double devices = rate * Math.max(1, p.latencyAt(p.batchSizeCount() - 1)) / 1e6 / p.maxBatch();
            return String.format(Locale.ROOT, "demand: %.0f requests/s take %.2f devices in full batches of %d; %d copies keep each under %.0f %%",
                    rate, devices, p.maxBatch(), byRate, 100 * TARGET_UTILISATION);
        }
        return q.size() + " requests queued, more than " + copies + (copies == 1 ? " copy serves" : " copies serve")
                + " in full batches by the first one's deadline";
    }

    /** Whether some device's load of the model, booked here, is not predicted done at {@code now}. */
    private static boolean loading(ModelSpec spec, List<DeviceView> devices, long nowMicros) {
        for (DeviceView d : devices) {
            if (d.loadEndMicros(spec.name()) > nowMicros) return true;
        }
        return false;
    }

    /** The devices that hold the model or have its load booked. */
    static int copies(ModelSpec spec, List<DeviceView> devices) {
        int n = 0;
        for (DeviceView d : devices) {
            if (d.holds(spec.name()) && d.isWarm(spec)) n++;
        }
        return n;
    }

    /**
     * How many copies {@code q}'s model wants with {@code copies} now: as many as keep its demand at
     * {@link #TARGET_UTILISATION} of them at full batches, and one more than now while its queue holds
     * more requests than they can serve in full batches by the head's deadline (a rate estimate
     * follows a step in about its window; the queue shows it at once); one at least within
     * {@link #RECENT_MICROS} of its latest arrival. Its demand is taken {@code margin} times higher;
     * its rate counts from {@link #RATE_HISTORY_MICROS} after its first arrival.
     */
    int wanted(RequestQueue q, int copies, long nowMicros, double margin) {
        return wanted(q, copies, nowMicros, margin, true);
    }

    private int wanted(RequestQueue q, int copies, long nowMicros, double margin, boolean byQueueToo) {
        LatencyProfile p = q.profile();
        int full = p.maxBatch();
        long fullMicros = Math.max(1, p.latencyAt(p.batchSizeCount() - 1));
        long first = demand.firstArrivalMicros(q);
        double rate = first != Long.MIN_VALUE && nowMicros - first >= RATE_HISTORY_MICROS ? demand.ratePerSecond(q, nowMicros) : 0;
        double share = margin * rate * fullMicros / 1e6 / full;
        int byRate = (int) Math.ceil(share / TARGET_UTILISATION);
        long last = demand.lastArrivalMicros(q);
        if (byRate == 0 && last != Long.MIN_VALUE && nowMicros - last < RECENT_MICROS) byRate = 1;
        if (q.isEmpty() || !byQueueToo) return byRate;
        long rounds = Math.max(1, (q.headDeadline() - nowMicros) / fullMicros);
        int byQueue = q.size() > (long) copies * full * rounds ? copies + 1 : 0;
        return Math.max(byRate, byQueue);
    }

    /**
     * The device to load {@code spec} on: one its placement lists, that neither holds the model nor
     * loads it, with room for it now or once idle copies it may drop are gone; of those, the one
     * where the load could start first, the lowest slot of equals. Null when there is none.
     */
    private DeviceView deviceFor(ModelSpec spec, List<DeviceView> devices, long nowMicros) {
        DeviceView best = null;
        for (DeviceView d : devices) {
            if (!d.holds(spec.name()) || d.isWarm(spec) || failed.contains(d.slot() + "/" + spec.name())) continue;
            if (best != null && d.startAtMicros(nowMicros) >= best.startAtMicros(nowMicros)) continue;
            if (d.fitsWithoutEviction(spec) || roomOn(d, spec, devices, nowMicros) != null) best = d;
        }
        return best;
    }

    /**
     * The copies to drop from {@code device} for {@code spec} to fit there, least recently used
     * first: each idle, of a model the default placement places, that keeps as many copies as it
     * wants without this one. Empty when the model fits already; null when no such copies make room.
     */
    private List<String> roomOn(DeviceView device, ModelSpec spec, List<DeviceView> devices, long nowMicros) {
        if (device.fitsWithoutEviction(spec)) return List.of();
        long free = device.memoryBudgetBytes() - device.memoryUsedBytes();
        List<String> victims = new ArrayList<>();
        for (String model : device.loadedModels()) {
            ModelSpec other = catalog.get(model);
            if (other == null || device.busyWith(model, nowMicros) || choice.placementOf(model).modelAware()) continue;
            if (!spare(other, devices, nowMicros)) continue;
            victims.add(model);
            free += other.memoryBytes();
            if (free >= spec.memoryBytes()) return victims;
        }
        return null;
    }

    /** Whether {@code spec}'s model keeps as many copies as it wants without one of them, its demand taken {@link #SPARE_MARGIN} higher. */
    private boolean spare(ModelSpec spec, List<DeviceView> devices, long nowMicros) {
        RequestQueue q = demand.queue(spec.name());
        int copies = copies(spec, devices);
        return q == null || copies - 1 >= wanted(q, copies - 1, nowMicros, SPARE_MARGIN);
    }
}
