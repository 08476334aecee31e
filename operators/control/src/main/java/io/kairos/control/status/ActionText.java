package io.kairos.control.status;

import io.kairos.schema.AssignGroup;
import io.kairos.schema.DevicePlacement;
import io.kairos.schema.SetBatchingTable;
import io.kairos.schema.SetPlacement;
import io.kairos.schema.SetPolicy;
import io.kairos.schema.SetPolicyNetwork;

import java.util.StringJoiner;
import java.util.TreeMap;
import java.util.TreeSet;

/** A control decision's action in a line a person reads: what it asks the job to do. */
public final class ActionText {
    private ActionText() {}

    public static String of(Object action) {
        if (action instanceof SetPolicy p) {
            String params = new TreeMap<>(p.getParams()).toString();
            return p.getModel() == null
                    ? "policy " + p.getPolicy() + " " + params + " for group " + p.getGroup()
                    : "parameters " + params + " for " + p.getModel() + " in group " + p.getGroup() + " (policy " + p.getPolicy() + ")";
        }
        if (action instanceof SetPlacement p) {
            StringJoiner devices = new StringJoiner("; ");
            for (DevicePlacement d : p.getDevices()) devices.add("device " + d.getDevice() + " = " + String.join(", ", new TreeSet<>(d.getModels())));
            return "place group " + p.getGroup() + ": " + (p.getDevices().isEmpty() ? "no devices" : devices.toString());
        }
        if (action instanceof AssignGroup a) return "route " + a.getModel() + " to group " + a.getGroup();
        if (action instanceof SetBatchingTable t) {
            return "batching table for " + t.getModel() + " in group " + t.getGroup() + ": " + t.getActions().size() + " states, solved for "
                    + PlanView.plain(t.getArrivalRatePerS()) + " requests/s, w1 " + PlanView.plain(t.getLatencyWeight()) + ", w2 " + PlanView.plain(t.getPowerWeight());
        }
        if (action instanceof SetPolicyNetwork n) {
            // Never the bytes: a network is tens of kilobytes.
            return "rl network " + n.getNetworkName() + " (" + n.getNetwork().remaining() + " bytes) for group " + n.getGroup();
        }
        return action == null ? "no action" : action.getClass().getSimpleName() + " " + action;
    }
}
