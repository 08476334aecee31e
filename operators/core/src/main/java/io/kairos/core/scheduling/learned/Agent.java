package io.kairos.core.scheduling.learned;

import io.kairos.core.api.Internal;
import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.scheduling.Dispatch;
import io.kairos.core.scheduling.GroupView;

import java.util.List;

/**
 * What chooses an {@link AgentPolicy}'s actions: a trained network ({@link NetworkAgent}), the
 * thesis' random agent ({@link RandomAgent}), or a learner in training, which also hears what
 * each action started, for its reward.
 */
@Internal
public interface Agent {

    /**
     * Writes the action for {@code state} into {@code action} ({@value StateEncoder#ACTION_SIZE}
     * numbers: infer 0 or 1 and a batch-size index per slot), one that {@code mask} allows (layout
     * in {@link StateEncoder}).
     */
    void act(float[] state, boolean[] mask, int[] action);

    /**
     * The batches the action started on {@code device} of {@code group} at {@code nowMicros} (none
     * for a wait); the device's booked work is after them. A learner's reward reads it; the
     * default ignores it.
     */
    default void applied(long nowMicros, GroupView group, DeviceView device, List<Dispatch> started) {}
}
