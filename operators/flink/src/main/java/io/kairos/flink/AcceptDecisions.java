package io.kairos.flink;

import io.kairos.core.plan.DecisionLedger;
import io.kairos.core.time.WallClock;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.DecisionOutcome;
import io.kairos.schema.internal.WriterVersion;
import io.kairos.wire.AvroCodec;
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
 * <p>It runs with parallelism 1, so the order of decisions is the control topic's. Its state
 * is the latest applied decision of each key and the highest version of each writer and key,
 * checkpointed as two lists, from which the plan is rebuilt on restore.
 *
 * <p>Metrics (group {@code kairos}): {@code decisionsApplied}, {@code decisionsRejected},
 * {@code decisionsDuplicate}.
 */
public final class AcceptDecisions extends ProcessFunction<ControlDecision, ControlDecision> implements CheckpointedFunction {
    private static final Logger LOG = LoggerFactory.getLogger(AcceptDecisions.class);
    public static final OutputTag<DecisionOutcome> OUTCOMES = new OutputTag<>("decision-outcomes", new AvroTypeInfo<>(DecisionOutcome.class));

    private final ControlPlane control;
    private transient DecisionLedger ledger;
    private transient ListState<ControlDecision> checkpointedPlan;
    private transient ListState<WriterVersion> checkpointedVersions;
    private transient Counter applied;
    private transient Counter rejected;
    private transient Counter duplicate;

    public AcceptDecisions(ControlPlane control) {
        this.control = control;
    }

    @Override
    public void open(OpenContext openContext) {
        AvroCodec.enableCustomCoders();
        MetricGroup metrics = getRuntimeContext().getMetricGroup().addGroup("kairos");
        applied = metrics.counter("decisionsApplied");
        rejected = metrics.counter("decisionsRejected");
        duplicate = metrics.counter("decisionsDuplicate");
    }

    @Override
    public void processElement(ControlDecision decision, Context ctx, Collector<ControlDecision> out) {
        DecisionOutcome outcome = ledger.decide(decision, WallClock.nowMicros());
        switch (outcome.getStatus()) {
            case APPLIED -> {
                applied.inc();
                LOG.info("applied control decision {}: {}", DecisionLedger.describe(decision), decision.getAction());
                out.collect(decision);
            }
            case REJECTED -> {
                rejected.inc();
                LOG.warn("rejected control decision {}: {}", DecisionLedger.describe(decision), outcome.getReason());
            }
            case DUPLICATE -> duplicate.inc();
        }
        ctx.output(OUTCOMES, outcome);
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
