package io.kairos.core.scheduling.policy;

import io.kairos.core.api.Internal;
import io.kairos.core.model.LatencyProfile;
import io.kairos.core.scheduling.RequestQueue;
import io.kairos.core.scheduling.BatchingTable;
import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.scheduling.GroupView;
import io.kairos.core.scheduling.ParamReader;
import io.kairos.core.scheduling.PerModel;
import io.kairos.core.scheduling.SchedulingPolicy;

import java.util.Map;

/**
 * SMDP-optimal dynamic batching (Xu, Sun, Zhou, Niu): per model, a {@link BatchingTable} that the
 * SMDP solver computed for its arrival rate, latency and energy, and the cost
 * {@code w1 * latency + w2 * power}. When a device holding the model is idle and {@code n} of its
 * requests are queued, the policy serves {@code table.batchSize(n)} of them, earliest deadlines
 * first, or waits for the next arrival when that is 0: the paper's control-limit policy, whose
 * decision epochs (an arrival, a batch's end) are exactly when the scheduler asks.
 *
 * <ul>
 *   <li><b>Tables</b> come by control decision ({@code SetBatchingTable}, key
 *       {@code batching/<group>/<model>}), or from {@link #SmdpPolicy(Map, boolean)} in a
 *       simulation. A batch larger than the model's largest allowed size is cut to it; one
 *       between allowed sizes runs padded, as the solver priced it for a catalog model.</li>
 *   <li><b>A model without a table</b> is served work-conserving as the paper's baseline is:
 *       {@code min(n, B_max)} as soon as a device is idle, never waiting.</li>
 *   <li><b>The deadline guard</b> (parameter {@code deadline_guard}, per group or model, default
 *       true): the table knows rates, not deadlines, so at low load it can keep a request waiting
 *       for a batch that never fills. While the table waits, the head request (the earliest
 *       deadline) is served regardless once it reaches its latest start in the batch that would
 *       form now, {@code deadline - tau(min(n, B_max))}: at that instant all of the queue up to
 *       {@code B_max} goes, or, when an arrival has made that batch too long to finish by the
 *       deadline, the largest batch that still does. A head already too late to finish alone is
 *       not guarded: serving it early saves nothing. The policy asks to be woken at that instant.
 *       Off, the policy is the paper's (a group without deadlines never triggers it). Parameter
 *       {@code guard_margin_ms} (default 0) moves that instant earlier: in the job a batch reaches
 *       its device about a millisecond after it is dispatched, and a timer fires a millisecond
 *       or more late, so there the margin should cover both (as {@code kairos}'s
 *       {@code lookahead_ms} covers the hand-over); the batch is still sized by the deadline
 *       itself.</li>
 *   <li><b>Several models</b> share the group's devices: an idle device takes the most urgent
 *       queue (by its head's latest start alone) whose table serves or whose guard fires.
 *       <b>Several devices</b>: each idle device applies the table to what is still queued; the
 *       paper's model is one device, so a table solved for one device's share of the rate is the
 *       natural choice there.</li>
 * </ul>
 */
@Internal
public final class SmdpPolicy implements SchedulingPolicy {
    public static final String NAME = "smdp";
    /** Parameter: serve a waiting head request at its latest start regardless of the table (default true). */
    public static final String DEADLINE_GUARD = "deadline_guard";
    /** Parameter: how long before the latest start the guard serves (default 0). */
    public static final String GUARD_MARGIN_MS = "guard_margin_ms";

    /** A model's deadline guard: on or off, and how long before the latest start it fires. */
    public record Guard(boolean on, long marginMicros) {
        public static final Guard DEFAULT = new Guard(true, 0);
    }

    private final Map<String, BatchingTable> tables;
    private final PerModel<Guard> guard;

    /** No tables yet: every model work-conserving until its table comes; the guard on. */
    public SmdpPolicy() {
        this(Map.of(), PerModel.of(Guard.DEFAULT));
    }

    /** These tables by model, with the guard on (no margin) or off for every model. */
    public SmdpPolicy(Map<String, BatchingTable> tables, boolean deadlineGuard) {
        this(tables, PerModel.of(new Guard(deadlineGuard, 0)));
    }

