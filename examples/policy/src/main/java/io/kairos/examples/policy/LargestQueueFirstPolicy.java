package io.kairos.examples.policy;

import io.kairos.core.model.LatencyProfile;
import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.scheduling.GroupView;
import io.kairos.core.scheduling.ParamReader;
import io.kairos.core.scheduling.RequestQueue;
import io.kairos.core.scheduling.SchedulingPolicy;

/**
 * An example policy: whenever a device is idle, the model with the most requests waiting takes it,
 * in the largest batch its queue fills that still ends by its first request's deadline (a batch
 * of one when none does). It favours throughput over urgency: a busy model's full batches go
 * first, a quiet model's lone request waits. Written against Kairos' declared types only.
 *
 * <p>Parameter {@code min_batch} (default 1): a queue holding fewer requests waits for more until
 * its first request could only just start alone in time (its latest start), then goes whatever
 * its size.
 */
public final class LargestQueueFirstPolicy implements SchedulingPolicy {
    public static final String NAME = "largest-queue-first";
    public static final String MIN_BATCH = "min_batch";

    private final int minBatch;

    public LargestQueueFirstPolicy() {
        this(1);
    }

    private LargestQueueFirstPolicy(int minBatch) {
        this.minBatch = minBatch;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public SchedulingPolicy configure(ParamReader params) {
        return new LargestQueueFirstPolicy(params.positiveInt(MIN_BATCH, 1));
    }

    @Override
    public long schedule(long nowMicros, GroupView group) {
        while (true) {
            long wake = NO_WAKE;
            RequestQueue largest = null;
            DeviceView device = null;
            for (RequestQueue q : group.pendingQueues()) {
                if (q.size() < minBatch && q.latestStartAlone() > nowMicros) {
                    wake = Math.min(wake, q.latestStartAlone()); // waits for more, until its latest start
                    continue;
                }
                DeviceView idle = group.deviceChoice().idleFor(q, nowMicros);
                if (idle == null) {
                    wake = Math.min(wake, group.deviceChoice().nextFreeFor(q, nowMicros));
                } else if (largest == null || q.size() > largest.size()) {
                    largest = q;
                    device = idle;
                }
            }
            if (largest == null) return wake;
            long start = group.deviceChoice().readyAtMicros(largest, device, nowMicros);
            group.dispatch(largest, largestFeasible(start, largest, largest.profile()), device, nowMicros);
        }
    }

    /** The largest batch size the queue fills that ends by its head's deadline from {@code start}; 1 when none does. */
    static int largestFeasible(long start, RequestQueue q, LatencyProfile p) {
        for (int i = p.batchSizeCount() - 1; i >= 0; i--) {
            int size = p.batchSizeAt(i);
            if (size <= q.size() && start + p.latencyAt(i) <= q.headDeadline()) return size;
        }
        return 1;
    }
}
