package io.kairos.sim;

import io.kairos.schema.ControlDecision;

import java.util.List;

/**
 * A decision maker in the loop of a simulation run: an autoscaler or a tuner that watches the
 * serving groups as the run goes and answers with control decisions, which the run decides at
 * once, as the job decides what arrives on its control topic ({@link Simulation.Builder#controller}).
 * Where {@link TimedDecision}s replay decisions fixed beforehand, a controller's depend on what the
 * run did (queues, batches running). Asked at the times it names, up to the run's duration.
 */
public interface Controller {
    /** {@link #nextMicros} when the controller will not act again. */
    long NONE = Long.MAX_VALUE;

    /** When it wants to act next (after the time it last acted: a run refuses a controller that stands still), or {@link #NONE}. */
    long nextMicros();

    /** Its decisions at {@code nowMicros}, seeing the groups' load then; decided in list order. */
    List<ControlDecision> act(long nowMicros, Load load);

    /** What a controller sees of the run. */
    interface Load {
        /** Requests waiting in the group's queues (0 for a group that has had no request). */
        int queued(String group);

        /** Requests in batches running on the group's devices. */
        int running(String group);

        /** The devices the group has now. */
        int devices(String group);
    }
}
