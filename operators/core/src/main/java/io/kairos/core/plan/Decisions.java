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

/** Applies control decisions (as they travel on the control topic) to a serving plan. */
public final class Decisions {
    private Decisions() {}

    /**
     * Applies {@code decision} if its version is new.
     *
     * @return true if the plan changed
     * @throws IllegalArgumentException for a decision that names something that does not exist;
     *         the plan is then unchanged, but the version counts as seen
     */
    public static boolean apply(ServingPlan plan, ControlDecision decision) {
        if (!plan.accept(decision.getVersion())) return false;
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
