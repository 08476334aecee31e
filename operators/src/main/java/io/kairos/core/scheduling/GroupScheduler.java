package io.kairos.core.scheduling;

import io.kairos.core.device.DeviceView;
import io.kairos.core.model.LatencyProfile;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.request.Request;
import io.kairos.core.request.RequestQueue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The state of one serving group and the loop around its policy: per-model deadline queues, the
 * predicted free time of every device of the group, shedding of requests whose deadline can no
 * longer be met, and the policy that picks batches. Engine-free: the Flink scheduler operator
 * calls it on every arrival and timer, the simulator on every event.
 */
public final class GroupScheduler implements GroupView {

    /** Parameter: shed requests that can no longer meet their deadline (default true). */
    public static final String SHED = "shed";

    private final String group;
    private final ModelCatalog catalog;
    private final Map<String, RequestQueue> queues = new HashMap<>();
    // Models whose queue is not empty. A group may serve thousands of models of which a few have
    // work at any instant (the Azure workload: 4,026); every scan below is over these only.
    private final Set<String> active = new LinkedHashSet<>();
    private final List<String> pendingModels = new ArrayList<>();
    private List<DeviceView> devices;
    private SchedulingPolicy policy;
    private PolicyParams params;
    private boolean shedding;
    private int pending;

    // Filled during one schedule() call, handed out in its outcome.
    private List<Dispatch> dispatched = new ArrayList<>();

    public GroupScheduler(String group, ModelCatalog catalog, List<DeviceView> devices, SchedulingPolicy policy, PolicyParams params) {
        this.group = group;
        this.catalog = catalog;
        this.devices = List.copyOf(devices);
        setPolicy(policy, params);
    }

    public String group() {
        return group;
    }

    public SchedulingPolicy policy() {
        return policy;
    }

    public void setPolicy(SchedulingPolicy policy, PolicyParams params) {
        this.policy = policy;
        this.params = params;
        this.shedding = params.getBoolean(SHED, true);
    }

    /** Replaces the group's devices; a device that stays keeps the work already booked on it. */
    public void setDevices(List<DeviceView> newDevices) {
        Map<Integer, DeviceView> old = new HashMap<>();
        for (DeviceView d : devices) old.put(d.slot(), d);
        for (DeviceView d : newDevices) {
            DeviceView before = old.get(d.slot());
            if (before != null) d.inheritFreeAt(before);
        }
        this.devices = List.copyOf(newDevices);
    }

    public void admit(Request request) {
        RequestQueue q = queues.computeIfAbsent(request.model(), m -> new RequestQueue());
        if (q.isEmpty()) active.add(request.model());
        q.add(request);
        pending++;
    }

    public int pendingCount() {
        return pending;
    }

    /** Every pending request, e.g. to checkpoint them; the queues are left as they are. */
    public List<Request> pendingRequests() {
        List<Request> all = new ArrayList<>(pending);
        for (String model : active) {
            RequestQueue q = queues.get(model);
            for (int i = 0; i < q.size(); i++) all.add(q.get(i));
        }
        return all;
    }

    /** Sheds what cannot be saved, then lets the policy dispatch. */
    public Outcome schedule(long nowMicros) {
        List<Drop> dropped = shed(nowMicros);
        long wake = SchedulingPolicy.NO_WAKE;
        if (pending > 0) {
            wake = policy.schedule(nowMicros, this);
        }
        List<Dispatch> out = dispatched.isEmpty() ? Collections.emptyList() : dispatched;
        if (!out.isEmpty()) dispatched = new ArrayList<>();
        if (pending > 0 && shedding) wake = Math.min(wake, nextUnreachableMicros());
        return new Outcome(out, dropped, wake);
    }

    // ---- GroupView, for the policy ----

    @Override
    public List<String> modelsWithPending() {
        pendingModels.clear();
        pendingModels.addAll(active);
        return pendingModels;
    }

    @Override
    public RequestQueue queue(String model) {
        return queues.get(model);
    }

    @Override
    public LatencyProfile profile(String model) {
        return catalog.get(model).latency();
    }

    @Override
    public List<DeviceView> devices() {
        return devices;
    }

    @Override
    public PolicyParams params() {
        return params;
    }

    @Override
    public Dispatch dispatch(String model, int size, DeviceView device, long nowMicros) {
        if (!device.holds(model)) throw new IllegalArgumentException(device + " does not hold " + model);
        RequestQueue q = queues.get(model);
        Request[] batch = q.take(size);
        pending -= size;
        if (q.isEmpty()) active.remove(model);
        long latency = profile(model).latencyMicros(size);
        long start = device.book(nowMicros, latency);
        Dispatch d = new Dispatch(model, batch, device.slot(), start, latency);
        dispatched.add(d);
        return d;
    }

    // ---- shedding ----

    /**
     * Drops, per model, the requests at the head of the queue that would miss their deadline even
     * if they ran alone on the earliest-free device that holds the model. Deadlines behind the head
     * are not earlier, so the scan stops at the first request that can still make it.
     */
    private List<Drop> shed(long nowMicros) {
        if (pending == 0) return Collections.emptyList();
        List<Drop> dropped = null;
        for (Iterator<String> it = active.iterator(); it.hasNext(); ) {
            String model = it.next();
            RequestQueue q = queues.get(model);
            long start = earliestStart(model, nowMicros);
            if (start == Long.MAX_VALUE) {
                if (dropped == null) dropped = new ArrayList<>();
                while (!q.isEmpty()) {
                    dropped.add(new Drop(q.poll(), "no device of serving group '" + group + "' holds model '" + model + "'"));
                    pending--;
                }
                it.remove();
                continue;
            }
            if (!shedding) continue;
            long finish = start + profile(model).latencyMicros(1);
            while (!q.isEmpty() && finish > q.headDeadline()) {
                if (dropped == null) dropped = new ArrayList<>();
                Request r = q.poll();
                pending--;
                dropped.add(new Drop(r, "deadline unreachable: alone on the earliest-free device it would finish "
                        + (finish - r.deadlineMicros()) + " us late"));
            }
            if (q.isEmpty()) it.remove();
        }
        return dropped == null ? Collections.emptyList() : dropped;
    }

    private long earliestStart(String model, long nowMicros) {
        long best = Long.MAX_VALUE;
        for (DeviceView d : devices) {
            if (d.holds(model)) best = Math.min(best, d.startAtMicros(nowMicros));
        }
        return best;
    }

    /** The first instant at which some head request becomes unreachable, if nothing is dispatched. */
    private long nextUnreachableMicros() {
        long t = SchedulingPolicy.NO_WAKE;
        for (String model : active) {
            t = Math.min(t, queues.get(model).headDeadline() - profile(model).latencyMicros(1) + 1);
        }
        return t;
    }

    /** A request shed by the scheduler and why. */
    public record Drop(Request request, String reason) {}

    /** What one call of {@link #schedule} decided, and when to call it again if nothing arrives. */
    public record Outcome(List<Dispatch> dispatches, List<Drop> drops, long nextWakeMicros) {}
}
