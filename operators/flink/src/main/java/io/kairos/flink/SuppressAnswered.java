package io.kairos.flink;

import io.kairos.core.result.AnsweredRequests;
import io.kairos.core.result.ResultLog;
import io.kairos.core.time.Clock;
import io.kairos.schema.InferenceResult;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichFilterFunction;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Objects;
import java.util.Set;

/**
 * The last step before the results sink under at-least-once delivery: after a restore, a result of
 * a request that already has one out is not written again ({@link AnsweredRequests}).
 *
 * <p>Each checkpoint records when it was triggered (union state: every instance gets every
 * anchor after a rescale). On a restore, each instance reads back from the {@link ResultLog} the
 * ids of the results written since then, less a margin, on every partition: a replayed request
 * may come out of any instance, not the one that answered it first. The read blocks the instance's
 * start for {@link AnsweredRequests.Settings#timeoutMs} at most; a log that cannot be read in time
 * (a broker slow or down) costs the rule for this restore, with a warning, never the job.
 *
 * <p>Metrics (group {@code kairos}): {@code resultsSuppressed}, the results held back. Logged once
 * when the set is dropped, in sum.
 */
public final class SuppressAnswered extends RichFilterFunction<InferenceResult> implements CheckpointedFunction {
    private static final Logger LOG = LoggerFactory.getLogger(SuppressAnswered.class);

    private final ResultLog log;
    private final AnsweredRequests.Settings settings;
    private final Clock clock;

    private transient ListState<Long> anchors;
    private transient AnsweredRequests answered;
    private transient boolean inForce;
    private transient long heldBack;
    private transient Counter suppressed;

    public SuppressAnswered(ResultLog log, AnsweredRequests.Settings settings) {
        this(log, settings, Clock.wall());
    }

    public SuppressAnswered(ResultLog log, AnsweredRequests.Settings settings, Clock clock) {
        this.log = Objects.requireNonNull(log, "log");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
        anchors = context.getOperatorStateStore().getUnionListState(new ListStateDescriptor<>("kairos-results-anchor", Types.LONG));
        answered = AnsweredRequests.none();
        if (!context.isRestored()) return;
        long anchor = Long.MAX_VALUE;
        for (Long a : anchors.get()) anchor = Math.min(anchor, a);
        if (anchor == Long.MAX_VALUE) return; // restored from a checkpoint taken before this step existed
        answered = readBack(anchor);
        inForce = true;
    }

    private AnsweredRequests readBack(long anchorMillis) {
        long restoredAt = clock.nowMicros();
        long from = AnsweredRequests.readFromMillis(anchorMillis, settings);
        long start = System.nanoTime();
        Set<String> ids;
        try {
            ids = log.requestIdsSince(from, settings.timeoutMs());
        } catch (Exception e) {
            LOG.warn("restored from the checkpoint of {} ms: could not read back the results written since {} ms ({}); "
                    + "results of replayed requests are written even if one is already out", anchorMillis, from, e.toString());
            return AnsweredRequests.restored(Set.of(), anchorMillis, restoredAt, settings);
        }
        LOG.info("restored from the checkpoint of {} ms: {} requests already have a result (written since {} ms, read in {} ms); "
                + "their replays are held back for {} s", anchorMillis, ids.size(), from, (System.nanoTime() - start) / 1_000_000, settings.horizonMs() / 1000);
        return AnsweredRequests.restored(ids, anchorMillis, restoredAt, settings);
    }

    @Override
    public void open(OpenContext openContext) {
        suppressed = getRuntimeContext().getMetricGroup().addGroup("kairos").counter("resultsSuppressed");
    }

    @Override
    public boolean filter(InferenceResult result) {
        if (!inForce) return true;
        long now = clock.nowMicros();
        if (answered.alreadyAnswered(result.getRequestId(), result.getTimings().getSent(), now)) {
            suppressed.inc();
            heldBack++;
            return false;
        }
        if (answered.expired(now)) drop();
        return true;
    }

    private void drop() {
        LOG.info("held back {} results of requests that already had one out before the restore; {} ids dropped", heldBack, answered.size());
        answered = AnsweredRequests.none();
        inForce = false;
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
        long now = clock.nowMicros();
        anchors.update(java.util.List.of(answered.anchorFor(context.getCheckpointTimestamp(), now)));
        if (inForce && answered.expired(now)) drop();
    }
}
