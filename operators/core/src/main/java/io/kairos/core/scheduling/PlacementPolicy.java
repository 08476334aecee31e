package io.kairos.core.scheduling;

import io.kairos.core.api.PublicEvolving;
import io.kairos.core.model.ModelSpec;

import java.util.List;

/**
 * Which of the devices that may run a model a batch of it may go to now: whether the scheduler
 * looks at which devices hold the model in memory (a warm device runs the batch at once, a cold
 * one loads the model first), and how it weighs a load against a wait. Consulted by
 * {@link DeviceChoice}, the one device choice every scheduling policy makes; selected per group
 * and per model by the policy parameter {@code placement}.
 */
@PublicEvolving
public interface PlacementPolicy {

    /** Model-unaware: every device whose placement holds the model may take it, warm or cold. */
    PlacementPolicy DEFAULT = new PlacementPolicy() {
        @Override
        public String name() {
            return "default";
        }

        @Override
        public boolean admits(ModelSpec model, DeviceView device, List<DeviceView> devices, long nowMicros) {
            return true;
        }

        @Override
        public boolean modelAware() {
            return false;
        }
    };

    /** The name it is selected by (parameter {@code placement}). */
    String name();

    /**
     * Whether a batch of {@code model} may go to {@code device} at its next start, seen at
     * {@code now}. {@code device} holds the model by placement ({@link DeviceView#holds}); the
     * others are the group's {@code devices}, of which those that hold it are the candidates.
     */
    boolean admits(ModelSpec model, DeviceView device, List<DeviceView> devices, long nowMicros);

    /** A device's report of a batch of {@code model}: what a placement that measures as it runs learns from. */
    default void observe(ModelSpec model, BatchReport report) {}

    /**
     * Whether a batch of {@code model} sent to {@code device} goes over the network to another
     * machine, as a request the registry routes to a remote holder does: it takes the model's
     * network time (T_N) to get there, and its pre- and post-processing (T_P) runs where it came
     * from rather than on the device. None by default: the batch runs where it is placed, pre- and
     * post-processing included.
     */
    default boolean remote(ModelSpec model, DeviceView device, List<DeviceView> devices, long nowMicros) {
        return false;
    }

    /**
     * Why the placement wants one more copy of {@code model} now, on one of the {@code devices}
     * that hold it by placement and not in memory; null when it does not. The copy is the
     * {@link LoadPlanner}'s to load, a decision of its own booked on the device's timeline, and
     * batches go to it once booked, starting when its load is done: a placement that loads a
     * model elsewhere does so by asking here, never by admitting a batch with the load in front
     * of it (but for the model's first load, which no copy can serve meanwhile). None by default.
     */
    default String copyWanted(ModelSpec model, List<DeviceView> devices, long nowMicros) {
        return null;
    }

    /** Whether it looks at the devices' memory at all; {@link #DEFAULT} does not. */
    default boolean modelAware() {
        return true;
    }
}
