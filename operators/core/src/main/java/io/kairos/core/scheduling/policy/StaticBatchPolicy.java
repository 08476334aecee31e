package io.kairos.core.scheduling.policy;

import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.model.LatencyProfile;
import io.kairos.core.request.RequestQueue;
import io.kairos.core.scheduling.GroupView;
import io.kairos.core.scheduling.SchedulingPolicy;

/**
 * Static batching: a model's requests go out only in batches of exactly {@code batch} (default 8;
 * capped at the profile's largest size), each to an idle device. It never releases a partial
 * batch, so at low load requests wait until they are shed: the baseline the SMDP paper's
 * b = 8, 16, 32 curves describe.
 */
public final class StaticBatchPolicy implements SchedulingPolicy {
    public static final String NAME = "static";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public long schedule(long now, GroupView group) {
        if (!IdleDevices.anyIdle(now, group)) return IdleDevices.nextFree(group);
        long wake = NO_WAKE;
        for (String model : group.modelsWithPending()) {
            RequestQueue q = group.queue(model);
            LatencyProfile p = group.profile(model);
            int batch = Math.max(1, Math.min(group.params().getInt(model, "batch", 8), p.maxBatch()));
            while (q.size() >= batch) {
                DeviceView idle = IdleDevices.idleFor(now, group, model);
                if (idle == null) {
                    wake = Math.min(wake, IdleDevices.nextFreeFor(group, model));
                    break;
                }
                group.dispatch(model, batch, idle, now);
            }
        }
        return wake;
    }
}
