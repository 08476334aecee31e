package io.kairos.core.scheduling.policy;

import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.request.RequestQueue;
import io.kairos.core.scheduling.GroupView;
import io.kairos.core.scheduling.ParamReader;
import io.kairos.core.scheduling.PerModel;
import io.kairos.core.scheduling.SchedulingPolicy;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Triton's dynamic batcher, the baseline users know. A model's queue is released as a batch when
 * it holds {@code max_batch} requests or its oldest request has waited {@code max_queue_delay_ms},
 * and only to a device that is idle now. It does not look at deadlines.
 *
 * <p>Parameters, per group or per model: {@code max_batch} (a whole number, at least 1; default and
 * cap: the profile's largest size), {@code max_queue_delay_ms} (at least 0, default 1).
 */
public final class DynamicBatcherPolicy implements SchedulingPolicy {
    public static final String NAME = "triton";
    public static final String MAX_BATCH = "max_batch";
    public static final String MAX_QUEUE_DELAY_MS = "max_queue_delay_ms";

    /** A model's batching: at most {@code maxBatch} requests, released after {@code maxQueueDelayMicros}. */
    public record Batching(int maxBatch, long maxQueueDelayMicros) {}

    private static final Batching DEFAULT = new Batching(Integer.MAX_VALUE, 1_000);

    private final PerModel<Batching> batching;

    public DynamicBatcherPolicy() {
        this(PerModel.of(DEFAULT));
    }

    private DynamicBatcherPolicy(PerModel<Batching> batching) {
        this.batching = batching;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public SchedulingPolicy configure(ParamReader params) {
        return new DynamicBatcherPolicy(params.perModel(p -> new Batching(
                p.positiveInt(MAX_BATCH, DEFAULT.maxBatch()),
                p.millisAsMicros(MAX_QUEUE_DELAY_MS, DEFAULT.maxQueueDelayMicros() / 1000.0))));
    }

    /** The batching of the group and of the models that override it. */
    public PerModel<Batching> batching() {
        return batching;
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
            Batching b = batching.of(model);
            int maxBatch = Math.min(b.maxBatch(), group.profile(model).maxBatch());
            long maxDelay = b.maxQueueDelayMicros();
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
