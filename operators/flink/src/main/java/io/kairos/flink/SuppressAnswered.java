package io.kairos.flink;

import io.kairos.core.result.AnsweredRequests;
import io.kairos.core.result.ResultLog;
import io.kairos.core.time.Clock;
import io.kairos.schema.InferenceResult;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The last step before the results sink under at-least-once delivery: after a restore, a result of
 * a request that already has one out is not written again ({@link AnsweredRequests}).
 *
 * <p>Each checkpoint records when it was triggered (union state: every instance gets every
 * anchor after a rescale). On a restore, each instance reads back from the {@link ResultLog} the
 * ids of the results written since then, less a margin, on every partition: a replayed request
 * may come out of any instance, not the one that answered it first.
 *
 * <p>The read takes seconds (tens of thousands of ids after a few seconds' replay at thousands of
 * requests/s), so it runs on a thread of its own ({@link ReadBack}, one per TaskManager and
 * restore, which the instances there share) and does not hold up the task's start. Beside it, the
 * log is asked when its latest result was written ({@link ResultLog#latestWriteMillis}, one small
 * fetch per partition), about when the job died: a request sent after that (plus the margin) cannot
 * have been answered, and once the answer is in, its result is written at once. Only results of requests sent before it wait
 * for the ids ({@link AnsweredRequests#consults}); a checkpoint taken meanwhile carries them in
 * its state. A read that fails or takes longer than {@link AnsweredRequests.Settings#timeoutMs}
 * (a broker slow or down) costs the rule for this restore, with a warning, never the job: what
 * waited is written.
 *
 * <p>Metrics (group {@code kairos}): {@code resultsSuppressed}, the results held back for good;
 * {@code resultsAwaitingReadBack}, those waiting for the read now. Logged once when the read is
 * in and once when the set is dropped, in sum.
 */
public final class SuppressAnswered extends AbstractStreamOperator<InferenceResult>
        implements OneInputStreamOperator<InferenceResult, InferenceResult> {
    private static final Logger LOG = LoggerFactory.getLogger(SuppressAnswered.class);
    /** How often the task looks whether the read is in, while results wait for it. */
    static final long POLL_MS = 5;
    /** Past the read's timeout, how long a read that does not honour it is given before it is abandoned. */
    private static final long GRACE_MS = 1_000;

    private final ResultLog log;
    private final AnsweredRequests.Settings settings;
    private final Clock clock;

    private transient ListState<Long> anchors;
    private transient ListState<InferenceResult> awaitingState;
    /** While a read is in flight: a set with no ids, whose times say which results must wait. */
    private transient AnsweredRequests answered;
    private transient boolean inForce;
    /** The read in flight; null once it is in, or when there is none. */
    private transient ReadBack reading;
    // The read's answer to when the log was last written: it may come after the ids, and still
    // narrows which later results are looked up at all (a client that reuses an id).
    private transient CompletableFuture<Long> latestWrite;
    private transient boolean bounded;
    private transient long anchorMillis;
    private transient long restoredAtMillis;
    private transient long readFromMillis;
    private transient ArrayDeque<InferenceResult> awaiting;
    private transient long awaitedMost;
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
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        var store = context.getOperatorStateStore();
        anchors = store.getUnionListState(new ListStateDescriptor<>("kairos-results-anchor", Types.LONG));
        awaitingState = store.getListState(new ListStateDescriptor<>("kairos-results-awaiting-read-back", new AvroTypeInfo<>(InferenceResult.class)));
        awaiting = new ArrayDeque<>();
        answered = AnsweredRequests.none();
        if (!context.isRestored()) return;
        for (InferenceResult r : awaitingState.get()) awaiting.add(r);
        long anchor = Long.MAX_VALUE;
        for (Long a : anchors.get()) anchor = Math.min(anchor, a);
        if (anchor == Long.MAX_VALUE) return; // restored from a checkpoint taken before this step existed
        long restoredAt = clock.nowMicros();
        restoredAtMillis = restoredAt / 1000;
        answered = AnsweredRequests.restored(Set.of(), anchor, restoredAt, settings);
        inForce = true;
        startReadBack(anchor);
    }

    private void startReadBack(long anchor) {
        anchorMillis = anchor;
        readFromMillis = AnsweredRequests.readFromMillis(anchor, settings);
        reading = ReadBack.of(log, readFromMillis, settings.timeoutMs());
        latestWrite = reading.latestWrite;
    }

    /**
     * Once the log has said when its latest result was written, the results that wait only because
     * they were sent before the restore, not before that write, go out.
     */
    private void boundByLatestWrite() {
        if (bounded || latestWrite == null || !latestWrite.isDone()) return;
        bounded = true;
        long latest = latestWrite.join();
        answered = answered.withLatestWrite(latest);
        if (latest != Long.MAX_VALUE) {
            LOG.info("the results' log was last written at {} ms, {} ms before the restore: results of requests sent since then are written without waiting for the read",
                    latest, restoredAtMillis - latest);
        }
        long now = clock.nowMicros();
        int before = awaiting.size();
        awaiting.removeIf(r -> {
            if (answered.consults(r.getTimings().getSent(), now)) return false;
            output.collect(new StreamRecord<>(r));
            return true;
        });
        if (before > awaiting.size()) LOG.info("{} of {} results waiting for the read went out", before - awaiting.size(), before);
    }

    @Override
    public void open() throws Exception {
        super.open();
        var metrics = getMetricGroup().addGroup("kairos");
        suppressed = metrics.counter("resultsSuppressed");
        metrics.gauge("resultsAwaitingReadBack", () -> awaiting.size());
        if (reading != null) poll(POLL_MS);
    }

    private void poll(long afterMs) {
        long now = getProcessingTimeService().getCurrentProcessingTime();
        getProcessingTimeService().registerTimer(now + afterMs, t -> onPoll());
    }

    private void onPoll() {
        if (reading == null) return;
        boundByLatestWrite();
        if (reading.ids.isDone() || reading.elapsedMs() > settings.timeoutMs() + GRACE_MS) readBackIn(0);
        else poll(POLL_MS);
    }

    /** Whether the read-back is still out (or in, and not yet taken at the next poll). */
    boolean readingBack() {
        return reading != null;
    }

    @Override
    public void processElement(StreamRecord<InferenceResult> element) {
        if (!inForce) {
            output.collect(element);
            return;
        }
        InferenceResult result = element.getValue();
        long now = clock.nowMicros();
        boundByLatestWrite();
        if (reading != null) {
            if (reading.ids.isDone()) {
                readBackIn(0);
            } else if (answered.consults(result.getTimings().getSent(), now)) {
                awaiting.add(result);
                awaitedMost = Math.max(awaitedMost, awaiting.size());
                return;
            } else {
                output.collect(element);
                return;
            }
        }
        if (pass(result, now)) output.collect(element);
    }

    /** Whether {@code result} may be written, counting it when it may not. */
    private boolean pass(InferenceResult result, long now) {
        if (answered.alreadyAnswered(result.getRequestId(), result.getTimings().getSent(), now)) {
            suppressed.inc();
            heldBack++;
            return false;
        }
        if (answered.expired(now) && reading == null) drop();
        return true;
    }

    /**
     * The read is done, or given up on: the set takes what it read (nothing, if it failed) and the
     * results that waited for it go out or are held back.
     *
     * @param waitMs how long to wait for a read not yet done before giving up on it
     */
    private void readBackIn(long waitMs) {
        Set<String> ids;
        try {
            ids = reading.ids.get(waitMs, TimeUnit.MILLISECONDS);
            LOG.info("restored from the checkpoint of {} ms: {} requests already have a result (written since {} ms, read in {} ms, {} results waited for it at most); "
                    + "their replays are held back for {} s", anchorMillis, ids.size(), readFromMillis, reading.elapsedMs(),
                    awaitedMost, settings.horizonMs() / 1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            ids = failed(e);
        } catch (ExecutionException e) {
            ids = failed(e.getCause());
        } catch (TimeoutException e) {
            // Given up on here; the read itself ends at its own timeout.
            ids = failed(new TimeoutException("no answer in " + reading.elapsedMs() + " ms"));
        }
        boundByLatestWrite();
        reading = null;
        answered = answered.withIds(ids);
        long now = clock.nowMicros();
        while (!awaiting.isEmpty()) {
            InferenceResult r = awaiting.poll();
            if (pass(r, now)) output.collect(new StreamRecord<>(r));
        }
    }

    private Set<String> failed(Throwable cause) {
        LOG.warn("restored from the checkpoint of {} ms: could not read back the results written since {} ms ({}); "
                + "results of replayed requests are written even if one is already out ({} waited for the read)",
                anchorMillis, readFromMillis, String.valueOf(cause), awaiting.size());
        return Set.of();
    }

    private void drop() {
        LOG.info("held back {} results of requests that already had one out before the restore; {} ids dropped", heldBack, answered.size());
        answered = AnsweredRequests.none();
        inForce = false;
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        long now = clock.nowMicros();
        anchors.update(List.of(answered.anchorFor(context.getCheckpointTimestamp(), now)));
        // Results that wait for the read are past the sources' offsets in this checkpoint: they travel in it.
        awaitingState.update(new ArrayList<>(awaiting));
        if (inForce && reading == null && answered.expired(now)) drop();
    }

    @Override
    public void finish() throws Exception {
        // The input has ended (a bounded job, a stop with drain): what waits goes out now.
        if (reading != null) readBackIn(Math.max(0, settings.timeoutMs() + GRACE_MS - reading.elapsedMs()));
        super.finish();
    }

}
