package io.kairos.core.scheduling;

import io.kairos.core.api.PublicEvolving;
import io.kairos.core.model.LatencyProfile;
import io.kairos.core.model.ModelSpec;
import io.kairos.core.request.Request;

import java.util.List;

/**
 * The one device choice every policy makes, and the one feasibility test. A batch sent to a
 * device starts after the work booked there, a load the {@link LoadPlanner} booked among it, and,
 * where the device does not hold the model in memory, after its load ({@link DeviceView#readyAtMicros}):
 * that is what {@link GroupScheduler#dispatch} books, so a batch judged feasible here ends by its
 * deadline as booked, and shedding judges a request by the same instant; but for a model no device
 * holds, whose first load is unavoidable (see {@link #readyFromMicros}). Which devices a batch may
 * go to at all is the model's {@link PlacementPolicy}: the placement list first
 * ({@link DeviceView#holds}), then, for a model-aware placement, warmth and load; for the others,
 * the devices that hold the model or have its load booked, while one does ({@link #admits}).
 *
 * <p>Policies that start batches on idle devices ask {@link #idleFor}; policies that pick a device
 * first and then the work for it (the latest-start policies, Flex) ask {@link #admits} and
 * {@link #readyAtMicros} of each queue on that device.
 */
@PublicEvolving
public final class DeviceChoice {
    // The group's models by queue number (the scheduler's list, grown as queues are made).
    private final List<ModelSpec> specs;
    private List<DeviceView> devices = List.of();
    private PerModel<PlacementPolicy> placement = PerModel.of(PlacementPolicy.DEFAULT);
    private boolean modelAware;
    private boolean loadCosts;

    DeviceChoice(List<ModelSpec> specs) {
        this.specs = specs;
    }

    void setDevices(List<DeviceView> devices) {
        this.devices = devices;
    }

    void setPlacement(PerModel<PlacementPolicy> placement) {
        this.placement = placement;
        boolean aware = placement.group().modelAware();
        for (PlacementPolicy p : placement.models().values()) aware |= p.modelAware();
        this.modelAware = aware;
    }

    /** A device reported a batch of {@code spec}'s model: its placement may learn from it. */
    void observe(ModelSpec spec, BatchReport report) {
        placement.of(spec.name()).observe(spec, report);
    }

    /** A queue of this model was made in the group. */
    void queued(ModelSpec spec) {
        loadCosts |= spec.hasLoadCost();
    }

    /** The placement policy of {@code model}. */
    public PlacementPolicy placementOf(String model) {
        return placement.of(model);
    }

    /**
     * Whether every device that holds a model by placement is as good as any other for it: no
     * model of the group takes time to load, and no placement looks at the devices' memory. Then
     * the device a policy picks by free time alone is the right one, and one earliest start holds
     * for every model.
     */
    public boolean devicesAlike() {
        return !loadCosts && !modelAware;
    }

    /** Whether the placement of some model looks at the devices' memory (not {@link PlacementPolicy#DEFAULT}). */
    public boolean modelAware() {
        return modelAware;
    }

    /** Whether some model of the group takes time to load (what {@link #devicesAlike} also asks). */
    public boolean loadCosts() {
        return loadCosts;
    }

    /** The catalog entry of {@code q}'s model. */
    public ModelSpec spec(RequestQueue q) {
        return specs.get(q.number());
    }

    private boolean heldSomewhere(ModelSpec spec) {
        for (DeviceView d : devices) {
            if (d.holds(spec.name()) && d.isWarm(spec)) return true;
        }
        return false;
    }

    /**
     * When a batch of {@code q} sent to {@code device} now could start computing: after the work
     * booked there and its load, and, sent over the network to a device on another machine
     * ({@link #remote}), not before it got there.
     */
    public long readyAtMicros(RequestQueue q, DeviceView device, long nowMicros) {
        return readyFromMicros(q, device, device.startAtMicros(nowMicros), nowMicros);
    }

    /** {@link #readyAtMicros} for a batch that would start on {@code device} at {@code startMicros}, its load and network trip not counted. */
    public long readyFromMicros(RequestQueue q, DeviceView device, long startMicros, long nowMicros) {
        return readyFrom(q, device, startMicros, nowMicros, null);
    }

    /**
     * {@link #readyFromMicros}, asking {@code round} (null: the devices) whether the model is held
     * warm somewhere. A device that holds the model, or has its load booked, starts the batch after
     * its booked work, the load among it. The load counted in front of a batch is the one on a
     * device that does not hold the model while another device of the group does, a device the
     * default placement no longer {@link #admits} (the load planner loads it instead), so only a
     * model-aware placement's choice pays it; none while no device holds the model. That first
     * load is unavoidable, so the batch that pays it is judged by its inference alone and booked
     * with the load: it may end late, and warms a device for the requests behind it. Judged with
     * the load, a model whose SLO is shorter than its load would never be loaded again once evicted.
     */
    private long readyFrom(RequestQueue q, DeviceView device, long startMicros, long nowMicros, Round round) {
        ModelSpec spec = specs.get(q.number());
        long start = startMicros;
        if (modelAware && remote(q, device, nowMicros)) start = Math.max(start, nowMicros + spec.networkMicros());
        if (!loadCosts) return start;
        long load = device.loadMicros(spec);
        boolean held = load != 0 && (round == null ? heldSomewhere(spec) : round.held(q.number(), spec));
        return held ? start + load : start;
    }

    /**
     * Whether the model's placement sends a batch of {@code q} to {@code device} over the network
     * ({@link PlacementPolicy#remote}), its pre- and post-processing staying where it came from.
     */
    public boolean remote(RequestQueue q, DeviceView device, long nowMicros) {
        if (!modelAware) return false;
        PlacementPolicy p = placement.of(q.model());
        return p.modelAware() && p.remote(specs.get(q.number()), device, devices, nowMicros);
    }

