package io.kairos.testbed.faults;

import io.kairos.schema.ResultStatus;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.kairos.schema.ResultStatus.DROPPED;
import static io.kairos.schema.ResultStatus.OK;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** The checker's arithmetic on runs small enough to work out by hand (times in seconds, as microseconds). */
class RunLedgerTest {

    private static final long S = 1_000_000;
    private static final long NONE = Long.MIN_VALUE;

    private static long s(double seconds) {
        return Math.round(seconds * S);
    }

    private static void result(RunLedger ledger, String id, ResultStatus status, double sent, double ingested, double emitted) {
        ledger.add(id, status, s(sent), s(ingested), s(emitted));
    }

    /**
     * Ten ids, one a second from 5 s; the fault at 10 s. a-0..a-4 (sent 5..9 s) OK, a-4's result
     * emitted after the fault but read before it; a-5 (10 s) lost; a-6 (11 s) DROPPED at 12.5 s,
     * then OK: duplicated and contradictory; a-7 OK; a-8 OK twice; a-9 OK.
     */
    @Test
    void lostDuplicatedContradictoryAndTheRecoveryOfOneFault() {
        RunLedger ledger = new RunLedger(List.of(new RunLedger.Sent("a", "a-", 10)),
                List.of(new RunLedger.Fault("a", s(10), "kill -9 taskmanager-1")));
        for (int i = 0; i < 4; i++) result(ledger, "a-" + i, OK, 5 + i, 5.01 + i, 5.1 + i);
        result(ledger, "a-4", OK, 9, 9.5, 10.05);
        result(ledger, "a-6", DROPPED, 11, 12.4, 12.5);
        result(ledger, "a-6", OK, 11, 12.9, 13.0);
        result(ledger, "a-7", OK, 12, 12.6, 12.7);
        result(ledger, "a-8", OK, 13, 13.1, 13.2);
        result(ledger, "a-8", OK, 13, 13.25, 13.3);
        result(ledger, "a-9", OK, 14, 14.1, 14.2);
        // Foreign: another prefix, a number past the count, a number with a leading zero.
        result(ledger, "b-3", OK, 14, 14.1, 14.2);
        result(ledger, "a-10", OK, 14, 14.1, 14.2);
        result(ledger, "a-03", OK, 14, 14.1, 14.2);

        RunLedger.ScenarioReport r = ledger.report("a", S, 0.99);
        assertThat(r.sent()).isEqualTo(10);
        assertThat(r.answered()).isEqualTo(9);
        assertThat(r.lost()).isEqualTo(1);
        assertThat(r.duplicated()).isEqualTo(2);
        assertThat(r.contradictory()).isEqualTo(1);
        assertThat(r.attainmentBeforeFaults()).isEqualTo(1.0);
        assertThat(ledger.foreign()).isEqualTo(3);
        assertThat(ledger.results()).isEqualTo(14);
        assertThat(ledger.unanswered()).isEqualTo(1);

        RunLedger.FaultReport f = r.faults().get(0);
        // a-4's result came after the fault, but of a request sent before it: the first new one is a-6's DROPPED at 12.5 s.
        assertThat(f.recoverySeconds()).isCloseTo(2.5, within(1e-9));
        // Windows from 10 s: [10,11) a-5 lost (placed at 10 s, between a-4 and a-6) 0/1; [11,12) a-6 first DROPPED 0/1;
        // [12,13) 1/1; [13,14) 1/1; [14,15) 1/1: back at >= 99 % from 2 s on.
        assertThat(f.attainmentRecoverySeconds()).isEqualTo(2.0);
        assertThat(f.worstWindowAttainment()).isEqualTo(0.0);
    }

    /**
     * Two faults, 10 s and 13 s; ids every 0.5 s from 10 s; the two sent after each fault DROPPED.
     * Each fault's windows end at the next fault, so the second one's misses do not count against
     * the first's recovery.
     */
    @Test
    void eachFaultIsMeasuredUpToTheNext() {
        RunLedger ledger = new RunLedger(List.of(new RunLedger.Sent("twice", "t.", 12)),
                List.of(new RunLedger.Fault("twice", s(13), "second"), new RunLedger.Fault("twice", s(10), "first")));
        for (int i = 0; i < 12; i++) {
            double sent = 10 + 0.5 * i;
            boolean missed = i == 0 || i == 1 || i == 6 || i == 7;
            result(ledger, "t." + i, missed ? DROPPED : OK, sent, sent + 0.2, sent + 0.3);
        }
        RunLedger.ScenarioReport r = ledger.report("twice", S, 0.99);
        assertThat(r.faults()).extracting(f -> f.fault().label()).containsExactly("first", "second");
        assertThat(r.faults()).allSatisfy(f -> {
            // The request sent at the fault's instant is not after it: the next one, 0.5 s later, answered 0.3 s after that.
            assertThat(f.recoverySeconds()).isCloseTo(0.8, within(1e-9));
            assertThat(f.attainmentRecoverySeconds()).isEqualTo(1.0);
            assertThat(f.worstWindowAttainment()).isEqualTo(0.0);
        });
        assertThat(r.lost()).isZero();
        assertThat(r.duplicated()).isZero();
        // Nothing was sent before the first fault.
        assertThat(r.attainmentBeforeFaults()).isNaN();
    }

