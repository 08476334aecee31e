package io.kairos.core.scheduling.policy;

import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.request.RequestQueue;
import io.kairos.core.scheduling.GroupView;
import io.kairos.core.scheduling.SchedulingPolicy;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Triton's dynamic batcher, the baseline users know. A model's queue is released as a batch when
 * it holds {@code max_batch} requests or its oldest request has waited {@code max_queue_delay_ms},
 * and only to a device that is idle now. It does not look at deadlines.
 *
 * <p>Parameters, per group or per model: {@code max_batch} (default: the profile's largest size),
 * {@code max_queue_delay_ms} (default 1).
 */
public final class DynamicBatcherPolicy implements SchedulingPolicy {
    public static final String NAME = "triton";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public long schedule(long now, GroupView group) {
        if (!IdleDevices.anyIdle(now, group)) return IdleDevices.nextFree(group);
        List<String> models = new ArrayList<>(group.modelsWithPending());
        // Oldest waiting model first, so that no model starves another of idle devices.
        models.sort(Comparator.comparingLong(m -> group.queue(m).oldestArrival()));
        long wake = NO_WAKE;
        for (String model : models) {
            RequestQueue q = group.queue(model);
            // A max_batch below 1 from a control decision means "no batching", not empty batches.
            int maxBatch = Math.max(1, Math.min(group.params().getInt(model, "max_batch", Integer.MAX_VALUE), group.profile(model).maxBatch()));
            long maxDelay = group.params().getMillisAsMicros(model, "max_queue_delay_ms", 1.0);
            while (!q.isEmpty()) {
                long releaseAt = q.oldestArrival() + maxDelay;
                if (q.size() < maxBatch && now < releaseAt) {
                    wake = Math.min(wake, releaseAt);
                    break;
                }
                DeviceView idle = IdleDevices.idleFor(now, group, model);
                if (idle == null) {
                    wake = Math.min(wake, IdleDevices.nextFreeFor(group, model));
                    break;
                }
                group.dispatch(model, Math.min(q.size(), maxBatch), idle, now);
            }
        }
        return wake;
    }
}
