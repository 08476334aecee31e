package io.kairos.control.herd;

import io.kairos.core.plan.ServingPlan;
import io.kairos.core.scheduling.DeviceView;
import io.kairos.schema.AssignGroup;
import io.kairos.schema.DevicePlacement;
import io.kairos.schema.SetPlacement;
import io.kairos.schema.SetPolicy;
import io.kairos.wire.plan.DecisionLedger;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A Herd plan as the control decisions that serve it in a running job, in an order that never puts
 * a device in two groups at once:
 * <ol>
 *   <li>every group that holds devices now and will hold others (the job's {@code default} group,
 *       which holds every device until it is placed, and the groups of an earlier Herd plan) keeps
 *       only the devices it keeps: a {@code SetPlacement} that shrinks it ({@code default} keeps the
 *       devices the plan leaves over);</li>
 *   <li>per new group, {@code SetPlacement} (each of its devices holding all its models: a group's
 *       models fit one device's memory), {@code SetPolicy} (the policy {@code T_i} was measured
 *       under), then an {@code AssignGroup} per model, so that a model's requests reach its group
 *       only once the group has its devices and policy. A group of the earlier plan whose models
 *       the new one routes to other groups keeps them on its devices meanwhile, where they fit
 *       with its new ones, so that a request of theirs never finds its group without a device for
 *       it (the job moves the requests queued there to the new group when the model is routed);</li>
 *   <li>then those groups let their departed models go: a {@code SetPlacement} each.</li>
 * </ol>
 * A device held by a group that is neither {@code default} nor Herd's ({@code herd-*}: another
 * planner's, or a user's) is not taken: the plan is refused with the group named.
 */
public final class HerdDecisions {
    private HerdDecisions() {}

    /**
     * @param current the job's plan as its control topic holds it (a {@link DecisionLedger} read from the topic)
     * @param policy  the scheduling policy of every Herd group
     * @param served  the models the job serves (its catalog's): what the default group's devices
     *                hold once placed, less the models the plan routes to its groups
     * @throws IllegalArgumentException in one line when a device of the plan is held by a group
     *         Herd does not manage, or the plan is infeasible
     */
    public static List<Object> actions(HerdPlan plan, DecisionLedger current, String policy, java.util.Collection<String> served) {
        if (!plan.feasible()) throw new IllegalArgumentException(plan.infeasibility());
        ServingPlan now = current.plan();
        Map<String, Set<Integer>> held = new TreeMap<>(now.placedGroups());
        Map<Integer, String> newGroupOf = new TreeMap<>();
        for (HerdPlan.Group g : plan.groups()) for (int d : g.devices()) newGroupOf.put(d, g.name());
        for (int d : newGroupOf.keySet()) {
            if (d >= now.deviceCount()) {
                throw new IllegalArgumentException("the plan puts serving group '" + newGroupOf.get(d) + "' on device " + d + ", but the job has devices 0.."
                        + (now.deviceCount() - 1));
            }
        }
        for (Map.Entry<String, Set<Integer>> e : held.entrySet()) {
            if (managed(e.getKey())) continue;
            for (int d : e.getValue()) {
                if (newGroupOf.containsKey(d)) {
                    throw new IllegalArgumentException("device " + d + " is held by serving group '" + e.getKey() + "' (placement/" + e.getKey()
                            + "), which Herd does not manage; the plan would put it in '" + newGroupOf.get(d)
                            + "' too, and a device serves one group: free it first, or plan on fewer devices");
                }
            }
        }
        List<Object> actions = new ArrayList<>();
        // 1. Shrink: each group Herd manages keeps only what the new plan leaves it.
        Map<String, Set<Integer>> before = new TreeMap<>(held);
        if (!before.containsKey(ServingPlan.DEFAULT_GROUP)) {
            Set<Integer> all = new TreeSet<>();
            for (DeviceView v : now.devicesOf(ServingPlan.DEFAULT_GROUP)) all.add(v.slot());
            before.put(ServingPlan.DEFAULT_GROUP, all); // unplaced, it holds every device
        }
        Map<String, HerdPlan.Group> byName = new LinkedHashMap<>();
        for (HerdPlan.Group g : plan.groups()) byName.put(g.name(), g);
        for (Map.Entry<String, Set<Integer>> e : before.entrySet()) {
            String group = e.getKey();
            if (!managed(group)) continue;
            Set<Integer> keeps = new TreeSet<>();
            if (group.equals(ServingPlan.DEFAULT_GROUP)) keeps.addAll(plan.leftover());
            else if (byName.containsKey(group)) keeps.addAll(byName.get(group).devices());
            keeps.retainAll(e.getValue());
            if (keeps.equals(e.getValue())) continue; // loses nothing
            Set<String> models = modelsOn(now, group);
            if (models == null || group.equals(ServingPlan.DEFAULT_GROUP)) {
                // A placement lists its models: the default group's are those the plan does not route elsewhere.
                models = new TreeSet<>(served);
                for (HerdPlan.Group g : plan.groups()) g.models().forEach(models::remove);
            }
            actions.add(placement(group, keeps, models));
        }
        // 2. Grow: each new group with its devices, its policy, then its models routed to it. A
        // group of the earlier plan whose models leave it keeps them on its devices until they are
        // routed to their new group (where memory allows), so that no request of theirs finds a
        // group without a device for it in between; 3. then it lets them go.
        List<Object> trims = new ArrayList<>();
        for (HerdPlan.Group g : plan.groups()) {
            Set<String> models = new TreeSet<>(g.models());
            Set<String> carried = leaving(now, g, plan);
            if (!carried.isEmpty()) {
                Set<String> both = new TreeSet<>(models);
                both.addAll(carried);
                if (fits(now, both)) {
                    actions.add(placement(g.name(), new TreeSet<>(g.devices()), both));
                    trims.add(placement(g.name(), new TreeSet<>(g.devices()), models));
                } else {
                    actions.add(placement(g.name(), new TreeSet<>(g.devices()), models));
                }
            } else {
                actions.add(placement(g.name(), new TreeSet<>(g.devices()), models));
            }
            actions.add(SetPolicy.newBuilder().setGroup(g.name()).setPolicy(policy).build());
            for (String model : g.models()) actions.add(AssignGroup.newBuilder().setModel(model).setGroup(g.name()).build());
        }
        actions.addAll(trims);
        return actions;
    }

