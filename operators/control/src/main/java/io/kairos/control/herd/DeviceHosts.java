package io.kairos.control.herd;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Which process runs each device: the job's device slots by TaskManager, as Flink placed the
 * inference operator's subtasks (slot {@code d} is subtask {@code d}). Flink does not let a job
 * choose where a subtask runs, so a plan that wants a group's devices in one TaskManager takes
 * the slots from where they landed ({@link #place}).
 *
 * @param devicesByHost each host's device slots, in the order hosts were given
 */
public record DeviceHosts(Map<String, List<Integer>> devicesByHost) {

    public DeviceHosts {
        Map<String, List<Integer>> copy = new LinkedHashMap<>();
        Map<Integer, String> hostOf = new HashMap<>();
        for (Map.Entry<String, List<Integer>> e : devicesByHost.entrySet()) {
            List<Integer> slots = new ArrayList<>(new TreeSet<>(e.getValue()));
            for (int d : slots) {
                if (d < 0) throw new IllegalArgumentException("device slot " + d + " on " + e.getKey() + ": a slot is 0 or more");
                String other = hostOf.putIfAbsent(d, e.getKey());
                if (other != null) throw new IllegalArgumentException("device slot " + d + " is on both " + other + " and " + e.getKey());
            }
            if (!slots.isEmpty()) copy.put(e.getKey(), List.copyOf(slots));
        }
        devicesByHost = Collections.unmodifiableMap(copy);
    }

    /** The host of a slot, or null if none holds it. */
    public String hostOf(int slot) {
        for (Map.Entry<String, List<Integer>> e : devicesByHost.entrySet()) if (e.getValue().contains(slot)) return e.getKey();
        return null;
    }

    /** Every slot of every host. */
    public TreeSet<Integer> slots() {
        TreeSet<Integer> all = new TreeSet<>();
        devicesByHost.values().forEach(all::addAll);
        return all;
    }

    /**
     * The plan with its groups' devices taken from as few hosts as it can: each group keeps its
     * size, models and streams (so every {@code bt} is the same), and the groups, largest first,
     * take the devices of the host that holds enough of them free with the fewest to spare (best
     * fit decreasing); a group no single host can hold takes the hosts with the most free devices
     * first. What no group takes is left over. A group on one host has its scheduler's batches and
     * its devices' reports go between its own devices' process and the scheduler's, and loses
     * only itself when a host dies.
     *
     * @throws IllegalArgumentException naming a slot the plan uses that no host runs, or one a host
     *         runs that the plan does not know (the job has other devices than it was planned for)
     */
    public HerdPlan place(HerdPlan plan) {
        if (!plan.feasible()) return plan;
        TreeSet<Integer> planned = new TreeSet<>(plan.leftover());
        for (HerdPlan.Group g : plan.groups()) planned.addAll(g.devices());
        TreeSet<Integer> here = slots();
        if (!planned.equals(here)) {
            TreeSet<Integer> missing = new TreeSet<>(planned);
            missing.removeAll(here);
            TreeSet<Integer> extra = new TreeSet<>(here);
            extra.removeAll(planned);
            throw new IllegalArgumentException(!missing.isEmpty()
                    ? "the plan has device slot(s) " + HerdPlan.ranges(List.copyOf(missing)) + " that no TaskManager runs (the TaskManagers run " + HerdPlan.ranges(List.copyOf(here)) + ")"
                    : "the TaskManagers run device slot(s) " + HerdPlan.ranges(List.copyOf(extra)) + " that the plan does not have (it plans " + HerdPlan.ranges(List.copyOf(planned)) + ")");
        }
        Map<String, TreeSet<Integer>> free = new LinkedHashMap<>();
        devicesByHost.forEach((host, slots) -> free.put(host, new TreeSet<>(slots)));
        List<Integer> order = new ArrayList<>();
        for (int j = 0; j < plan.groups().size(); j++) order.add(j);
        order.sort((a, b) -> Integer.compare(plan.groups().get(b).devices().size(), plan.groups().get(a).devices().size()));
        List<List<Integer>> devicesOf = new ArrayList<>(Collections.nCopies(plan.groups().size(), null));
        for (int j : order) {
            int size = plan.groups().get(j).devices().size();
            String best = null;
            for (Map.Entry<String, TreeSet<Integer>> e : free.entrySet()) {
                int n = e.getValue().size();
                if (n >= size && (best == null || n < free.get(best).size())) best = e.getKey();
            }
            List<Integer> taken = new ArrayList<>();
            if (best != null) {
                take(free.get(best), size, taken);
            } else {
                List<String> roomiest = new ArrayList<>(free.keySet());
                roomiest.sort((a, b) -> Integer.compare(free.get(b).size(), free.get(a).size()));
                for (String host : roomiest) take(free.get(host), size - taken.size(), taken);
            }
            devicesOf.set(j, taken);
        }
        List<HerdPlan.Group> groups = new ArrayList<>();
        for (int j = 0; j < plan.groups().size(); j++) {
            HerdPlan.Group g = plan.groups().get(j);
            groups.add(new HerdPlan.Group(g.name(), devicesOf.get(j), g.models(), g.streams()));
        }
        List<Integer> leftover = new ArrayList<>();
        free.values().forEach(leftover::addAll);
        leftover.sort(null);
        return new HerdPlan(groups, plan.status(), plan.bound(), plan.solveMillis(), null, leftover);
    }

    /** Each group's hosts, in the order of its devices. */
    public Map<String, List<String>> hostsOf(HerdPlan plan) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (HerdPlan.Group g : plan.groups()) {
            List<String> hosts = new ArrayList<>();
            for (int d : g.devices()) {
                String h = hostOf(d);
                if (!hosts.contains(h)) hosts.add(h);
            }
            out.put(g.name(), hosts);
        }
        return out;
    }

    private static void take(TreeSet<Integer> from, int n, List<Integer> into) {
        for (int i = 0; i < n && !from.isEmpty(); i++) into.add(from.pollFirst());
    }
}
