package io.kairos.core.scheduling;

import io.kairos.core.device.DeviceView;
import io.kairos.core.model.LatencyProfile;
import io.kairos.core.request.RequestQueue;

import java.util.List;

/**
 * What a policy sees of its serving group, and the one thing it may do to it: dispatch a batch.
 * Queues are to be read, never changed, by the policy: {@link #dispatch} takes the requests.
 */
public interface GroupView {

    /** Models with at least one pending request. */
    List<String> modelsWithPending();

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