    /**
     * Whether a batch of {@code q} may go to {@code device} now: its placement list holds the model,
     * and the model's placement policy admits it. Under a placement that does not look at memory, a
     * device that neither holds the model nor has its load booked is admitted only while no device
     * of the group does: a batch never carries a load in front of it, but for the model's first,
     * unavoidable one; more copies are the {@link LoadPlanner}'s to decide.
     */
    public boolean admits(RequestQueue q, DeviceView device, long nowMicros) {
        return admits(q, device, nowMicros, null);
    }

    private boolean admits(RequestQueue q, DeviceView device, long nowMicros, Round round) {
        if (!device.holds(q.model())) return false;
        PlacementPolicy p = modelAware ? placement.of(q.model()) : PlacementPolicy.DEFAULT;
        if (p.modelAware()) return p.admits(specs.get(q.number()), device, devices, nowMicros);
        if (!loadCosts) return true;
        ModelSpec spec = specs.get(q.number());
        // A model whose load takes no time (its memory counted, its loading not modelled) may go
        // wherever it is placed: nothing waits in front of its batch.
        return device.isWarm(spec) || device.loadMicros(spec) == 0
                || !(round == null ? heldSomewhere(spec) : round.held(q.number(), spec));
    }

    /**
     * Books a batch of {@code q}'s requests on {@code device} at {@code now}, as the feasibility
     * tests above judged it: after the work booked there, a model the device does not hold loaded
     * first (the batch takes its load time longer), at {@code profile}'s latency for its size. A
     * batch the placement sends to a device on another machine (the registry's, to a remote holder)
     * travels the network first and leaves its pre- and post-processing where it came from: the
     * device runs the inference alone, its requests end that much after it. The device holds the
     * model from then on.
     */
    Dispatch book(RequestQueue q, Request[] batch, LatencyProfile profile, DeviceView device, long nowMicros) {
        ModelSpec spec = specs.get(q.number());
        long network = 0;
        long after = 0;
        if (remote(q, device, nowMicros)) {
            network = spec.networkMicros();
            after = spec.prePostMicros();
        }
        long latency = Math.max(0, profile.latencyMicros(batch.length) - after) + device.loadMicros(spec);
        long start = Math.max(device.startAtMicros(nowMicros), nowMicros + network);
        Dispatch d = new Dispatch(q.model(), batch, device.slot(), start, latency, network, after);
        device.book(d, nowMicros);
        device.hold(spec);
        return d;
    }

    /** The admitted device for {@code q} that has been idle longest at {@code now}, or null if none is idle. */
    public DeviceView idleFor(RequestQueue q, long nowMicros) {
        DeviceView best = null;
        Round round = loadCosts ? new Round() : null;
        for (DeviceView d : devices) {
            if (d.freeAtMicros() <= nowMicros && (best == null || d.freeAtMicros() < best.freeAtMicros()) && admits(q, d, nowMicros, round)) best = d;
        }
        return best;
    }

    /**
     * When the first device admitted for {@code q} becomes free, with none idle now (asked after
     * {@link #idleFor} found none); {@link SchedulingPolicy#NO_WAKE} if none is admitted.
     */
    public long nextFreeFor(RequestQueue q, long nowMicros) {
        long t = SchedulingPolicy.NO_WAKE;
        Round round = loadCosts ? new Round() : null;
        for (DeviceView d : devices) {
            if (d.freeAtMicros() < t && admits(q, d, nowMicros, round)) t = d.freeAtMicros();
        }
        return t;
    }

    /**
     * The earliest instant a batch of {@code q} could start computing on an admitted device, load
     * included; {@code Long.MAX_VALUE} when no device may take it. What shedding judges a head by.
     */
    public long earliestReadyMicros(RequestQueue q, long nowMicros) {
        long best = Long.MAX_VALUE;
        // Shedding asks this for every queue over every device: one round asks once whether the
        // model is held warm somewhere, not once per cold device.
        Round round = new Round();
        for (DeviceView d : devices) {
            if (admits(q, d, nowMicros, round)) best = Math.min(best, readyFrom(q, d, d.startAtMicros(nowMicros), nowMicros, round));
        }
        return best;
    }

    /**
     * {@link #readyFromMicros} for one decision of a policy: while it decides, before it
     * dispatches, no device loads or evicts anything, so whether some device holds a model warm
     * is asked once per model, not once per cold device it looks at (on Clockwork's global group
     * of 96 devices that inner loop was most of a simulation's time). Make one per decision; a
     * dispatch makes it stale.
     */
    public Round round() {
        return new Round();
    }

    /** One decision's view of the devices ({@link #round}). */
    public final class Round {
        // Per queue number: 0 not asked yet, 1 no device holds the model warm, 2 one does. Made
        // when first asked: most rounds meet no cold device.
        private byte[] held;

        private Round() {}

        /** {@link DeviceChoice#admits}. */
        public boolean admits(RequestQueue q, DeviceView device, long nowMicros) {
            return DeviceChoice.this.admits(q, device, nowMicros, this);
        }

        /** {@link DeviceChoice#readyFromMicros}, the same figure. */
        public long readyFromMicros(RequestQueue q, DeviceView device, long startMicros, long nowMicros) {
            return readyFrom(q, device, startMicros, nowMicros, this);
        }

        private boolean held(int number, ModelSpec spec) {
            if (held == null) held = new byte[Math.max(specs.size(), number + 1)];
            else if (number >= held.length) held = java.util.Arrays.copyOf(held, number + 1);
            if (held[number] == 0) held[number] = heldSomewhere(spec) ? (byte) 2 : (byte) 1;
            return held[number] == 2;
        }
    }
}
