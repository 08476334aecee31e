package io.kairos.wire.plan;

import io.kairos.core.api.Internal;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.plan.ServingPlan;
import io.kairos.core.scheduling.BatchingTable;
import io.kairos.core.scheduling.PublishedNetwork;
import io.kairos.core.scheduling.learned.PolicyNetwork;
import io.kairos.core.scheduling.policy.Policies;
import io.kairos.schema.AssignGroup;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.DevicePlacement;
import io.kairos.schema.RemovePipeline;
import io.kairos.schema.SetBatchingTable;
import io.kairos.schema.SetPipeline;
import io.kairos.schema.SetPlacement;
import io.kairos.schema.SetPolicy;
import io.kairos.schema.SetPolicyNetwork;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Applies a control decision's action to a serving plan. Whether a decision is new or a replay is
 * not decided here but by the {@link DecisionLedger}, which counts versions per writer and key.
 */
@Internal
public final class Decisions {
    private Decisions() {}

    /**
     * Applies {@code decision}'s action.
     *
     * @return true (the plan changed)
     * @throws IllegalArgumentException for a decision that names something that does not exist;
     *         the plan is then unchanged
     */
    public static boolean apply(ServingPlan plan, ControlDecision decision) {
        Object action = decision.getAction();
        if (action instanceof SetPolicy p) {
            Policies.create(p.getPolicy()); // fails on an unknown name before the plan changes
            plan.setPolicy(p.getGroup(), p.getModel(), p.getPolicy(), p.getParams());
        } else if (action instanceof SetPlacement p) {
            Map<Integer, Set<String>> devices = new LinkedHashMap<>();
            for (DevicePlacement d : p.getDevices()) devices.put(d.getDevice(), Set.copyOf(d.getModels()));
            plan.place(p.getGroup(), devices);
        } else if (action instanceof AssignGroup a) {
            plan.assign(a.getModel(), a.getGroup());
        } else if (action instanceof SetBatchingTable t) {
            plan.setBatchingTable(t.getGroup(), t.getModel(), batchingTable(plan, t));
        } else if (action instanceof SetPipeline p) {
            plan.setPipeline(PipelineActions.spec(p, plan.catalog()));
        } else if (action instanceof SetPolicyNetwork n) {
            plan.setNetwork(n.getGroup(), network(n));
        } else if (action instanceof RemovePipeline r) {
            // Applied whether or not the plan holds it: the removal is the key's last record on the
            // compacted topic, and a fresh start that reads it alone must apply it all the same.
            plan.removePipeline(r.getPipeline());
        } else {
            throw new IllegalArgumentException("control decision " + decision.getVersion() + " has no known action: " + action);
        }
        return true;
    }

    /**
     * The network a {@link SetPolicyNetwork} carries, checked as the learned policy reads it
     * ({@link PolicyNetwork}'s checks: magic, version, sizes, finite values, nothing left over).
     */
    static PublishedNetwork network(SetPolicyNetwork n) {
        String what = "network '" + n.getNetworkName() + "' of serving group '" + n.getGroup() + "': ";
        if (n.getNetworkName().isBlank()) throw new IllegalArgumentException(what + "network_name is empty");
        java.nio.ByteBuffer buffer = n.getNetwork().duplicate();
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        try {
            PolicyNetwork.read(bytes, n.getNetworkName());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(what + e.getMessage(), e);
        }
        return new PublishedNetwork(n.getNetworkName(), bytes);
    }

    /**
     * The table a {@link SetBatchingTable} carries, checked: its shape (states {@code 0..s_max}
     * and {@code S_o}, no batch above its state), its model (in the job's catalog, where the plan
     * has one, and routed to the group) and its sizes (at most the model's largest batch), and the
     * rate and weights it was solved for.
     */
    static BatchingTable batchingTable(ServingPlan plan, SetBatchingTable t) {
        String what = "batching table of model '" + t.getModel() + "' in serving group '" + t.getGroup() + "': ";
        ModelCatalog catalog = plan.catalog();
        if (catalog != null && !catalog.contains(t.getModel())) {
            throw new IllegalArgumentException(what + "the job serves no model '" + t.getModel() + "'; it serves " + catalog.names());
        }
        String routed = plan.groupOf(t.getModel());
        if (!routed.equals(t.getGroup())) {
            throw new IllegalArgumentException(what + "the model's requests go to serving group '" + routed + "' (assign it there first)");
        }
        double rate = t.getArrivalRatePerS();
        if (!(rate > 0) || Double.isInfinite(rate)) throw new IllegalArgumentException(what + "arrival_rate_per_s must be a positive number, got " + rate);
        if (!(t.getLatencyWeight() >= 0) || !(t.getPowerWeight() >= 0) || Double.isInfinite(t.getLatencyWeight()) || Double.isInfinite(t.getPowerWeight())) {
            throw new IllegalArgumentException(what + "the weights must be non-negative numbers, got latency_weight " + t.getLatencyWeight()
                    + " and power_weight " + t.getPowerWeight());
        }
        int[] actions = t.getActions().stream().mapToInt(a -> a == null ? -1 : a).toArray();
        if (actions.length < 2) {
            throw new IllegalArgumentException(what + "actions needs an entry for every state 0..s_max and one for the overflow state, got "
                    + actions.length);
        }
        BatchingTable table;
        try {
            table = new BatchingTable(actions);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(what + e.getMessage(), e);
        }
        if (catalog != null) {
            int max = catalog.get(t.getModel()).latency().maxBatch();
            for (int s = 0; s < actions.length; s++) {
                if (actions[s] > max) {
                    throw new IllegalArgumentException(what + (s == actions.length - 1 ? "the overflow state" : "state " + s) + ": batch of " + actions[s]
                            + ", above the model's largest batch size " + max);
                }
            }
        }
        return table;
    }
}