    private SmdpPolicy(Map<String, BatchingTable> tables, PerModel<Guard> guard) {
        this.tables = Map.copyOf(tables);
        this.guard = guard;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public SchedulingPolicy configure(ParamReader params) {
        return new SmdpPolicy(params.batchingTables(), params.perModel(p -> new Guard(p.flag(DEADLINE_GUARD, Guard.DEFAULT.on()),
                p.millisAsMicros(GUARD_MARGIN_MS, Guard.DEFAULT.marginMicros() / 1000.0))));
    }

    /** The table of {@code model}, or null: it is served work-conserving. */
    public BatchingTable table(String model) {
        return tables.get(model);
    }

    /** Every model's table. */
    public Map<String, BatchingTable> tables() {
        return tables;
    }

    /** The deadline guard of {@code model}. */
    public Guard deadlineGuard(String model) {
        return guard.of(model);
    }

    @Override
    public long schedule(long now, GroupView group) {
        if (!IdleDevices.anyIdle(now, group)) return IdleDevices.nextFree(group);
        boolean uniform = group.everyDeviceHoldsEveryModel();
        while (true) {
            long wake = NO_WAKE;
            boolean served = false;
            // Every device holding every model, the one idle device serves whichever queue is first.
            DeviceView anyIdle = uniform ? IdleDevices.idleAny(now, group) : null;
            if (uniform && anyIdle == null && tables.size() < group.pendingQueues().size()) return wakeWhenBusy(now, group);
            for (RequestQueue q : group.pendingQueues()) {
                long decision = batchOrWake(now, q);
                if (decision <= 0) {
                    if (decision < 0) wake = Math.min(wake, -decision);
                    continue;
                }
                DeviceView idle = uniform ? anyIdle : IdleDevices.idleFor(now, group, q);
                if (idle == null) {
                    wake = Math.min(wake, IdleDevices.nextFreeFor(now, group, q));
                    continue;
                }
                group.dispatch(q, (int) decision, idle, now);
                served = true;
                break; // the queues are a live view: scan them afresh after a dispatch
            }
            if (!served) return wake;
        }
    }

    /**
     * When to ask again with every device busy and every device holding every model: when the first
     * device frees, if some queue would be served then (every queue without a table is), else when
     * the first guard fires. Only the queues with a table need a look.
     */
    private long wakeWhenBusy(long now, GroupView group) {
        long wake = NO_WAKE;
        boolean served = false;
        int withTable = 0;
        for (String model : tables.keySet()) {
            RequestQueue q = group.queue(model);
            if (q == null || q.isEmpty()) continue;
            withTable++;
            long decision = batchOrWake(now, q);
            if (decision > 0) served = true;
            else if (decision < 0) wake = Math.min(wake, -decision);
        }
        if (group.pendingQueues().size() > withTable) served = true;
        return served ? Math.min(wake, IdleDevices.nextFree(group)) : wake;
    }

    /**
     * What an idle device does with queue {@code q} now: a positive batch size to serve, or, to
     * wait, minus the instant the guard fires (0: no such instant, wait for an arrival).
     */
    private long batchOrWake(long now, RequestQueue q) {
        LatencyProfile p = q.profile();
        int n = q.size();
        int max = p.maxBatch();
        BatchingTable table = tables.get(q.model());
        int b = table == null ? Math.min(n, max) : Math.min(table.batchSize(n), max);
        if (b > 0) return b;
        Guard g = guard.of(q.model());
        if (!g.on()) return 0;
        int form = Math.min(n, max);
        long deadline = q.headDeadline();
        long latestStart = deadline - g.marginMicros() - p.latencyMicros(form);
        if (now < latestStart) return -Math.max(latestStart, 1);
        // A head that would be late even alone is lost: serving it early would spend the device on
        // nothing (the scheduler sheds it, when it sheds); the table decides.
        if (now + p.latencyMicros(1) > deadline) return 0;
        // The head's last chance: the largest batch that still ends by its deadline (one if none
        // does). Judged by the deadline itself, not less the margin: a guard that fires late (a
        // timer) by less than the margin still serves the whole batch.
        for (int size = form; size > 1; size--) {
            if (now + p.latencyMicros(size) <= deadline) return size;
        }
        return 1;
    }
}
