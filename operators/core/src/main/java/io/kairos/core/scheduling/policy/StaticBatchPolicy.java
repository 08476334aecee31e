package io.kairos.core.scheduling.policy;

import io.kairos.core.api.Internal;
import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.scheduling.HoldingQueues;
import io.kairos.core.scheduling.RequestQueue;
import io.kairos.core.scheduling.GroupView;
import io.kairos.core.scheduling.ParamReader;
import io.kairos.core.scheduling.PerModel;
import io.kairos.core.scheduling.SchedulingPolicy;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Static batching: a model's requests go out only in batches of exactly {@code batch} (a whole
 * number, at least 1, per group or per model; default 8; capped at the profile's largest size),
 * each to an idle device. It never releases a partial
 * batch, so at low load requests wait until they are shed: the baseline the SMDP paper's
 * b = 8, 16, 32 curves describe.
 */
@Internal
public final class StaticBatchPolicy implements SchedulingPolicy {
    public static final String NAME = "static";
    public static final String BATCH = "batch";
    public static final int DEFAULT_BATCH = 8;

    private final PerModel<Integer> batch;
    // The smallest batch of any model: only queues holding that many, or a full batch, can go.
    private final int least;

    public StaticBatchPolicy() {
        this(PerModel.of(DEFAULT_BATCH));
    }

    private StaticBatchPolicy(PerModel<Integer> batch) {
        this.batch = batch;
        int smallest = batch.group();
        for (int b : batch.models().values()) smallest = Math.min(smallest, b);
        this.least = smallest;
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
        // The queues that hold a batch, in the order of the pending queues: the others wait.
        List<RequestQueue> full = new ArrayList<>();
        for (RequestQueue q : group.index(HoldingQueues.class, least, () -> new HoldingQueues(least)).queues()) {
            if (q.size() >= batchOf(q)) full.add(q);
        }
        if (full.size() > 1) full.sort(Comparator.comparingLong(RequestQueue::latestStartAlone).thenComparing(RequestQueue::model));
        for (RequestQueue q : full) {
            int batch = batchOf(q);
            while (q.size() >= batch) {
                DeviceView idle = uniform ? IdleDevices.idleAny(now, group) : IdleDevices.idleFor(now, group, q);
                if (idle == null) {
                    wake = Math.min(wake, uniform ? IdleDevices.nextFree(group) : IdleDevices.nextFreeFor(now, group, q));
                    break;
                }
                group.dispatch(q, batch, idle, now);
            }
        }
        return wake;
    }

    private int batchOf(RequestQueue q) {
        return Math.min(batch.of(q.model()), q.profile().maxBatch());
    }
}
