package io.kairos.wire.plan;

import io.kairos.core.api.Internal;
import io.kairos.schema.AssignGroup;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.RemovePipeline;
import io.kairos.schema.SetBatchingTable;
import io.kairos.schema.SetPipeline;
import io.kairos.schema.SetPlacement;
import io.kairos.schema.SetPolicy;
import io.kairos.schema.SetPolicyNetwork;

/**
 * The key of a control decision: its action's type and target. A compacted control topic keeps the
 * latest record of each key, and the plan is the latest applied decision of each key, so two
 * decisions share a key exactly when the later one makes the earlier one irrelevant:
 *
 * <ul>
 *   <li>{@code policy/<group>}: a group's policy and parameters ({@link SetPolicy} without model);
 *   <li>{@code policy/<group>/<model>}: a model's parameter overrides in its group;
 *   <li>{@code placement/<group>}: a group's devices and their models;
 *   <li>{@code assign/<model>}: the group a model's requests go to;
 *   <li>{@code batching/<group>/<model>}: a model's batching table in its group ({@link SetBatchingTable});
 *   <li>{@code pipeline/<pipeline>}: a pipeline of models ({@link SetPipeline}), or its removal
 *       ({@link RemovePipeline}), which takes the key's place so that compaction keeps it;
 *   <li>{@code network/<group>}: the network a group's learned policy decides with ({@link SetPolicyNetwork}).
 * </ul>
 *
 * Group and model names must be non-empty and free of {@code /}, so that no two targets share a key.
 */
@Internal
public final class DecisionKey {
    private DecisionKey() {}

    /** The key of {@code decision}'s action. */
    public static String of(ControlDecision decision) {
        return of(decision.getAction());
    }

    /**
     * The key of an action.
     *
     * @throws IllegalArgumentException for an action of no known type, or one that names an empty
     *         group or model, or one with a {@code /}
     */
    public static String of(Object action) {
        if (action instanceof SetPolicy p) {
            String group = "policy/" + name("group", p.getGroup());
            return p.getModel() == null ? group : group + "/" + name("model", p.getModel());
        }
        if (action instanceof SetPlacement p) return "placement/" + name("group", p.getGroup());
        if (action instanceof AssignGroup a) {
            name("group", a.getGroup()); // a group that no decision could name would be a dead end
            return "assign/" + name("model", a.getModel());
        }
        if (action instanceof SetBatchingTable t) return "batching/" + name("group", t.getGroup()) + "/" + name("model", t.getModel());
        if (action instanceof SetPipeline p) return "pipeline/" + name("pipeline", p.getPipeline());
        if (action instanceof RemovePipeline r) return "pipeline/" + name("pipeline", r.getPipeline());
        if (action instanceof SetPolicyNetwork n) return "network/" + name("group", n.getGroup());
        throw new IllegalArgumentException("no known action: " + action);
    }

    /**
     * The order in which the latest decision of each key is applied to rebuild a plan: a group's
     * policy before its models' overrides (which are checked against the group's policy), then
     * placements, then routing, then batching tables (which are checked against the routing),
     * then pipelines (checked against the catalog only), then networks (checked alone). Decisions of
     * different keys commute otherwise.
     */
    static int rank(String key) {
        if (key.startsWith("policy/")) return key.indexOf('/', "policy/".length()) < 0 ? 0 : 1;
        if (key.startsWith("placement/")) return 2;
        if (key.startsWith("batching/")) return 4;
        if (key.startsWith("pipeline/")) return 5;
        if (key.startsWith("network/")) return 6;
        return 3;
    }

    private static String name(String what, String value) {
        if (value == null || value.isEmpty()) throw new IllegalArgumentException("the " + what + " name is empty");
        if (value.indexOf('/') >= 0) throw new IllegalArgumentException(what + " name '" + value + "' contains '/'");
        return value;
    }
}
