package io.kairos.sim.learning;

import io.kairos.core.request.Request;
import io.kairos.core.result.ResultStatus;
import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.scheduling.Dispatch;
import io.kairos.core.scheduling.GroupView;
import io.kairos.sim.FateListener;

import java.util.List;

/**
 * Adds up a {@link Reward} as a simulation goes: the early reward and the GPU term of each step
 * when it is applied, the outcome of each request when its fate is decided. A learner takes what
 * accrued since its previous step ({@link #take}); the episode's counts of requests met, late and
 * dropped come along.
 */
public final class RewardMeter implements FateListener {
    private final Reward reward;
    private GroupView group;
    private double accrued;
    private double total;
    private long ok;
    private long late;
    private long dropped;

    public RewardMeter(Reward reward) {
        this.reward = reward;
    }

    /** A step's action started {@code started} on {@code device} of {@code group} at {@code nowMicros}. */
    public void applied(long nowMicros, GroupView group, DeviceView device, List<Dispatch> started) {
        this.group = group;
        if (reward == Reward.RF1) return;
        for (Dispatch d : started) {
            double share = d.predictedLatencyMicros() / 1000.0 / d.size();
            double positive = Reward.EARLY_POSITIVE * group.profileOn(group.queue(d.model()), device).latencyAt(0) / 1000.0;
            long end = d.predictedEndMicros();
            for (Request r : d.requests()) add(-share + (end <= r.deadlineMicros() ? positive : 0));
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
        } else if (!met && group != null) {
            add(-Reward.CORRECTION * Reward.EARLY_POSITIVE * group.profile(request.model()).latencyAt(0) / 1000.0);
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