    /**
     * A JobManager's death at 10 s: ids every 0.5 s from 10.5 s. Its TaskManagers answer on for a
     * while: j-0 (sent 10.5 s) at 10.6 s, j-1 (11 s) at 11.1 s. Then nothing until the job is back:
     * j-2 to j-7 (11.5 to 14 s) at 14.50 to 14.55 s, j-8 (14.5 s) at 14.6 s, j-9 (15 s) at 15.1 s.
     * Gaps from the fault: 0.6, 0.5, then 3.4 s (11.1 to 14.5), the rest 0.5 s or less. The first
     * new result came 0.6 s after the fault; served again 4.5 s after it, after a pause of 3.4 s.
     * Counting only pauses over 4 s, there was none: served again is the first new result.
     */
    @Test
    void aJobThatAnswersOnBeforeItStopsIsServedAgainAtTheEndOfItsLongestPause() {
        RunLedger ledger = new RunLedger(List.of(new RunLedger.Sent("jm", "j-", 10)), List.of(new RunLedger.Fault("jm", s(10), "kill -9 jobmanager")));
        result(ledger, "j-0", OK, 10.5, 10.55, 10.6);
        result(ledger, "j-1", OK, 11, 11.05, 11.1);
        for (int i = 2; i <= 7; i++) result(ledger, "j-" + i, OK, 10.5 + 0.5 * i, 14.4, 14.5 + 0.01 * (i - 2));
        result(ledger, "j-8", OK, 14.5, 14.55, 14.6);
        result(ledger, "j-9", OK, 15, 15.05, 15.1);

        RunLedger.FaultReport f = ledger.report("jm", S, 0.99, 0).faults().get(0);
        assertThat(f.recoverySeconds()).isCloseTo(0.6, within(1e-9));
        assertThat(f.servedAgainSeconds()).isCloseTo(4.5, within(1e-9));
        assertThat(f.pauseSeconds()).isCloseTo(3.4, within(1e-9));

        RunLedger.FaultReport longer = ledger.report("jm", S, 0.99, 0, 4 * S).faults().get(0);
        assertThat(longer.servedAgainSeconds()).isCloseTo(0.6, within(1e-9));
        assertThat(longer.pauseSeconds()).isZero();
        assertThatThrownBy(() -> ledger.report("jm", S, 0.99, 0, 0)).hasMessage("pause must be > 0 us");
    }

    @Test
    void requestsSentJustBeforeTheNextFaultCountForItNotForTheRecoveryFromThisOne() {
        // Faults at 10 s and 14 s; requests every 0.5 s from 10 s. Those sent at 10 and 10.5 s are
        // dropped (the first fault), and those sent at 13 and 13.5 s too: in flight when the second
        // fault strikes. Measured up to the next fault, the first never recovers (window 3, from
        // 13 s, is all dropped); with a settle of 1 s its horizon is 13 s and it recovers at 1 s.
        RunLedger ledger = new RunLedger(List.of(new RunLedger.Sent("twice", "t.", 10)),
                List.of(new RunLedger.Fault("twice", s(10), "first"), new RunLedger.Fault("twice", s(14), "second")));
        for (int i = 0; i < 10; i++) {
            double sent = 10 + 0.5 * i;
            boolean missed = i == 0 || i == 1 || i == 6 || i == 7;
            result(ledger, "t." + i, missed ? DROPPED : OK, sent, sent + 0.2, sent + 0.3);
        }
        assertThat(ledger.report("twice", S, 0.99).faults().get(0).attainmentRecoverySeconds()).isNull();
        assertThat(ledger.report("twice", S, 0.99, S).faults().get(0).attainmentRecoverySeconds()).isEqualTo(1.0);
        assertThatThrownBy(() -> ledger.report("twice", S, 0.99, -1)).hasMessage("settle must be >= 0 us");
    }

    /**
     * Faults at 10 s and 20 s; requests every 0.5 s from 10 s to 24.5 s. After the first, those
     * sent at 10 to 12 s are answered at 12.5 s, the rest 0.1 s after they are sent, until the
     * second: the one sent at 19.5 s and every later one are answered from 24.98 s, 10 ms apart. The
     * first fault is served again at 2.5 s; the 5.88 s gap from 19.1 to 24.98 s, though its request
     * was sent before the second fault, is the second's pause (served again at 5 s), not the first's.
     */
    @Test
    void aPauseThatBeginsAtTheNextFaultIsThatFaultsNotThisOnes() {
        RunLedger ledger = new RunLedger(List.of(new RunLedger.Sent("two", "p.", 30)),
                List.of(new RunLedger.Fault("two", s(10), "first"), new RunLedger.Fault("two", s(20), "second")));
        for (int i = 0; i < 30; i++) {
            double sent = 10 + 0.5 * i;
            double emitted = i <= 4 ? 12.5 : i <= 18 ? sent + 0.1 : 25.0 + 0.01 * (i - 21);
            result(ledger, "p." + i, OK, sent, emitted - 0.05, emitted);
        }
        List<RunLedger.FaultReport> faults = ledger.report("two", S, 0.99, 0).faults();
        assertThat(faults.get(0).servedAgainSeconds()).isCloseTo(2.5, within(1e-9));
        assertThat(faults.get(0).pauseSeconds()).isCloseTo(2.5, within(1e-9));
        assertThat(faults.get(1).servedAgainSeconds()).isCloseTo(5.0, within(1e-9));
        assertThat(faults.get(1).pauseSeconds()).isCloseTo(5.0, within(1e-9));
    }

