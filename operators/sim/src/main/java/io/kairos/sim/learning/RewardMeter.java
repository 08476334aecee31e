package io.kairos.sim.learning;

import io.kairos.core.request.Request;
import io.kairos.core.result.ResultStatus;
import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.scheduling.Dispatch;
import io.kairos.core.scheduling.GroupView;
import io.kairos.core.scheduling.RequestQueue;
import io.kairos.sim.FateListener;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * Adds up a {@link Reward} as a simulation goes: the early reward and the GPU term of each step
 * when it is applied, the outcome of each request when its fate is decided. A learner takes what
 * accrued since its previous step ({@link #take}); the episode's counts of requests met, late and
 * dropped come along.
 *
 * <p>When a late or dropped request pays its correction is the meter's choice ({@link LateCharge},
 * {@link DropCharge}); the episode's reward in all is the same either way, as long as the
 * predictions hold.
 */
public final class RewardMeter implements FateListener {
    private final Reward reward;
    private final LateCharge lateCharge;
    private final DropCharge dropCharge;
    private final double gpuTermPerMs;
    // Requests charged their correction before their fate: when their batch started, predicted to
    // end late, or when a booking left them no device in time. At their fate they pay nothing more,
    // and are paid back if they met their SLO after all.
    private final Set<Request> chargedEarly = Collections.newSetFromMap(new IdentityHashMap<>());
    private GroupView group;
    private double accrued;
    private double total;
    private long ok;
    private long late;
    private long dropped;

    /**
     * When a request that ends late pays RF2's correction.
     * <ul>
     *   <li>{@link #AT_FATE}: when it ends (the thesis): for a batch that runs 10 ms, some 60 steps
     *       of six devices after the step that started it, in another device's step.</li>
     *   <li>{@link #AT_START}: in the step that starts a batch predicted to end after the request's
     *       deadline, with the early reward it is denied; a request late against its prediction
     *       (noise) still pays at its fate. The step that decided is the one that pays.</li>
     * </ul>
     */
    public enum LateCharge { AT_FATE, AT_START }

    /**
     * When a request the group drops pays RF2's correction.
     * <ul>
     *   <li>{@link #AT_FATE}: when it is dropped (the thesis), in whichever device's step comes
     *       next: a request is dropped once it could not meet its deadline even alone on the
     *       earliest-free device, which happens as time passes, after bookings any device made.</li>
     *   <li>{@link #AT_SEAL}: in the step whose booking moved the group's earliest start past the
     *       request's latest start alone, the step that took its last chance; one that was already
     *       past it, or that time alone puts past it, still pays at its fate. Only where every
     *       device holds every model (one earliest start for all, as in the thesis' setup).</li>
     * </ul>
     */
    public enum DropCharge { AT_FATE, AT_SEAL }

    public RewardMeter(Reward reward) {
        this(reward, LateCharge.AT_FATE);
    }

    public RewardMeter(Reward reward, LateCharge lateCharge) {
        this(reward, lateCharge, DropCharge.AT_FATE);
    }

    public RewardMeter(Reward reward, LateCharge lateCharge, DropCharge dropCharge) {
        this(reward, lateCharge, dropCharge, Reward.GPU_TERM_PER_MS);
    }

    /**
     * @param gpuTermPerMs RF3's GPU term: what a step loses per ms of work booked on its device
     *                     after it ({@link Reward#GPU_TERM_PER_MS} by default; the thesis gives none)
     */
    public RewardMeter(Reward reward, LateCharge lateCharge, DropCharge dropCharge, double gpuTermPerMs) {
        this.reward = reward;
        this.lateCharge = lateCharge;
        this.dropCharge = dropCharge;
        this.gpuTermPerMs = checkedGpuTerm(gpuTermPerMs);
    }

    /** {@code perMs} if it can be RF3's GPU term (finite, at least 0); otherwise the reason, thrown. */
    static double checkedGpuTerm(double perMs) {
        if (!(perMs >= 0) || Double.isInfinite(perMs)) {
            throw new IllegalArgumentException("the GPU term must be a finite number of at least 0 per ms, got " + perMs);
        }
        return perMs;
    }

    private double correction(Request request) {
        return Reward.CORRECTION * Reward.EARLY_POSITIVE * group.profile(request.model()).latencyAt(0) / 1000.0;
    }

    /** A step's action started {@code started} on {@code device} of {@code group} at {@code nowMicros}. */
    public void applied(long nowMicros, GroupView group, DeviceView device, List<Dispatch> started) {
        this.group = group;
        if (reward == Reward.RF1) return;
        for (Dispatch d : started) {
            double share = d.predictedLatencyMicros() / 1000.0 / d.size();
            double positive = Reward.EARLY_POSITIVE * group.profileOn(group.queue(d.model()), device).latencyAt(0) / 1000.0;
            long end = d.predictedEndMicros();
            for (Request r : d.requests()) {
                // A batch predicted to end before a request's window start misses it as surely as
                // one predicted to end after its deadline: no early reward for either.
                if (end <= r.deadlineMicros() && end >= r.windowStartMicros()) {
                    add(-share + positive);
                } else if (lateCharge == LateCharge.AT_START) {
                    add(-share - (chargedEarly.add(r) ? correction(r) : 0));
                } else {
                    add(-share);
                }
            }
        }
        if (reward == Reward.RF3) add(-gpuTermPerMs * device.outstandingMicros(nowMicros) / 1000.0);
        if (dropCharge == DropCharge.AT_SEAL && !started.isEmpty()) chargeSealed(nowMicros, group, device, started.get(0).predictedStartMicros());
    }

    /**
     * Charges the requests this step's booking left without a device in time: their latest start
     * alone was at or after the group's earliest start before the booking ({@code device} free at
     * {@code bookedFrom}), and is before it now. Queues are in deadline order, so each scan stops
     * at the first request that can still make it.
     */
    private void chargeSealed(long nowMicros, GroupView group, DeviceView device, long bookedFrom) {
        long others = Long.MAX_VALUE;
        for (DeviceView d : group.devices()) {
            if (!d.holdsEveryModel()) return;
            if (d != device) others = Math.min(others, d.startAtMicros(nowMicros));
        }
        long before = Math.min(others, Math.max(nowMicros, bookedFrom));
        long after = Math.min(others, device.startAtMicros(nowMicros));
        if (after <= before) return;
        for (RequestQueue q : group.pendingQueues()) {
            long alone = q.profile().latencyAt(0);
            for (int i = 0; i < q.size(); i++) {
                Request r = q.get(i);
                long latestStart = r.deadlineMicros() - alone;
                if (latestStart >= after) break;
                if (latestStart >= before && chargedEarly.add(r)) add(-correction(r));
            }
        }
    }

    @Override
    public void onFate(Request request, ResultStatus status, long endMicros, int batchSize) {
        boolean met = status == ResultStatus.OK;
        if (met) ok++;
        else if (status == ResultStatus.LATE || status == ResultStatus.EARLY) late++; // ran, and missed its SLO (a window's early end too)
        else dropped++;
        if (reward == Reward.RF1) {
            add(met ? 1 : -1);
        } else if (chargedEarly.remove(request)) {
            if (met) add(correction(request)); // charged before its fate, yet met: the charge comes back
        } else if (!met && group != null) {
            add(-correction(request));
        }
    }

    private void add(double r) {
        accrued += r;
        total += r;
    }

    /** The reward accrued since the last call. */
    public double take() {
        double r = accrued;
        accrued = 0;
        return r;
    }

    /** The reward accrued since the meter was made. */
    public double total() {
        return total;
    }

    /** Requests that ended within their SLO so far. */
    public long ok() {
        return ok;
    }

    public long late() {
        return late;
    }

    public long dropped() {
        return dropped;
    }
}
