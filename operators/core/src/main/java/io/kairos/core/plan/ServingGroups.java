package io.kairos.core.plan;

import io.kairos.core.api.Internal;
import io.kairos.core.scheduling.ModelAction;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.scheduling.ConfiguredPolicy;
import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.scheduling.GroupScheduler;
import io.kairos.core.model.LatencyEstimator;
import io.kairos.core.request.Request;
import io.kairos.core.scheduling.SchedulingPolicy;
import io.kairos.core.scheduling.policy.Policies;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The serving groups that one engine instance runs, kept in step with a {@link ServingPlan}: each
 * group's {@link GroupScheduler} is created on demand (the first request routed to it), with the
 * plan's policy, typed parameters and devices, and brought up to date whenever the plan changes;
 * the loads and unloads that a new placement asks of the devices come back to the engine to send.
 * Engine-free: the Flink scheduler operator and the simulator apply plans through it, so that
 * both apply a control decision with the same code.
 */
@Internal
public final class ServingGroups {
    private final ModelCatalog catalog;
    private final boolean preemption;
    private final LatencyEstimator.Settings learnLatency;
    private final Function<String, SchedulingPolicy> policies;
    // In creation order, so that an engine that walks them (the simulator) does so deterministically.
    private final Map<String, GroupScheduler> groups = new LinkedHashMap<>();
    private final Map<String, ServingPlan.GroupPolicy> applied = new HashMap<>();
    private ServingPlan seenPlan;
    private long seenVersion;
    private List<Move> moved = Collections.emptyList();
    // Each model's group as of the last plan taken: what tells a rerouted model's queue to move.
    private Map<String, String> routing = new HashMap<>();
    // Which groups this instance runs: all of them, unless the engine spreads its groups over
    // several instances (the job's scheduler subtasks, each a share of the groups' keys).
    private Predicate<String> runsHere = group -> true;

    /**
     * @param preemption   whether the engine can abort a batch on its device, see {@link GroupScheduler#allowPreemption}
     * @param learnLatency how the groups correct their latency profiles from device reports
     *                     ({@link GroupScheduler#learnLatency}); null: never
     */
    public ServingGroups(ModelCatalog catalog, boolean preemption, LatencyEstimator.Settings learnLatency) {
        this(catalog, preemption, learnLatency, Policies::create);
    }

    /**
     * @param policies the policy object for a policy name of the plan ({@link Policies#create} in the
     *                 job): where a simulation hands in an object of its own under a registry name,
     *                 e.g. an agent being trained whose decisions come from outside
     */
    public ServingGroups(ModelCatalog catalog, boolean preemption, LatencyEstimator.Settings learnLatency, Function<String, SchedulingPolicy> policies) {
        this.catalog = catalog;
        this.preemption = preemption;
        this.learnLatency = learnLatency;
        this.policies = policies;
    }

    /**
     * Tells the groups which groups this instance runs, where the engine spreads them over several
     * (the job's scheduler at a parallelism above 1: each subtask runs the groups whose keys it
     * owns). A plan change that routes a model to a group run elsewhere leaves the model's queued
     * requests where they are, to be served by their group's devices while they still hold the
     * model: moved here, they would make a second scheduler of that group, booking its devices
     * unknown to the first.
     */
    public ServingGroups runningOnly(Predicate<String> runsHere) {
        this.runsHere = runsHere;
        return this;
    }

    /** Whether this instance runs {@code group} (see {@link #runningOnly}). */
    public boolean runsHere(String group) {
        return runsHere.test(group);
    }

    /** A model to load on, or unload from, a device of a serving group, because the plan changed. */
    public record DeviceAction(String group, ModelAction action) {}

    /** A group's scheduler as {@link #scheduler} found it, whether it was created now, and the device actions to send. */
    public record Lookup(GroupScheduler scheduler, boolean created, List<DeviceAction> actions) {}

    /**
     * The scheduler of {@code group}, after the groups have taken the plan if it changed since the
     * last call; a group not seen before is created now, with its policy and devices, and the
     * models its placement puts on its devices are loaded now, before its first request.
     */
    public Lookup scheduler(String group, ServingPlan plan) {
        List<DeviceAction> actions = update(plan);
        GroupScheduler g = groups.get(group);
        if (g != null) return new Lookup(g, false, actions);
        if (actions.isEmpty()) actions = new ArrayList<>();
        return new Lookup(create(group, plan, actions), true, actions);
    }

    /** A group's scheduler made now, with the plan's policy and devices, the loads its placement asks for added to {@code actions}. */
    private GroupScheduler create(String group, ServingPlan plan, List<DeviceAction> actions) {
        ServingPlan.GroupPolicy p = plan.policyOf(group);
        GroupScheduler g = new GroupScheduler(group, catalog, List.of(), ConfiguredPolicy.of(group, policies.apply(p.policy()), p.params(), p.inputs()));
        g.allowPreemption(preemption);
        g.learnLatency(learnLatency);
        applied.put(group, p);
        place(g, plan, viewsBySlot(), actions);
        groups.put(group, g);
        return g;
    }

