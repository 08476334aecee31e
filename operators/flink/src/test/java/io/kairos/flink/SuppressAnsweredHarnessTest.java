package io.kairos.flink;

import io.kairos.core.result.AnsweredRequests;
import io.kairos.core.result.ResultLog;
import io.kairos.core.time.ManualClock;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.ResultStatus;
import io.kairos.schema.StageTimes;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.operators.StreamFilter;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;

import static org.assertj.core.api.Assertions.assertThat;

class SuppressAnsweredHarnessTest {
    /** 2 s of margin, 5 s to read, kept 60 s. */
    private static final AnsweredRequests.Settings SETTINGS = new AnsweredRequests.Settings(2_000, 5_000, 60_000);
    /** The times each log was asked to read from (static: the function is copied with the job). */
    private static final List<Long> READS = new CopyOnWriteArrayList<>();

    /** A results topic that holds {@code ids} whatever the time asked. */
    private record Holding(Set<String> ids) implements ResultLog {
        @Override
        public Set<String> requestIdsSince(long fromMillis, long timeoutMs) {
            READS.add(fromMillis);
            return ids;
        }
    }

    /** A broker that does not answer. */
    private record Unreachable() implements ResultLog {
        @Override
        public Set<String> requestIdsSince(long fromMillis, long timeoutMs) throws TimeoutException {
            READS.add(fromMillis);
            throw new TimeoutException("no answer in " + timeoutMs + " ms");
        }
    }

    private final ManualClock clock = new ManualClock(1_000_000_000_000L);
    private final List<OneInputStreamOperatorTestHarness<InferenceResult, InferenceResult>> opened = new ArrayList<>();
    private final List<RecordedMetrics> metrics = new ArrayList<>();

    @BeforeEach
    void clear() {
        READS.clear();
    }

    @AfterEach
    void close() throws Exception {
        for (var h : opened) h.close();
        for (var m : metrics) m.close();
    }

    private OneInputStreamOperatorTestHarness<InferenceResult, InferenceResult> harness(ResultLog log, OperatorSubtaskState restore, RecordedMetrics recorded) throws Exception {
        var h = new OneInputStreamOperatorTestHarness<>(new StreamFilter<>(new SuppressAnswered(log, SETTINGS, clock)), recorded.environment());
        opened.add(h);
        if (restore != null) h.initializeState(restore);
        h.open();
        return h;
    }

    private RecordedMetrics recorded() {
        RecordedMetrics m = new RecordedMetrics("results");
        metrics.add(m);
        return m;
    }

    private static InferenceResult result(String id, ResultStatus status, long sentMicros) {
        return InferenceResult.newBuilder().setRequestId(id).setTenant("t").setModel("mlp").setStatus(status)
                .setTimings(StageTimes.newBuilder().setSent(sentMicros).setDeadline(sentMicros + 500_000).setEmitted(sentMicros + 1).build())
                .build();
    }

    private static List<String> written(OneInputStreamOperatorTestHarness<InferenceResult, InferenceResult> h) {
        return h.extractOutputValues().stream().map(r -> r.getRequestId() + ":" + r.getStatus()).toList();
    }

    /** A job that wrote results for a and b, took a checkpoint at 1,000,000 ms, and crashed. */
    private OperatorSubtaskState checkpointOfAFirstRun(ResultLog log) throws Exception {
        var first = harness(log, null, recorded());
        first.processElement(new StreamRecord<>(result("a", ResultStatus.OK, clock.nowMicros())));
        first.processElement(new StreamRecord<>(result("b", ResultStatus.OK, clock.nowMicros())));
        assertThat(written(first)).containsExactly("a:OK", "b:OK");
        assertThat(READS).as("a fresh start reads nothing back").isEmpty();
        return first.snapshot(1, 1_000_000);
    }

    @Test
    void afterARestoreTheReplayOfAnAnsweredRequestIsHeldBackAndTheRestWritten() throws Exception {
        long sentBeforeTheCrash = clock.nowMicros();
        OperatorSubtaskState checkpoint = checkpointOfAFirstRun(new Holding(Set.of("a", "b")));
        clock.advance(30_000_000);
        long restoredAt = clock.nowMicros();
        RecordedMetrics recorded = recorded();
        var restored = harness(new Holding(Set.of("a", "b")), checkpoint, recorded);

        assertThat(READS).as("read back from the checkpoint less the margin").containsExactly(998_000L);
        restored.processElement(new StreamRecord<>(result("a", ResultStatus.DROPPED, sentBeforeTheCrash)));
        restored.processElement(new StreamRecord<>(result("c", ResultStatus.DROPPED, sentBeforeTheCrash)));
        restored.processElement(new StreamRecord<>(result("b", ResultStatus.REJECTED, 0)));
        restored.processElement(new StreamRecord<>(result("a", ResultStatus.OK, restoredAt + 2_000_000)));
        assertThat(written(restored)).as("c was never answered; the last a was sent after the restore")
                .containsExactly("c:DROPPED", "a:OK");
        assertThat(recorded.count("resultsSuppressed")).isEqualTo(2);

        clock.advance(60_000_000);
        restored.processElement(new StreamRecord<>(result("b", ResultStatus.DROPPED, sentBeforeTheCrash)));
        assertThat(written(restored)).as("past the horizon the set is gone").endsWith("b:DROPPED");
        assertThat(recorded.count("resultsSuppressed")).isEqualTo(2);
    }

    @Test
    void aSecondCrashWhileTheSetIsInForceReadsBackFromTheFirstCheckpoint() throws Exception {
        OperatorSubtaskState first = checkpointOfAFirstRun(new Holding(Set.of("a")));
        clock.advance(30_000_000);
        var second = harness(new Holding(Set.of("a")), first, recorded());
        clock.advance(10_000_000);
        OperatorSubtaskState duringTheReplay = second.snapshot(2, 1_040_000);
        clock.advance(70_000_000);
        OperatorSubtaskState afterTheHorizon = second.snapshot(3, 1_110_000);

        harness(new Holding(Set.of("a")), duringTheReplay, recorded());
        harness(new Holding(Set.of("a")), afterTheHorizon, recorded());
        assertThat(READS).containsExactly(998_000L, 998_000L, 1_108_000L);
    }

    @Test
    void aResultsTopicThatCannotBeReadCostsTheRuleNotTheJob() throws Exception {
        long sent = clock.nowMicros();
        OperatorSubtaskState checkpoint = checkpointOfAFirstRun(new Unreachable());
        clock.advance(5_000_000);
        RecordedMetrics recorded = recorded();
        var restored = harness(new Unreachable(), checkpoint, recorded);
        restored.processElement(new StreamRecord<>(result("a", ResultStatus.DROPPED, sent)));
        assertThat(written(restored)).containsExactly("a:DROPPED");
        assertThat(recorded.count("resultsSuppressed")).isZero();
        assertThat(READS).containsExactly(998_000L);
    }
}
