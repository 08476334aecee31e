package io.kairos.sim;

/**
 * When the simulator asks the policy for decisions: on every event (an arrival, a batch ending,
 * or the wake-up time the policy asked for), as the Flink operator does; or on a fixed period, as
 * the RL thesis' agent is invoked every 1 ms, where what happens between two ticks waits for the
 * next one.
 */
public record Invocation(long periodMicros) {

    public static Invocation onEvents() {
        return new Invocation(0);
    }

    public static Invocation every(long periodMicros) {
        if (periodMicros <= 0) throw new IllegalArgumentException("invocation period must be positive, got " + periodMicros + " us");
        return new Invocation(periodMicros);
    }

    public boolean periodic() {
        return periodMicros > 0;
    }

    /** The first invocation at or after {@code t}. */
    long nextAtOrAfter(long t) {
        if (!periodic()) return t;
        long r = Math.floorMod(t, periodMicros);
        return r == 0 ? t : t - r + periodMicros;
    }

    @Override
    public String toString() {
        return periodic() ? "every " + periodMicros + " us" : "on events";
    }
}
