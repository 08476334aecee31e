package io.kairos.flink;

import io.kairos.core.time.Clock;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.DecisionOutcome;
import io.kairos.schema.internal.ControlRestore;
import io.kairos.schema.internal.WriterVersion;
import io.kairos.wire.AvroCodec;
import io.kairos.wire.plan.DecisionLedger;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides every control decision once, in one place, before the broadcast: with the core's
 * {@link DecisionLedger}, it applies the decision to its own copy of the plan, or rejects it with
 * a reason, or finds it a duplicate. Only applied decisions go on to the broadcast, so no
 * operator instance downstream ever meets a decision that fails; every decision's outcome goes
 * to the {@link #OUTCOMES} side output, for the producers to read.
 *
 * <p>The control topic is compacted: it keeps the last record of each key, applied or not. So
 * after a decision it did not apply (a rejection, or a duplicate that is not the decision it
 * holds for that key, such as a writer's version reused with other content), the job writes the
 * key's applied decision back, unchanged, or a tombstone when it holds none ({@link #RESTORES}):
 * the last record of the key is again what the job holds, and a fresh start from the compacted
 * topic rebuilds the same plan. This cannot loop. A tombstone never reaches this function (the
 * deserializer skips it). A restored decision was decided before it was written, so reading it
 * back is a duplicate of the decision the key holds, and writes nothing, unless another decision
 * was applied for the key in between: then it writes that one, once, and so on only as long as
 * producers keep writing. After a restore from a checkpoint, the source reads the original again
 * before its copy, which is later in the log; a copy read twice is a duplicate twice.
 *
 * <p>It runs with parallelism 1, so the order of decisions is the control topic's. Its state
 * is the latest applied decision of each key and the highest version of each writer and key,
 * checkpointed as two lists, from which the plan is rebuilt on restore.
 *
 * <p>Metrics (group {@code kairos}): {@code decisionsApplied}, {@code decisionsRejected},
 * {@code decisionsDuplicate}, {@code decisionsRestored} (records written back to the control topic).
 */
public final class AcceptDecisions extends ProcessFunction<ControlDecision, ControlDecision> implements CheckpointedFunction {
    private static final Logger LOG = LoggerFactory.getLogger(AcceptDecisions.class);
    public static final OutputTag<DecisionOutcome> OUTCOMES = new OutputTag<>("decision-outcomes", new AvroTypeInfo<>(DecisionOutcome.class));
    /** What to write back to the control topic, under its key, so that compaction keeps what the job holds. */
    public static final OutputTag<ControlRestore> RESTORES = new OutputTag<>("control-restores", new AvroTypeInfo<>(ControlRestore.class));

    private final ControlPlane control;
    private final Clock clock;
    private transient DecisionLedger ledger;
    private transient ListState<ControlDecision> checkpointedPlan;
    private transient ListState<WriterVersion> checkpointedVersions;
    private transient Counter applied;
    private transient Counter rejected;
    private transient Counter duplicate;
    private transient Counter restored;

    public AcceptDecisions(ControlPlane control) {
        this(control, Clock.wall());
    }

    /** @param clock stamps each outcome's decision time */
    public AcceptDecisions(ControlPlane control, Clock clock) {
        this.control = control;
        this.clock = clock;
    }

    @Override
    public void open(OpenContext openContext) {
        AvroCodec.enableCustomCoders();
        MetricGroup metrics = getRuntimeContext().getMetricGroup().addGroup("kairos");
        applied = metrics.counter("decisionsApplied");
        rejected = metrics.counter("decisionsRejected");
        duplicate = metrics.counter("decisionsDuplicate");
        restored = metrics.counter("decisionsRestored");
    }

    @Override
    public void processElement(ControlDecision decision, Context ctx, Collector<ControlDecision> out) {
        DecisionOutcome outcome = ledger.decide(decision, clock.nowMicros());
        switch (outcome.getStatus()) {
            case APPLIED -> {
                applied.inc();
                LOG.info("applied control decision {}: {}", DecisionLedger.describe(decision), loggable(decision.getAction()));
                out.collect(decision);
            }
            case REJECTED -> {
                rejected.inc();
                LOG.warn("rejected control decision {}: {}", DecisionLedger.describe(decision), outcome.getReason());
                restoreKey(decision, ctx);
            }
            case DUPLICATE -> {
                duplicate.inc();
                restoreKey(decision, ctx);
            }
        }
        ctx.output(OUTCOMES, outcome);
    }

    /** The action as logged: a network by its name and size, never its tens of kilobytes. */
    private static Object loggable(Object action) {
        return action instanceof io.kairos.schema.SetPolicyNetwork n
                ? "SetPolicyNetwork " + n.getNetworkName() + " (" + n.getNetwork().remaining() + " bytes) for group " + n.getGroup()
                : action;
    }

    /**
     * After {@code decision}, not applied, writes back what the job holds for the key it was
     * written under, unless {@code decision} is that very decision (a replay, or a restore read
     * back): the record would change nothing.
     */
    private void restoreKey(ControlDecision decision, Context ctx) {
        String key = decision.getKey(); // the record key, which compaction goes by
        if (key == null) return;        // not written under a key: it hides nothing
        ControlDecision held = ledger.applied(key).orElse(null);
        if (decision.equals(held)) return;
        restored.inc();
        LOG.info("restoring {} on the control topic after {}: {}", key, DecisionLedger.describe(decision),
                held == null ? "a tombstone, no decision is applied" : DecisionLedger.describe(held));
        ctx.output(RESTORES, ControlRestore.newBuilder().setKey(key).setDecision(held).build());
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
        checkpointedPlan.update(ledger.current());
        checkpointedVersions.update(ledger.versions());
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
        checkpointedPlan = context.getOperatorStateStore().getListState(
                new ListStateDescriptor<>("kairos-control-plan", new AvroTypeInfo<>(ControlDecision.class)));
        checkpointedVersions = context.getOperatorStateStore().getListState(
                new ListStateDescriptor<>("kairos-control-versions", new AvroTypeInfo<>(WriterVersion.class)));
        ledger = context.isRestored()
                ? DecisionLedger.restore(control.defaultPlan(), checkpointedPlan.get(), checkpointedVersions.get(),
                        problem -> LOG.error("restoring the control decisions: {}", problem))
                : new DecisionLedger(control.defaultPlan());
    }

    /** For tests: the ledger's plan. */
    DecisionLedger ledger() {
        return ledger;
    }
}
