package io.kairos.core.scheduling;

import io.kairos.core.device.DeviceView;
import io.kairos.core.model.LatencyProfile;
import io.kairos.core.request.RequestQueue;

import java.util.Collection;
import java.util.List;

/**
 * What a policy sees of its serving group, and the one thing it may do to it: dispatch a batch.
 * Queues are to be read, never changed, by the policy: {@link #dispatch} takes the requests.
 */
public interface GroupView {

    /** Models with at least one pending request. */
    List<String> modelsWithPending();

    /**
     * The queues with at least one pending request, each with its model and profile, in order of
     * the latest time their head request could start alone (deadline minus smallest-batch
     * latency), so that a scan for urgent work can stop early. A live view: iterate, then
     * dispatch, never both at once.
     */
    Collection<RequestQueue> pendingQueues();

    /**
     * The most that any queued model's largest batch takes beyond its smallest: no strategy of a
     * queue must start earlier than its head's latest start alone minus this.
     */
    long largestBatchExtraMicros();

    RequestQueue queue(String model);

    LatencyProfile profile(String model);

    List<DeviceView> devices();

    PolicyParams params();

    /**
     * Starts a batch of the {@code size} earliest-deadline requests of {@code model} on
     * {@code device} after the work already booked there.
     */
    Dispatch dispatch(String model, int size, DeviceView device, long nowMicros);
}
