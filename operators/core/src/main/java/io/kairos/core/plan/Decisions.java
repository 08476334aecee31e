package io.kairos.core.plan;

import io.kairos.core.scheduling.policy.Policies;
import io.kairos.schema.AssignGroup;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.DevicePlacement;
import io.kairos.schema.SetPlacement;
import io.kairos.schema.SetPolicy;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Applies a control decision's action to a serving plan. Whether a decision is new or a replay is
 * not decided here but by the {@link DecisionLedger}, which counts versions per writer and key.
 */
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
        } else {
            throw new IllegalArgumentException("control decision " + decision.getVersion() + " has no known action: " + action);
        }
        return true;
    }
}
