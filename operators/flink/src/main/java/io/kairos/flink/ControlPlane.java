package io.kairos.flink;

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
 * The serving plan as one operator instance sees it, kept in step with the control stream.
 *
 * <p>Every decision applied is kept in broadcast state (so it is checkpointed), and the plan, a
 * plain object, is rebuilt from them after a restore. Each parallel instance receives every
 * decision, so each applies it itself; versions make a replayed decision a no-op.
 */
public final class ControlPlane implements Serializable {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(ControlPlane.class);

    public static final MapStateDescriptor<Long, ControlDecision> DECISIONS =
            new MapStateDescriptor<>("kairos-control-decisions", Types.LONG, new AvroTypeInfo<>(ControlDecision.class));

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

    /** The current plan; after a restore, rebuilt once from the decisions in broadcast state. */
    public ServingPlan plan(ReadOnlyBroadcastState<Long, ControlDecision> decisions) throws Exception {
        if (plan == null) {
            plan = new ServingPlan(deviceCount, deviceMemoryBytes, defaultPolicy, PolicyParams.of(defaultParams));
            List<ControlDecision> replay = new ArrayList<>();
            for (Map.Entry<Long, ControlDecision> e : decisions.immutableEntries()) replay.add(e.getValue());
            replay.sort((a, b) -> Long.compare(a.getVersion(), b.getVersion()));
            for (ControlDecision d : replay) applyLogged(d);
        }
        return plan;
    }

    /** Applies a decision once; returns true if the plan changed. */
    public boolean apply(BroadcastState<Long, ControlDecision> decisions, ControlDecision decision) throws Exception {
        plan(decisions);
        boolean changed = applyLogged(decision);
        if (changed) decisions.put(decision.getVersion(), decision);
        return changed;
    }

    private boolean applyLogged(ControlDecision decision) {
        try {
            boolean changed = Decisions.apply(plan, decision);
            if (changed) LOG.info("applied control decision {} from {}: {}", decision.getVersion(), decision.getIssuedBy(), decision.getAction());
            return changed;
        } catch (IllegalArgumentException e) {
            LOG.warn("ignored control decision {} from {}: {}", decision.getVersion(), decision.getIssuedBy(), e.getMessage());
            return false;
        }
    }
}
