package io.kairos.core.scheduling;

import io.kairos.core.api.PublicEvolving;
import java.util.Map;

/**
 * What a serving group's own control decisions deliver to its policy beside the parameters: the
 * batching tables by model (read by a policy that batches from tables, {@code smdp}) and the
 * network a decision published (read by the learned policy, {@code rl}). One typed value from the
 * plan to the policy's {@link ParamReader}, so that a policy with a new kind of input adds a field
 * here rather than an overload at every step between.
 *
 * @param tables  the group's batching tables by model; empty when none is set
 * @param network the network delivered to the group; null when none is
 */
@PublicEvolving
public record ControlInputs(Map<String, BatchingTable> tables, PublishedNetwork network) {
    /** No tables, no network. */
    public static final ControlInputs NONE = new ControlInputs(Map.of(), null);

    public ControlInputs {
        tables = Map.copyOf(tables);
    }

    /** Batching tables only. */
    public static ControlInputs tables(Map<String, BatchingTable> tables) {
        return new ControlInputs(tables, null);
    }
}
