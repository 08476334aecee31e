package io.kairos.core.scheduling.policy;

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
 *   <li><b>The overload rule</b> ({@link LatestStartPolicy#unlessOverloaded}): when the most
 *       urgent strategy cannot wait, a strategy that serves at least 2.5 times as many requests
 *       per millisecond runs instead ({@code overload_ratio}), as does one at least 1.1 times as
 *       efficient that cannot wait either ({@code conflict_ratio}). Below capacity nothing
 *       conflicts and the order is Clockwork's; at and above it, the devices go to big batches
 *       of busy models rather than to single requests of rare ones.</li>
 * </ul>
 * Where the others lose (see BENCHMARKS.md, policy experiments): Clockwork splits batches small
 * at tight SLOs and under overload; work-conserving and Flex serve whatever is first or largest
 * now; Triton waits a fixed delay whatever the deadline. Where Kairos loses: at and above
 * capacity with bursty arrivals of like models, where Flex's largest batch first is what
 * maximises throughput.
 *
 * <p>Parameters {@code lookahead_ms} (default 0), {@code conflict_ratio} (1.1) and
 * {@code overload_ratio} (2.5); both ratios 0 turn the overload rule off.
 */
public final class KairosPolicy extends LatestStartPolicy {
    public static final String NAME = "kairos";

    public KairosPolicy() {
        super(0.0, true, new Ratios(1.1, 2.5));
    }

    @Override
    public String name() {
        return NAME;
    }
}
