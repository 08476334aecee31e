package io.kairos.core.scheduling.policy;

import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.model.LatencyProfile;
import io.kairos.core.request.RequestQueue;
import io.kairos.core.scheduling.GroupView;
import io.kairos.core.scheduling.ParamReader;
import io.kairos.core.scheduling.PerModel;
import io.kairos.core.scheduling.SchedulingPolicy;

/**
 * Static batching: a model's requests go out only in batches of exactly {@code batch} (a whole
 * number, at least 1, per group or per model; default 8; capped at the profile's largest size),
 * each to an idle device. It never releases a partial
 * batch, so at low load requests wait until they are shed: the baseline the SMDP paper's
 * b = 8, 16, 32 curves describe.
 */
public final class StaticBatchPolicy implements SchedulingPolicy {
    public static final String NAME = "static";
    public static final String BATCH = "batch";
    public static final int DEFAULT_BATCH = 8;

    private final PerModel<Integer> batch;

    public StaticBatchPolicy() {
        this(PerModel.of(DEFAULT_BATCH));
    }

    private StaticBatchPolicy(PerModel<Integer> batch) {
        this.batch = batch;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public SchedulingPolicy configure(ParamReader params) {
        return new StaticBatchPolicy(params.perModel(p -> p.positiveInt(BATCH, DEFAULT_BATCH)));
    }

    /** The batch size of the group and of the models that override it, before the cap. */
    public PerModel<Integer> batch() {
        return batch;
    }

    @Override
    public long schedule(long now, GroupView group) {
        if (!IdleDevices.anyIdle(now, group)) return IdleDevices.nextFree(group);
        long wake = NO_WAKE;
        boolean uniform = group.everyDeviceHoldsEveryModel();
        for (String model : group.modelsWithPending()) {
            RequestQueue q = group.queue(model);
            LatencyProfile p = group.profile(model);
            int batch = Math.min(this.batch.of(model), p.maxBatch());
            while (q.size() >= batch) {
                DeviceView idle = uniform ? IdleDevices.idleAny(now, group) : IdleDevices.idleFor(now, group, model);
                if (idle == null) {
                    wake = Math.min(wake, uniform ? IdleDevices.nextFree(group) : IdleDevices.nextFreeFor(group, model));
                    break;
                }
                group.dispatch(model, batch, idle, now);
            }
        }
        return wake;
    }
}
