package io.kairos.core.scheduling.policy;

import io.kairos.core.api.Internal;

/**
 * Kairos' own policy: Clockwork's strategy queue by latest start time ({@link LatestStartPolicy}),
 * dispatched just in time and with padded batches.
 *
 * <ul>
 *   <li><b>Just in time.</b> A device gets its next batch when it is free, not 5 ms before. The
 *       lookahead exists in Clockwork to hide the controller-to-worker network; its cost is that
 *       batches are fixed up to 5 ms before they run, so requests that arrive meanwhile wait for
 *       the next batch, and at tight SLOs or under overload batches stay small. Here the
 *       simulator's devices report their completions, so nothing needs hiding. Where a hand-over
 *       delay exists (the Flink job's hop to the device subtask, about 1 ms on the development
 *       machine), set {@code lookahead_ms} to it.</li>
 *   <li><b>Padded batches.</b> A queue of 3 may run as a batch of 4 when that serves more
 *       requests per millisecond than 2 now and 1 later.</li>
 *   <li><b>Throughput first when behind</b> ({@link LatestStartPolicy#whenBehind}): when a fluid
 *       test says the queued work cannot be done by its deadlines, a device takes the most
 *       efficient strategy (requests per millisecond) rather than the most urgent one, if it is at
 *       least {@code efficiency_gain} (1.1) times as efficient: a batch of 16 rather than one of 8
 *       or a lone request. Below capacity the test fails and the order is Clockwork's.</li>
 * </ul>
 * Where the others lose (see BENCHMARKS.md, "Policies"): Clockwork splits batches small
 * at tight SLOs and under overload; work-conserving and Flex serve whatever is first or largest
 * now, so urgent small queues expire in bursts below capacity; Triton waits a fixed delay whatever
 * the deadline.
 *
 * <p>Parameters {@code lookahead_ms} (default 0) and {@code efficiency_gain} (1.1; 0 turns
 * throughput-first off).
 */
@Internal
public final class KairosPolicy extends LatestStartPolicy {
    public static final String NAME = "kairos";

    public KairosPolicy() {
        super(0.0, true, 1.1);
    }

    private KairosPolicy(long lookaheadMicros, double efficiencyGain) {
        super(0.0, true, 1.1, lookaheadMicros, efficiencyGain);
    }

    @Override
    KairosPolicy with(long lookaheadMicros, double efficiencyGain) {
        return new KairosPolicy(lookaheadMicros, efficiencyGain);
    }

    @Override
    public String name() {
        return NAME;
    }
}
