package io.kairos.flink;

import io.kairos.core.device.DeviceSlots;
import io.kairos.core.device.Eviction;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.plan.ServingPlan;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.DecisionOutcome;
import io.kairos.schema.DecisionStatus;
import io.kairos.schema.internal.WriterVersion;
import io.kairos.wire.plan.DecisionKey;
import io.kairos.wire.plan.DecisionLedger;
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
 * targets, and the plan, a plain object, is rebuilt from them after a restore. Each instance keeps
 * its plan with its own {@link DecisionLedger}, the same code that decided upstream; a decision that
 * would not apply here all the same (it cannot happen) is logged and skipped: serving goes on.
 */
public final class ControlPlane implements Serializable {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(ControlPlane.class);

    /** The latest accepted decision per key. */
    public static final MapStateDescriptor<String, ControlDecision> DECISIONS =
            new MapStateDescriptor<>("kairos-control-plan", Types.STRING, new AvroTypeInfo<>(ControlDecision.class));

    private final int deviceCount;
    // The slots' hardware types; null: every slot of the catalog's first type.
    private final DeviceSlots slots;
    private final long deviceMemoryBytes;
    private final String defaultPolicy;
    private final Map<String, String> defaultParams;
    private final ModelCatalog catalog;
    // The devices' eviction rule, which the scheduler's views of them replay.
    private Eviction deviceEviction = Eviction.LRU;
    private transient DecisionLedger ledger;

    /** Devices with unbounded model memory. */
    public ControlPlane(int deviceCount, String defaultPolicy, Map<String, String> defaultParams) {
        this(deviceCount, Long.MAX_VALUE, defaultPolicy, defaultParams);
    }

    /** @param deviceMemoryBytes each device's model memory budget, for the scheduler's picture of what is loaded where */
    public ControlPlane(int deviceCount, long deviceMemoryBytes, String defaultPolicy, Map<String, String> defaultParams) {
        this(deviceCount, deviceMemoryBytes, defaultPolicy, defaultParams, null);
    }

    /**
     * @param catalog the job's models, against which decisions naming a model are checked (a
     *                batching table's model and sizes); null: not checked against a catalog
     */
    public ControlPlane(int deviceCount, long deviceMemoryBytes, String defaultPolicy, Map<String, String> defaultParams, ModelCatalog catalog) {
        this(deviceCount, null, deviceMemoryBytes, defaultPolicy, defaultParams, catalog);
    }

    /** Devices of the slots' hardware types: a placement of a model on a type it has no profile for is rejected. */
    public ControlPlane(DeviceSlots slots, long deviceMemoryBytes, String defaultPolicy, Map<String, String> defaultParams, ModelCatalog catalog) {
        this(slots.count(), slots, deviceMemoryBytes, defaultPolicy, defaultParams, catalog);
    }

    private ControlPlane(int deviceCount, DeviceSlots slots, long deviceMemoryBytes, String defaultPolicy, Map<String, String> defaultParams, ModelCatalog catalog) {
        this.deviceCount = deviceCount;
        this.slots = slots;
        this.deviceMemoryBytes = deviceMemoryBytes;
        this.defaultPolicy = defaultPolicy;
        this.defaultParams = Map.copyOf(defaultParams);
        this.catalog = catalog;
    }

    /** The devices evict by {@code eviction} (default least recently used first), as they are configured. Returns this. */
    public ControlPlane evicting(Eviction eviction) {
        this.deviceEviction = java.util.Objects.requireNonNull(eviction);
        return this;
    }

    /** The plan before any decision: the job's configuration. */
    public ServingPlan defaultPlan() {
        ServingPlan plan = slots != null ? new ServingPlan(slots, deviceMemoryBytes, defaultPolicy, PolicyParams.of(defaultParams), catalog)
                : new ServingPlan(deviceCount, deviceMemoryBytes, defaultPolicy, PolicyParams.of(defaultParams), catalog);
        return plan.deviceEviction(deviceEviction);
    }

    /** The current plan; after a restore, rebuilt once from the decisions in broadcast state. */
    public ServingPlan plan(ReadOnlyBroadcastState<String, ControlDecision> decisions) throws Exception {
        return ledger(decisions).plan();
    }

    /**
     * The same ledger as {@link AcceptDecisions}'s, so that this instance's plan follows the same
     * rules; after a restore, rebuilt from the broadcast state, each decision there remembered as
     * its writer's version for its key, so that a replay of it changes nothing.
     */
    private DecisionLedger ledger(ReadOnlyBroadcastState<String, ControlDecision> decisions) throws Exception {
        if (ledger == null) {
            List<ControlDecision> latest = new ArrayList<>();
            List<WriterVersion> versions = new ArrayList<>();
            for (Map.Entry<String, ControlDecision> e : decisions.immutableEntries()) {
                ControlDecision d = e.getValue();
                latest.add(d);
                versions.add(WriterVersion.newBuilder().setWriter(d.getIssuedBy()).setKey(e.getKey()).setVersion(d.getVersion()).build());
            }
            ledger = DecisionLedger.restore(defaultPlan(), latest, versions, problem -> LOG.error("restoring the serving plan: {}", problem));
        }
        return ledger;
    }

    /**
     * Applies an accepted decision; returns true if the plan changed. A decision of the same writer
     * with no higher version than the one held for its key is a replay, and changes nothing. The
     * broadcast state then mirrors the ledger: the latest applied decision of each key, without
     * those a later decision made void (a group's change of policy drops its models' overrides).
     */
    public boolean apply(BroadcastState<String, ControlDecision> decisions, ControlDecision decision) throws Exception {
        DecisionLedger l = ledger(decisions);
        DecisionOutcome outcome = l.decide(decision, 0);
        if (outcome.getStatus() == DecisionStatus.REJECTED) {
            LOG.error("accepted control decision {} does not apply here: {}", DecisionLedger.describe(decision), outcome.getReason());
        }
        if (outcome.getStatus() != DecisionStatus.APPLIED) return false;
        decisions.put(outcome.getKey(), decision);
        List<String> voided = new ArrayList<>();
        for (Map.Entry<String, ControlDecision> e : decisions.entries()) {
            if (l.applied(e.getKey()).isEmpty()) voided.add(e.getKey());
        }
        for (String key : voided) decisions.remove(key);
        return true;
    }
}