    /** The models routed to {@code g}'s group now that the plan routes to another of its groups. */
    private static Set<String> leaving(ServingPlan now, HerdPlan.Group g, HerdPlan plan) {
        Set<String> out = new TreeSet<>();
        Map<String, String> next = new java.util.HashMap<>();
        for (HerdPlan.Group other : plan.groups()) for (String m : other.models()) next.put(m, other.name());
        for (Map.Entry<String, String> e : next.entrySet()) {
            if (!e.getValue().equals(g.name()) && now.groupOf(e.getKey()).equals(g.name())) out.add(e.getKey());
        }
        return out;
    }

    /** Whether {@code models} fit one device's memory together (the catalog's sizes; every model fits without a catalog). */
    private static boolean fits(ServingPlan now, Set<String> models) {
        if (now.catalog() == null) return true;
        long total = 0;
        for (String m : models) {
            if (!now.catalog().contains(m)) return false;
            total += now.catalog().get(m).memoryBytes();
        }
        return total <= now.deviceMemoryBytes();
    }

    /** Groups Herd may reshape: the job's default group and its own. */
    static boolean managed(String group) {
        return group.equals(ServingPlan.DEFAULT_GROUP) || group.startsWith(HerdSolver.GROUP_PREFIX);
    }

    /** The models a group's devices hold now, every device the same ones; null (every model) when a device is not limited. */
    private static Set<String> modelsOn(ServingPlan plan, String group) {
        Set<String> models = new TreeSet<>();
        for (DeviceView v : plan.devicesOf(group)) {
            if (v.models() == null) return null;
            models.addAll(v.models());
        }
        return models;
    }

    /** A group's placement: every device holding {@code models}. */
    static SetPlacement placement(String group, Set<Integer> devices, Set<String> models) {
        List<DevicePlacement> placed = new ArrayList<>();
        for (int d : devices) placed.add(DevicePlacement.newBuilder().setDevice(d).setModels(List.copyOf(models)).build());
        return SetPlacement.newBuilder().setGroup(group).setDevices(placed).build();
    }
}
