package io.kairos.testbed.bench;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** One rule judges a trial of either path; each way of failing it, worked out for a 4-second trial (400 ms of slack). */
class PayloadSweepJudgeTest {
    private static final long TRIAL = 4_000_000;

    @Test
    void aTrialWhoseRequestsAllCameBackServedOnTimeHoldsAtTheRateTheSenderAchieved() {
        RateSearch.Outcome o = PayloadSweep.judge(1_000, 3_960, 3_960, 0, 3_960_000, TRIAL, 20_000, 15_000);
        assertThat(o.held()).isTrue();
        assertThat(o.achievedPerSecond()).isEqualTo(1_000);
    }

    @Test
    void eachWayOfFailingIsNamed() {
        assertThat(PayloadSweep.judge(1_000, 4_000, 3_999, 0, 4_000_000, TRIAL, 20_000, 15_000).why()).isEqualTo("1 of 4000 not back");
        assertThat(PayloadSweep.judge(1_000, 4_000, 4_000, 3, 4_000_000, TRIAL, 20_000, 15_000).why()).isEqualTo("3 not served");
        // Sending took 4.5 s for 4 s of schedule: more than 400 ms behind.
        RateSearch.Outcome behind = PayloadSweep.judge(1_000, 4_000, 4_000, 0, 4_500_000, TRIAL, 20_000, 15_000);
        assertThat(behind.why()).isEqualTo("sender behind (889/s)");
        assertThat(behind.held()).isFalse();
        assertThat(PayloadSweep.judge(1_000, 4_000, 4_000, 0, 4_000_000, TRIAL, 1_000_000, 15_000).why()).isEqualTo("p99 1000 ms");
        // A backlog that took 401 ms to clear after the last send was growing.
        assertThat(PayloadSweep.judge(1_000, 4_000, 4_000, 0, 4_000_000, TRIAL, 300_000, 401_000).why()).isEqualTo("backlog cleared in 401 ms");
    }

    @Test
    void theBoundsThemselvesStillHold() {
        assertThat(PayloadSweep.judge(1_000, 4_400, 4_400, 0, 4_400_000, TRIAL, 999_999, 400_000).held()).isTrue();
    }
}