    @Test
    void attainmentThatEndsBelowTheTargetNeverRecovered() {
        RunLedger ledger = new RunLedger(List.of(new RunLedger.Sent("c", "c-", 3)), List.of(new RunLedger.Fault("c", s(1), "stop")));
        result(ledger, "c-0", OK, 1.2, 1.3, 1.4);
        result(ledger, "c-1", OK, 2.2, 2.3, 2.4);
        result(ledger, "c-2", DROPPED, 3.2, 3.3, 3.4);
        RunLedger.FaultReport f = ledger.report("c", S, 0.99).faults().get(0);
        assertThat(f.attainmentRecoverySeconds()).isNull();
        // With a target of one half, the last window (0/1) still falls short; with 0 it would not.
        assertThat(ledger.report("c", 3 * S, 0.5).faults().get(0).attainmentRecoverySeconds()).isEqualTo(0.0);
    }

    @Test
    void noResultAfterTheFaultIsNoRecovery() {
        RunLedger ledger = new RunLedger(List.of(new RunLedger.Sent("d", "d-", 2)), List.of(new RunLedger.Fault("d", s(5), "kill")));
        result(ledger, "d-0", OK, 1, 1.1, 1.2);
        RunLedger.ScenarioReport r = ledger.report("d", S, 0.99);
        assertThat(r.lost()).isEqualTo(1);
        assertThat(r.faults().get(0).recoverySeconds()).isNull();
        assertThat(r.faults().get(0).servedAgainSeconds()).isNull();
        // d-1 is placed at d-0's time (no later neighbour), before the fault: no window after it holds a request.
        assertThat(r.faults().get(0).attainmentRecoverySeconds()).isNull();
        assertThat(r.faults().get(0).worstWindowAttainment()).isNaN();
        assertThat(r.attainmentBeforeFaults()).isEqualTo(0.5);
    }

    @Test
    void idsWithoutAResultArePlacedBetweenTheirNeighbours() {
        assertThat(RunLedger.placedSendTimes(new long[] {NONE, 100, NONE, NONE, NONE, 500, NONE}))
                .containsExactly(100, 100, 200, 300, 400, 500, 500);
        assertThat(RunLedger.placedSendTimes(new long[] {NONE, NONE})).containsExactly(NONE, NONE);
    }

    @Test
    void badRangesAndFaultsAreRefused() {
        assertThatThrownBy(() -> new RunLedger.Sent("a", "a1", 5)).hasMessageContaining("end in a digit");
        assertThatThrownBy(() -> new RunLedger(List.of(new RunLedger.Sent("a", "x-", 1), new RunLedger.Sent("b", "x-", 1)), List.of()))
                .hasMessageContaining("used by two scenarios");
        assertThatThrownBy(() -> new RunLedger(List.of(new RunLedger.Sent("a", "x-", 1)), List.of(new RunLedger.Fault("b", 1, "f"))))
                .hasMessageContaining("which sent nothing");
    }

    @Test
    void theFaultLogKeepsLabelsAndSkipsComments() {
        List<RunLedger.Fault> faults = FaultLog.parse(List.of("# scenario at label", "", "tm-kill 1795466337384886 kill -9 taskmanager-1"));
        assertThat(faults).containsExactly(new RunLedger.Fault("tm-kill", 1795466337384886L, "kill -9 taskmanager-1"));
        assertThatThrownBy(() -> FaultLog.parse(List.of("a 12", "b later kill"))).hasMessageStartingWith("line 2:");
    }

    @Test
    void lostIdsFailAlwaysAndDuplicatesOnlyWithExactlyOnce() {
        RunLedger.ScenarioReport clean = new RunLedger.ScenarioReport("x", 10, 10, 0, 3, 1, 1.0, List.of());
        RunLedger.ScenarioReport lost = new RunLedger.ScenarioReport("x", 10, 9, 1, 0, 0, 1.0, List.of());
        assertThat(CheckResultsCommand.hardTargetsMissed(clean, false)).isEmpty();
        assertThat(CheckResultsCommand.hardTargetsMissed(clean, true)).containsExactly("3 ids duplicated with exactly-once delivery");
        assertThat(CheckResultsCommand.hardTargetsMissed(lost, false)).containsExactly("1 of 10 ids lost");
    }
}
