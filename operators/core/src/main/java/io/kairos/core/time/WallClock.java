package io.kairos.core.time;

import java.time.Instant;

/**
 * Microseconds since the Unix epoch, the unit of every timestamp in Kairos.
 *
 * <p>Only engines read it (the Flink functions, devices that run in real time); policies are
 * handed "now" so that the simulator can drive them with a virtual clock.
 */
public final class WallClock {
    private WallClock() {}

    public static long nowMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
    }
}
