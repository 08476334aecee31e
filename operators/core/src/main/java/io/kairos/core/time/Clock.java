package io.kairos.core.time;

import io.kairos.core.api.Internal;
import java.io.Serializable;

/**
 * "Now" in microseconds since the Unix epoch, for the engines that need it: the Flink functions
 * stamp requests and batches with it and hand it to the scheduler. Passed in rather than read
 * statically, so that a test decides what time it is ({@link ManualClock}); serializable, because
 * a Flink function carries its clock to the task managers.
 */
@FunctionalInterface
@Internal
public interface Clock extends Serializable {

    long nowMicros();

    /** The real time ({@link WallClock}): what every function uses unless a test gives it another. */
    static Clock wall() {
        return WallClock::nowMicros;
    }
}
