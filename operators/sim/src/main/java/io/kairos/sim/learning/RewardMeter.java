package io.kairos.sim.learning;

import io.kairos.core.request.Request;
import io.kairos.core.result.ResultStatus;
import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.scheduling.Dispatch;
import io.kairos.core.scheduling.GroupView;
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
 * <p>When a late request pays its correction is the meter's choice ({@link LateCharge}); the
 * episode's reward in all is the same either way, as long as the predictions hold.
 */
public final class RewardMeter implements FateListener {
    private final Reward reward;
    private final LateCharge lateCharge;
    // Requests charged their correction when their batch started, predicted to end late: at their
    // fate they pay nothing more, and are paid back if they met their SLO after all.
    private final Set<Request> chargedAtStart = Collections.newSetFromMap(new IdentityHashMap<>());
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

    public RewardMeter(Reward reward) {
        this(reward, LateCharge.AT_FATE);
    }

    public RewardMeter(Reward reward, LateCharge lateCharge) {
        this.reward = reward;
        this.lateCharge = lateCharge;
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
                if (end <= r.deadlineMicros()) {
                    add(-share + positive);
                } else if (lateCharge == LateCharge.AT_START) {
                    add(-share - correction(r));
                    chargedAtStart.add(r);
                } else {
                    add(-share);
                }
            }
        }
        if (reward == Reward.RF3) add(-Reward.GPU_TERM_PER_MS * device.outstandingMicros(nowMicros) / 1000.0);
    }

    @Override
    public void onFate(Request request, ResultStatus status, long endMicros, int batchSize) {
        boolean met = status == ResultStatus.OK;
        if (met) ok++;
        else if (status == ResultStatus.LATE || status == ResultStatus.EARLY) late++; // ran, and missed its SLO (a window's early end too)
        else dropped++;
        if (reward == Reward.RF1) {
            add(met ? 1 : -1);
        } else if (chargedAtStart.remove(request)) {
            if (met) add(correction(request)); // predicted late, yet met: the charge comes back
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
