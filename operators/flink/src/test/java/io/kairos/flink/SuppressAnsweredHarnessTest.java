package io.kairos.flink;

import io.kairos.core.result.AnsweredRequests;
import io.kairos.core.result.ResultLog;
import io.kairos.core.time.ManualClock;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.ResultStatus;
import io.kairos.schema.StageTimes;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

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

    /** A results topic that answers with {@code ids} once {@link #ANSWER} is counted down. */
    private record Slow(Set<String> ids) implements ResultLog {
        @Override
        public Set<String> requestIdsSince(long fromMillis, long timeoutMs) throws InterruptedException {
            READS.add(fromMillis);
            ANSWER.await();
            return ids;
        }
    }

    /** A results topic last written at {@code latestMillis}, whose ids come once {@link #ANSWER} is counted down. */
    private record Telling(long latestMillis, Set<String> ids) implements ResultLog {
        @Override
        public long latestWriteMillis(long timeoutMs) {
            return latestMillis;
        }

        @Override
        public Set<String> requestIdsSince(long fromMillis, long timeoutMs) throws InterruptedException {
            READS.add(fromMillis);
            ANSWER.await();
            return ids;
        }
    }

    /** A read that ignores its timeout and never comes back. */
    private record Stuck() implements ResultLog {
        @Override
        public Set<String> requestIdsSince(long fromMillis, long timeoutMs) throws InterruptedException {
            READS.add(fromMillis);
            new CountDownLatch(1).await();
            return Set.of();
        }
    }

    /** A results topic that holds {@code ids} at once but says it was last written at {@code latestMillis} only after {@link #ANSWER}. */
    private record SlowToTell(long latestMillis, Set<String> ids) implements ResultLog {
        @Override
        public long latestWriteMillis(long timeoutMs) throws InterruptedException {
            ANSWER.await();
            return latestMillis;
        }

        @Override
        public Set<String> requestIdsSince(long fromMillis, long timeoutMs) {
            READS.add(fromMillis);
            return ids;
        }
    }

    private static volatile CountDownLatch ANSWER = new CountDownLatch(1);

    private final ManualClock clock = new ManualClock(1_000_000_000_000L);
    private final List<OneInputStreamOperatorTestHarness<InferenceResult, InferenceResult>> opened = new ArrayList<>();
    private final List<RecordedMetrics> metrics = new ArrayList<>();

    @BeforeEach
    void clear() {
        READS.clear();
        ANSWER = new CountDownLatch(1);
    }

    @AfterEach
    void close() throws Exception {
        ANSWER.countDown(); // a harness still reading finishes when closed: it waits for the read
        for (var h : opened) h.close();
        // A read still in flight would be joined by the next test's instance asking the same.
        for (Thread t : Thread.getAllStackTraces().keySet()) if (t.getName().equals("kairos-results-read-back")) t.join(200);
        for (var m : metrics) m.close();
    }

    private OneInputStreamOperatorTestHarness<InferenceResult, InferenceResult> harness(ResultLog log, OperatorSubtaskState restore, RecordedMetrics recorded) throws Exception {
        return harness(log, SETTINGS, restore, recorded);
    }

    private OneInputStreamOperatorTestHarness<InferenceResult, InferenceResult> harness(ResultLog log, AnsweredRequests.Settings settings, OperatorSubtaskState restore, RecordedMetrics recorded) throws Exception {
        var h = new OneInputStreamOperatorTestHarness<>(new SuppressAnswered(log, settings, clock), recorded.environment());
        opened.add(h);
        if (restore != null) h.initializeState(restore);
        h.open();
        return h;
    }

    /** Flink's time moves on in polls until the operator has taken the read back in (or 5 s pass). */
    private static void untilTheReadIsIn(OneInputStreamOperatorTestHarness<InferenceResult, InferenceResult> h) throws Exception {
        SuppressAnswered op = (SuppressAnswered) h.getOperator();
        pollUntil(h, () -> !op.readingBack(), "the read is taken in");
    }

    /** Flink's time moves on in polls until {@code done} (or 5 s pass, which fails the test). */
    private static void pollUntil(OneInputStreamOperatorTestHarness<InferenceResult, InferenceResult> h, BooleanSupplier done, String what) throws Exception {
        long giveUp = System.nanoTime() + 5_000_000_000L;
        while (!done.getAsBoolean()) {
            assertThat(System.nanoTime()).as(what).isLessThan(giveUp);
            h.setProcessingTime(h.getProcessingTime() + SuppressAnswered.POLL_MS);
            Thread.sleep(1);
        }
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
        untilTheReadIsIn(restored);

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
        untilTheReadIsIn(second);
        clock.advance(10_000_000);
        OperatorSubtaskState duringTheReplay = second.snapshot(2, 1_040_000);
        clock.advance(70_000_000);
        OperatorSubtaskState afterTheHorizon = second.snapshot(3, 1_110_000);

        untilTheReadIsIn(harness(new Holding(Set.of("a")), duringTheReplay, recorded()));
        untilTheReadIsIn(harness(new Holding(Set.of("a")), afterTheHorizon, recorded()));
        assertThat(READS).containsExactly(998_000L, 998_000L, 1_108_000L);
    }

    @Test
    void aResultsTopicThatCannotBeReadCostsTheRuleNotTheJob() throws Exception {
        long sent = clock.nowMicros();
        OperatorSubtaskState checkpoint = checkpointOfAFirstRun(new Unreachable());
        clock.advance(5_000_000);
        RecordedMetrics recorded = recorded();
        var restored = harness(new Unreachable(), checkpoint, recorded);
        untilTheReadIsIn(restored);
        restored.processElement(new StreamRecord<>(result("a", ResultStatus.DROPPED, sent)));
        assertThat(written(restored)).containsExactly("a:DROPPED");
        assertThat(recorded.count("resultsSuppressed")).isZero();
        assertThat(READS).containsExactly(998_000L);
    }

    @Test
    void whileTheReadIsOutOnlyResultsOfRequestsSentBeforeTheRestoreWait() throws Exception {
        long sentBeforeTheCrash = clock.nowMicros();
        OperatorSubtaskState checkpoint = checkpointOfAFirstRun(new Holding(Set.of("a", "b")));
        clock.advance(30_000_000);
        long restoredAt = clock.nowMicros();
        RecordedMetrics recorded = recorded();
        var restored = harness(new Slow(Set.of("a", "b")), checkpoint, recorded);

        restored.processElement(new StreamRecord<>(result("a", ResultStatus.DROPPED, sentBeforeTheCrash)));
        restored.processElement(new StreamRecord<>(result("c", ResultStatus.DROPPED, sentBeforeTheCrash)));
        restored.processElement(new StreamRecord<>(result("d", ResultStatus.OK, restoredAt + 2_000_000)));
        restored.setProcessingTime(restored.getProcessingTime() + 10 * SuppressAnswered.POLL_MS);
        assertThat(written(restored)).as("d was sent after the restore (and its margin): it cannot be a replay").containsExactly("d:OK");
        assertThat(recorded.gauge("resultsAwaitingReadBack")).isEqualTo(2);

        ANSWER.countDown();
        untilTheReadIsIn(restored);
        assertThat(written(restored)).as("a was answered before the crash; c was not").containsExactly("d:OK", "c:DROPPED");
        assertThat(recorded.count("resultsSuppressed")).isEqualTo(1);
        assertThat(recorded.gauge("resultsAwaitingReadBack")).isEqualTo(0);
    }

    @Test
    void aCheckpointTakenWhileTheReadIsOutCarriesTheResultsThatWait() throws Exception {
        long sentBeforeTheCrash = clock.nowMicros();
        OperatorSubtaskState checkpoint = checkpointOfAFirstRun(new Holding(Set.of("a")));
        clock.advance(30_000_000);
        var second = harness(new Slow(Set.of("a")), checkpoint, recorded());
        second.processElement(new StreamRecord<>(result("a", ResultStatus.DROPPED, sentBeforeTheCrash)));
        second.processElement(new StreamRecord<>(result("c", ResultStatus.DROPPED, sentBeforeTheCrash)));
        OperatorSubtaskState whileWaiting = second.snapshot(2, 1_030_000);
        assertThat(written(second)).isEmpty();

        // The second run dies before its read is in; the third reads back from the first checkpoint.
        clock.advance(5_000_000);
        RecordedMetrics recorded = recorded();
        var third = harness(new Holding(Set.of("a")), whileWaiting, recorded);
        untilTheReadIsIn(third);
        assertThat(written(third)).containsExactly("c:DROPPED");
        assertThat(recorded.count("resultsSuppressed")).isEqualTo(1);
        assertThat(READS).containsExactly(998_000L, 998_000L);
    }

    @Test
    void aReadThatOutlivesItsTimeoutIsGivenUpAndWhatWaitedIsWritten() throws Exception {
        long sent = clock.nowMicros();
        OperatorSubtaskState checkpoint = checkpointOfAFirstRun(new Holding(Set.of("a")));
        clock.advance(5_000_000);
        RecordedMetrics recorded = recorded();
        var restored = harness(new Stuck(), new AnsweredRequests.Settings(2_000, 50, 60_000), checkpoint, recorded);
        restored.processElement(new StreamRecord<>(result("a", ResultStatus.DROPPED, sent)));
        assertThat(written(restored)).isEmpty();
        untilTheReadIsIn(restored);
        assertThat(written(restored)).containsExactly("a:DROPPED");
        assertThat(recorded.count("resultsSuppressed")).isZero();
    }

    @Test
    void aReadStuckPastItsTimeoutIsNotJoinedByTheNextRestore() throws Exception {
        long sent = clock.nowMicros();
        OperatorSubtaskState checkpoint = checkpointOfAFirstRun(new Holding(Set.of("a")));
        clock.advance(5_000_000);
        var settings = new AnsweredRequests.Settings(2_000, 50, 60_000);
        untilTheReadIsIn(harness(new Stuck(), settings, checkpoint, recorded()));

        // The stuck read is still in flight; a restore asking the same question reads again.
        var again = harness(new Stuck(), settings, checkpoint, recorded());
        again.processElement(new StreamRecord<>(result("a", ResultStatus.DROPPED, sent)));
        untilTheReadIsIn(again);
        assertThat(READS).containsExactly(998_000L, 998_000L);
        assertThat(written(again)).containsExactly("a:DROPPED");
    }

    @Test
    void theEndOfTheInputWaitsForTheRead() throws Exception {
        long sent = clock.nowMicros();
        OperatorSubtaskState checkpoint = checkpointOfAFirstRun(new Holding(Set.of("a")));
        clock.advance(5_000_000);
        var restored = harness(new Slow(Set.of("a")), checkpoint, recorded());
        restored.processElement(new StreamRecord<>(result("a", ResultStatus.DROPPED, sent)));
        restored.processElement(new StreamRecord<>(result("b", ResultStatus.OK, sent)));
        new Thread(() -> {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            ANSWER.countDown();
        }).start();
        restored.getOperator().finish();
        assertThat(written(restored)).containsExactly("b:OK");
    }

    @Test
    void onceTheLogSaysWhenItWasLastWrittenOnlyResultsOfRequestsSentBeforeThatWait() throws Exception {
        OperatorSubtaskState checkpoint = checkpointOfAFirstRun(new Holding(Set.of("a")));
        clock.advance(30_000_000);
        long restoredAt = clock.nowMicros();
        long lastWrittenMillis = (restoredAt - 20_000_000) / 1000;
        RecordedMetrics recorded = recorded();
        var restored = harness(new Telling(lastWrittenMillis, Set.of("a", "c")), checkpoint, recorded);

        // Sent before the last write and its 2 s margin, a and d may have been answered; c, sent
        // after them, cannot have been, though its id was (a client reusing an id).
        restored.processElement(new StreamRecord<>(result("a", ResultStatus.DROPPED, restoredAt - 21_000_000)));
        restored.processElement(new StreamRecord<>(result("d", ResultStatus.DROPPED, restoredAt - 18_000_001)));
        restored.processElement(new StreamRecord<>(result("c", ResultStatus.OK, restoredAt - 18_000_000)));
        pollUntil(restored, () -> !written(restored).isEmpty(), "a result goes out");
        assertThat(written(restored)).as("c waited only until the log said when it was last written").containsExactly("c:OK");
        assertThat(recorded.gauge("resultsAwaitingReadBack")).isEqualTo(2);

        ANSWER.countDown();
        untilTheReadIsIn(restored);
        assertThat(written(restored)).containsExactly("c:OK", "d:DROPPED");
        assertThat(recorded.count("resultsSuppressed")).as("a was answered before the crash").isEqualTo(1);
    }

    @Test
    void theIdsDoNotWaitForTheQuestionOfTheLatestWriteAndItsAnswerStillCountsAfterThem() throws Exception {
        OperatorSubtaskState checkpoint = checkpointOfAFirstRun(new Holding(Set.of("a")));
        clock.advance(5_000_000);
        long restoredAt = clock.nowMicros();
        RecordedMetrics recorded = recorded();
        var restored = harness(new SlowToTell((restoredAt - 4_000_000) / 1000, Set.of("a", "c")), checkpoint, recorded);
        untilTheReadIsIn(restored);
        assertThat(READS).as("the ids were read while the other question was still out").containsExactly(998_000L);

        restored.processElement(new StreamRecord<>(result("a", ResultStatus.DROPPED, restoredAt - 10_000_000)));
        restored.processElement(new StreamRecord<>(result("b", ResultStatus.OK, restoredAt - 10_000_000)));
        // Sent after the last write and its 2 s margin, c cannot have been answered though its id
        // was (a client reusing an id); until the log says when it was last written, the restore
        // is the bound, and c is held back.
        restored.processElement(new StreamRecord<>(result("c", ResultStatus.OK, restoredAt - 1_000_000)));
        assertThat(written(restored)).containsExactly("b:OK");

        ANSWER.countDown();
        for (Thread t : Thread.getAllStackTraces().keySet()) if (t.getName().equals("kairos-results-latest-write")) t.join(5_000);
        restored.processElement(new StreamRecord<>(result("c", ResultStatus.OK, restoredAt - 1_000_000)));
        assertThat(written(restored)).as("the answer, come after the ids, lets c through").containsExactly("b:OK", "c:OK");
        assertThat(recorded.count("resultsSuppressed")).isEqualTo(2);
    }

    @Test
    void theInstancesOfOneRestoreInOneJvmShareOneReadAndALaterRestoreReadsAfresh() throws Exception {
        OperatorSubtaskState checkpoint = checkpointOfAFirstRun(new Holding(Set.of("a")));
        clock.advance(5_000_000);
        var one = harness(new Slow(Set.of("a")), checkpoint, recorded());
        var two = harness(new Slow(Set.of("a")), checkpoint, recorded());
        var elsewhere = harness(new Slow(Set.of("b")), checkpoint, recorded());
        ANSWER.countDown();
        untilTheReadIsIn(one);
        untilTheReadIsIn(two);
        untilTheReadIsIn(elsewhere);
        assertThat(READS).as("one read of each log").containsExactly(998_000L, 998_000L);

        untilTheReadIsIn(harness(new Slow(Set.of("a")), checkpoint, recorded()));
        assertThat(READS).as("the first read was done").containsExactly(998_000L, 998_000L, 998_000L);
    }
}
