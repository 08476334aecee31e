package io.kairos.flink;

import io.kairos.core.plan.DecisionKey;
import io.kairos.core.plan.DecisionLedger;
import io.kairos.core.plan.Decisions;
import io.kairos.core.plan.ServingPlan;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.schema.ControlDecision;
import org.apache.flink.api.common.state.BroadcastState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ReadOnlyBroadcastState;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The serving plan as one operator instance sees it, kept in step with the broadcast of accepted
 * control decisions.
 *
 * <p>Decisions are decided once, upstream, by {@link AcceptDecisions}: what reaches the broadcast
 * has been applied there to the same plan, with the same code, so it applies here too. Broadcast
 * state keeps the latest decision of each key ({@link DecisionKey}), bounded by the number of
 * targets, and the plan, a plain object, is rebuilt from them after a restore. A decision that
 * would not apply here all the same (it cannot happen) is logged and skipped: serving goes on.
 */
public final class ControlPlane implements Serializable {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(ControlPlane.class);

    /** The latest accepted decision per key. */
    public static final MapStateDescriptor<String, ControlDecision> DECISIONS =
            new MapStateDescriptor<>("kairos-control-plan", Types.STRING, new AvroTypeInfo<>(ControlDecision.class));

    private final int deviceCount;
    private final long deviceMemoryBytes;
    private final String defaultPolicy;
    private final Map<String, String> defaultParams;
    private transient ServingPlan plan;

    /** Devices with unbounded model memory. */
    public ControlPlane(int deviceCount, String defaultPolicy, Map<String, String> defaultParams) {
        this(deviceCount, Long.MAX_VALUE, defaultPolicy, defaultParams);
    }

    /** @param deviceMemoryBytes each device's model memory budget, for the scheduler's picture of what is loaded where */
    public ControlPlane(int deviceCount, long deviceMemoryBytes, String defaultPolicy, Map<String, String> defaultParams) {
        this.deviceCount = deviceCount;
        this.deviceMemoryBytes = deviceMemoryBytes;
        this.defaultPolicy = defaultPolicy;
        this.defaultParams = Map.copyOf(defaultParams);
    }

    /** The plan before any decision: the job's configuration. */
    public ServingPlan defaultPlan() {
        return new ServingPlan(deviceCount, deviceMemoryBytes, defaultPolicy, PolicyParams.of(defaultParams));
    }

    /** The current plan; after a restore, rebuilt once from the decisions in broadcast state. */
    public ServingPlan plan(ReadOnlyBroadcastState<String, ControlDecision> decisions) throws Exception {
        if (plan == null) {
            plan = defaultPlan();
            List<ControlDecision> latest = new ArrayList<>();
            for (Map.Entry<String, ControlDecision> e : decisions.immutableEntries()) latest.add(e.getValue());
            DecisionLedger.rebuild(plan, latest, problem -> LOG.error("restoring the serving plan: {}", problem));
        }
        return plan;
    }

    /**
     * Applies an accepted decision; returns true if the plan changed. A decision of the same writer
     * with no higher version than the one held for its key is a replay, and changes nothing.
     */
    public boolean apply(BroadcastState<String, ControlDecision> decisions, ControlDecision decision) throws Exception {
        plan(decisions);
        String key = DecisionKey.of(decision);
        ControlDecision held = decisions.get(key);
        if (held != null && held.getIssuedBy().equals(decision.getIssuedBy()) && decision.getVersion() <= held.getVersion()) return false;
        try {
            Decisions.apply(plan, decision);
        } catch (IllegalArgumentException e) {
            LOG.error("accepted control decision {} does not apply here: {}", DecisionLedger.describe(decision), e.getMessage());
            return false;
        }
        decisions.put(key, decision);
        return true;
    }
}
