package io.kairos.core.time;

import io.kairos.core.api.Internal;
import java.time.Instant;

/**
 * Microseconds since the Unix epoch, the unit of every timestamp in Kairos.
 *
 * <p>Only engines read it, through a {@link Clock} they are given ({@link Clock#wall()} by default)
 * so that tests can give them another; policies are handed "now" so that the simulator can drive
 * them with a virtual clock.
 */
@Internal
public final class WallClock {
    private WallClock() {}

    public static long nowMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
    }
}
