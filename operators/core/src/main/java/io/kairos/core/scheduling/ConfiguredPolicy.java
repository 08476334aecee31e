package io.kairos.core.scheduling;

import io.kairos.core.api.Internal;

/**
 * A serving group's policy with its parameters read into typed fields, and how the group sheds:
 * group-wide parameters known to every policy. What the scheduler runs; made once per change of
 * policy or parameters, so that a bad value is rejected there and nothing parses a parameter while
 * scheduling.
 *
 * @param shed       parameter {@code shed}: drop requests that can no longer meet their deadline (default true)
 * @param shedEarly  parameter {@code shed_early}: under overload, drop the heads of a queue that holds
 *                   two full batches or more when they could not finish in a full batch, rather than
 *                   serve them in small ones (default true; only when {@code shed})
 * @param maxPending parameter {@code max_pending}: the most requests the group holds; beyond it the one
 *                   with the least laxity is dropped, "queue full" (default {@value #DEFAULT_MAX_PENDING})
 * @param placement  parameter {@code placement} (and {@code target_ongoing}), per group or per model:
 *                   which devices a batch may go to ({@link Placements};
 *                   default {@code default}, model-unaware)
 * @param windowMarginMicros parameter {@code window_margin_ms}: how much later than its window start
 *                   less its model's latency alone a request with a window SLO is released to its
 *                   queue, so that a batch faster than its profile still ends inside the window (default 0)
 * @param windowHold parameter {@code window_hold}: hold a request with a window SLO out of its queue
 *                   until its release (default true), so that no policy answers it early; false
 *                   queues it on arrival, for a policy that waits for windows itself (a network
 *                   trained to)
 */
@Internal
public record ConfiguredPolicy(SchedulingPolicy policy, boolean shed, boolean shedEarly, int maxPending, PerModel<PlacementPolicy> placement,
                               long windowMarginMicros, boolean windowHold) {

    /** Parameter: shed requests that can no longer meet their deadline (default true). */
    public static final String SHED = "shed";
    /** Parameter: shed early under overload, to keep batches full (default true). */
    public static final String SHED_EARLY = "shed_early";
    /** Parameter: the most requests a group holds (default {@value #DEFAULT_MAX_PENDING}). */
    public static final String MAX_PENDING = "max_pending";
    /** Parameter: the margin after a windowed request's earliest release, in ms (default 0). */
    public static final String WINDOW_MARGIN = "window_margin_ms";
    /** Parameter: hold windowed requests until their release (default true). */
    public static final String WINDOW_HOLD = "window_hold";
    /**
     * A bound on memory, not a tuning knob: far above what a group keeps when it sheds (its rate
     * times its SLO: 10,000 requests/s with a 2 s SLO), and at a 12 KB tensor (ResNet50 on 32×32
     * images) 240 MB of queued input.
     */
    public static final int DEFAULT_MAX_PENDING = 20_000;

    public ConfiguredPolicy {
        if (maxPending < 1) throw new IllegalArgumentException("max_pending must be at least 1, got " + maxPending);
    }

    /** {@code policy} with the default shedding and placement. */
    public ConfiguredPolicy(SchedulingPolicy policy, boolean shed) {
        this(policy, shed, true, DEFAULT_MAX_PENDING, PerModel.of(PlacementPolicy.DEFAULT), 0, true);
    }

    /**
     * {@code policy} configured by {@code params} for serving group {@code group} (null: a default
     * for every group).
     *
     * @throws IllegalArgumentException for a bad value or a parameter the policy does not know,
     *         naming the group, the model, the parameter and the value
     */
    public static ConfiguredPolicy of(String group, SchedulingPolicy policy, PolicyParams params) {
        return of(group, policy, params, ControlInputs.NONE);
    }

    /**
     * The same, with what the group's control decisions delivered beside the parameters: its
     * batching tables by model and its network ({@link ParamReader#batchingTables},
     * {@link ParamReader#network}), read by the policies that take them.
     */
    public static ConfiguredPolicy of(String group, SchedulingPolicy policy, PolicyParams params, ControlInputs inputs) {
        ParamReader reader = new ParamReader(group, policy.name(), params, inputs);
        boolean shed = reader.flag(SHED, true);
        boolean shedEarly = reader.flag(SHED_EARLY, true);
        int maxPending = reader.positiveInt(MAX_PENDING, DEFAULT_MAX_PENDING);
        PerModel<PlacementPolicy> placement = reader.perModel(Placements::read);
        long windowMargin = reader.millisAsMicros(WINDOW_MARGIN, 0);
        boolean windowHold = reader.flag(WINDOW_HOLD, true);
        SchedulingPolicy configured = policy.configure(reader);
        reader.rejectUnknown();
        return new ConfiguredPolicy(configured, shed, shedEarly, maxPending, placement, windowMargin, windowHold);
    }
}