    /**
     * Brings every group up to date with the plan, if it changed since the last call: a group whose
     * policy, parameters or batching tables changed gets them (the queues stay), every group gets its devices anew
     * (a device that stays keeps what is booked on it and what it holds in memory).
     *
     * @return the loads and unloads to send the devices, group by group in creation order
     */
    public List<DeviceAction> update(ServingPlan plan) {
        moved = Collections.emptyList();
        if (plan == seenPlan && plan.version() == seenVersion) return Collections.emptyList();
        seenPlan = plan;
        seenVersion = plan.version();
        List<DeviceAction> actions = new ArrayList<>();
        Map<Integer, DeviceView> before = viewsBySlot();
        Map<String, List<DeviceView>> held = new HashMap<>();
        for (GroupScheduler g : groups.values()) held.put(g.group(), g.devices());
        for (GroupScheduler g : groups.values()) {
            ServingPlan.GroupPolicy p = plan.policyOf(g.group());
            if (!p.equals(applied.get(g.group()))) {
                // The same policy keeps its object, with whatever it holds beyond its parameters.
                SchedulingPolicy policy = p.policy().equals(g.policy().name()) ? g.policy() : policies.apply(p.policy());
                g.setPolicy(ConfiguredPolicy.of(g.group(), policy, p.params(), p.inputs()));
                applied.put(g.group(), p);
            }
            place(g, plan, before, actions);
        }
        release(held, plan, actions);
        regroup(plan, actions);
        return actions;
    }

    /**
     * Requests that a plan change moved from one group's queues to another's: the engine schedules
     * the receiving group now (its policy has not seen them) and, where the request's payload names
     * its group, renames it there.
     */
    public record Move(String from, String to, String model, List<Request> requests) {}

    /** The moves of the last {@link #update} (or {@link #scheduler}, which updates first); empty when it moved nothing. */
    public List<Move> moved() {
        return moved;
    }

    /**
     * Moves the queued requests of every model the plan now routes to another group into that
     * group's queues (created now if no request reached it yet): they are served where their model
     * is served from now on, by the group whose devices the placement gives the model, rather than
     * left where no device may hold the model any more (shed at once: "no device of serving group
     * ... holds model"). Batches already dispatched finish on their devices; only the queues move.
     */
    private void regroup(ServingPlan plan, List<DeviceAction> actions) {
        Map<String, String> before = routing;
        routing = new HashMap<>();
        for (String model : catalog.names()) routing.put(model, plan.groupOf(model));
        for (GroupScheduler g : List.copyOf(groups.values())) {
            if (g.pendingCount() == 0) continue;
            for (String model : List.copyOf(g.modelsWithPending())) {
                String to = plan.groupOf(model);
                // Only what this change rerouted: a group may hold requests the plan never routed to it.
                if (to.equals(g.group()) || !g.group().equals(before.get(model))) continue;
                if (!runsHere.test(to)) continue; // its new group runs elsewhere: see runningOnly

                List<Request> requests = g.handOver(model);
                if (requests.isEmpty()) continue;
                GroupScheduler target = groups.get(to);
                if (target == null) target = create(to, plan, actions);
                for (Request r : requests) target.admit(r);
                if (moved.isEmpty()) moved = new ArrayList<>();
                moved.add(new Move(g.group(), to, model, requests));
            }
        }
    }

    /**
     * Unloads from the devices that left a group the models that group placed or had loaded there
     * and that no group of the plan keeps there now ({@link ServingPlan#keeps}): a replica the plan took
     * away gives its memory back (a device left holding nothing is released). A batch already
     * sent there runs first: a device takes its actions in the order they are sent.
     */
    private void release(Map<String, List<DeviceView>> before, ServingPlan plan, List<DeviceAction> actions) {
        java.util.Set<String> sent = new java.util.HashSet<>();
        for (DeviceAction a : actions) if (!a.action().load()) sent.add(a.action().device() + "/" + a.action().model());
        for (Map.Entry<String, List<DeviceView>> e : before.entrySet()) {
            GroupScheduler g = groups.get(e.getKey());
            for (DeviceView left : e.getValue()) {
                if (hasSlot(g, left.slot())) continue;
                // What its placement put there (loaded on its first batch where the catalog gives no
                // load cost), and what the group's picture has loaded there.
                java.util.Set<String> there = new java.util.TreeSet<>(left.loadedModels());
                if (left.models() != null) there.addAll(left.models());
                for (String model : there) {
                    if (plan.keeps(left.slot(), model) || !sent.add(left.slot() + "/" + model)) continue;
                    // A group of this instance that has the device now forgets the model too.
                    for (GroupScheduler other : groups.values()) {
                        for (DeviceView d : other.devices()) if (d.slot() == left.slot()) d.unload(model);
                    }
                    actions.add(new DeviceAction(g.group(), ModelAction.unload(left.slot(), model, ModelAction.LEFT)));
                }
            }
        }
    }

    /**
     * Gives the group its devices from the plan, and adds the loads and unloads that follow. A
     * device that comes from another group of this instance brings that group's picture of it
     * (work booked, models in memory): it is the same device.
     */
    private void place(GroupScheduler g, ServingPlan plan, Map<Integer, DeviceView> before, List<DeviceAction> actions) {
        List<DeviceView> devices = plan.devicesOf(g.group());
        for (DeviceView d : devices) {
            DeviceView elsewhere = before.get(d.slot());
            if (elsewhere != null && !hasSlot(g, d.slot())) d.inherit(elsewhere);
        }
        for (ModelAction a : g.setDevices(devices)) actions.add(new DeviceAction(g.group(), a));
    }

    private static boolean hasSlot(GroupScheduler g, int slot) {
        for (DeviceView d : g.devices()) {
            if (d.slot() == slot) return true;
        }
        return false;
    }

    /** The groups' current views of their devices, by slot; a device in several groups: the first group's. */
    private Map<Integer, DeviceView> viewsBySlot() {
        Map<Integer, DeviceView> views = new HashMap<>();
        for (GroupScheduler g : groups.values()) {
            for (DeviceView d : g.devices()) views.putIfAbsent(d.slot(), d);
        }
        return views;
    }

    /** The scheduler of {@code group}, or null if no request has been routed to it yet. */
    public GroupScheduler get(String group) {
        return groups.get(group);
    }

    /** Every group's scheduler, in creation order. */
    public Collection<GroupScheduler> all() {
        return Collections.unmodifiableCollection(groups.values());
    }
}
