package io.kairos.core.scheduling.policy;

import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.scheduling.GroupScheduler;
import io.kairos.core.scheduling.PolicyParams;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static io.kairos.core.scheduling.policy.SchedulingFixtures.CATALOG;
import static io.kairos.core.scheduling.policy.SchedulingFixtures.device;
import static io.kairos.core.scheduling.policy.SchedulingFixtures.ids;
import static io.kairos.core.scheduling.policy.SchedulingFixtures.req;
import static org.assertj.core.api.Assertions.assertThat;

/** R: tau(b) = 0.8 b + 1.9 ms at 1, 2, 4, 8, 16 (2.7, 3.5, 5.1, 8.3, 14.7 ms). */
class LatestStartKairosTest {

    private static GroupScheduler scheduler(String policy, PolicyParams params, DeviceView... devices) {
        return new GroupScheduler("g", CATALOG, List.of(devices), Policies.create(policy), params);
    }

    @Test
    void aBusyDeviceGetsNoBatchUntilItIsFreeSoWhatArrivesMeanwhileJoinsTheBatch() {
        // Device busy with r0 until 2700. r1 arrives at 100, r2..r4 at 1000..1200, all SLO 20 ms.
        // Clockwork (5 ms lookahead) books r1 alone at 100 (2600 us booked < 5 ms): 2700-5400.
        // Kairos waits for the device to be free at 2700 and then runs r1..r4 as one batch of 4.
        for (String policy : List.of("clockwork", "kairos")) {
            GroupScheduler g = scheduler(policy, PolicyParams.NONE, device(0));
            g.admit(req("r0", "R", 0, 20_000));
            assertThat(g.schedule(0).dispatches()).hasSize(1);
            g.admit(req("r1", "R", 100, 20_100));
            GroupScheduler.Outcome at100 = g.schedule(100);
            if (policy.equals("clockwork")) {
                assertThat(at100.dispatches()).singleElement().satisfies(d -> assertThat(ids(d)).containsExactly("r1"));
            } else {
                assertThat(at100.dispatches()).isEmpty();
                assertThat(at100.nextWakeMicros()).isEqualTo(2700);
                for (int i = 2; i <= 4; i++) g.admit(req("r" + i, "R", 900 + 100 * i, 20_900 + 100 * i));
                GroupScheduler.Outcome at2700 = g.schedule(2700);
                assertThat(at2700.dispatches()).singleElement().satisfies(d -> {
                    assertThat(ids(d)).containsExactly("r1", "r2", "r3", "r4");
                    assertThat(d.predictedStartMicros()).isEqualTo(2700);
                    assertThat(d.predictedEndMicros()).isEqualTo(7800);
                });
            }
        }
    }

    @Test
    void threeRequestsRunPaddedToFourButFiveDoNotRunPaddedToEight() {
        // 3 requests: padded to 4 they take 5.1 ms, 0.59 per ms, against 2 in 3.5 ms, 0.57 per ms: one batch of 3.
        GroupScheduler three = scheduler("kairos", PolicyParams.NONE, device(0));
        for (int i = 0; i < 3; i++) three.admit(req("a" + i, "R", 0, 50_000));
        assertThat(three.schedule(0).dispatches()).singleElement().satisfies(d -> {
            assertThat(d.size()).isEqualTo(3);
            assertThat(d.predictedLatencyMicros()).isEqualTo(5100);
        });
        // Clockwork runs the 2 it can batch exactly and leaves one.
        GroupScheduler clockwork = scheduler("clockwork", PolicyParams.NONE, device(0));
        for (int i = 0; i < 3; i++) clockwork.admit(req("a" + i, "R", 0, 50_000));
        assertThat(clockwork.schedule(0).dispatches().get(0).size()).isEqualTo(2);
        // 5 requests: padded to 8 they take 8.3 ms, 0.60 per ms, against 4 in 5.1 ms, 0.78 per ms: a batch of 4.
        GroupScheduler five = scheduler("kairos", PolicyParams.NONE, device(0));
        for (int i = 0; i < 5; i++) five.admit(req("b" + i, "R", 0, 50_000));
        assertThat(five.schedule(0).dispatches().get(0).size()).isEqualTo(4);
    }

    @Test
    void paddingStillRespectsTheHeadsDeadline() {
        // 3 requests with deadline 4 ms: a batch of 4 (5.1 ms) would be late, 2 (3.5 ms) is not.
        GroupScheduler g = scheduler("kairos", PolicyParams.NONE, device(0));
        for (int i = 0; i < 3; i++) g.admit(req("a" + i, "R", 0, 4_000));
        assertThat(g.schedule(0).dispatches()).singleElement().satisfies(d -> assertThat(d.size()).isEqualTo(2));
    }

    @Test
    void aLookaheadCoversAHandOverDelay() {
        // With lookahead_ms = 1, a device free at 2700 takes its next batch from 1700 on, strictly after.
        GroupScheduler g = scheduler("kairos", PolicyParams.of(Map.of("lookahead_ms", "1")), device(0));
        g.admit(req("r0", "R", 0, 20_000));
        g.schedule(0);
        g.admit(req("r1", "R", 100, 20_100));
        assertThat(g.schedule(100).nextWakeMicros()).isEqualTo(1700);
        assertThat(g.schedule(1701).dispatches()).singleElement().satisfies(d -> assertThat(d.predictedStartMicros()).isEqualTo(2700));
    }

    /** What each policy serves, in the end, of what was admitted at 0, scheduling on every batch end. */
    private static int served(String policy, List<io.kairos.core.request.Request> requests) {
        GroupScheduler g = scheduler(policy, PolicyParams.NONE, device(0));
        requests.forEach(g::admit);
        int served = 0;
        long now = 0;
        while (g.pendingCount() > 0) {
            GroupScheduler.Outcome o = g.schedule(now);
            for (var d : o.dispatches()) {
                for (var r : d.requests()) if (d.predictedEndMicros() <= r.deadlineMicros()) served++;
                now = Math.max(now, d.predictedEndMicros());
            }
            if (o.dispatches().isEmpty()) now = Math.max(now + 1, Math.min(o.nextWakeMicros(), now + 1_000_000));
        }
        return served;
    }

    @Test
    void behindABatchOfSixteenRunsBeforeALoneUrgentRequest() {
        // R2: one request, deadline 2700 (latest start 0). R: 16 requests, deadline 15000 (batch 16: latest start 300).
        // Fluid test: R2's 2.7 ms are done by 2700, but R2 and R's 14.7 ms end at 17400 > 15000: behind.
        // 16 in 14.7 ms serve 2.94 times as many per ms as 1 in 2.7 ms: Kairos runs the 16 and R2 expires.
        // Clockwork runs R2 first (0-2700), then R's 8 (2700-11000), then 2 (11000-14500): 11 served, against 16.
        List<io.kairos.core.request.Request> load = new java.util.ArrayList<>();
        load.add(req("u", "R2", 0, 2_700));
        for (int i = 0; i < 16; i++) load.add(req("r" + i, "R", 0, 15_000));
        GroupScheduler g = scheduler("kairos", PolicyParams.NONE, device(0));
        load.forEach(g::admit);
        assertThat(g.schedule(0).dispatches()).singleElement().satisfies(d -> {
            assertThat(d.model()).isEqualTo("R");
            assertThat(d.size()).isEqualTo(16);
        });
        assertThat(served("kairos", load)).isEqualTo(16);
        assertThat(served("clockwork", load)).isEqualTo(11);
        // With throughput-first off, Kairos is EDF like Clockwork.
        GroupScheduler off = scheduler("kairos", PolicyParams.of(Map.of("efficiency_gain", "0")), device(0));
        load.forEach(off::admit);
        assertThat(off.schedule(0).dispatches().get(0).model()).isEqualTo("R2");
    }

    @Test
    void theFluidTestDecidesWhetherTheGroupIsBehind() {
        // u: deadline 2700. Two of R with deadline 3600: 2.7 + 3.5 ms of work end at 6200 > 3600, behind;
        // 2 in 3.5 ms are 1.54 times as efficient as 1 in 2.7 ms: the two run, u is lost; EDF would serve only u.
        List<io.kairos.core.request.Request> behind = List.of(req("u", "R2", 0, 2_700), req("a", "R", 0, 3_600), req("b", "R", 0, 3_600));
        GroupScheduler g = scheduler("kairos", PolicyParams.NONE, device(0));
        behind.forEach(g::admit);
        assertThat(g.schedule(0).dispatches()).singleElement().satisfies(d -> assertThat(ids(d)).containsExactly("a", "b"));
        assertThat(served("kairos", behind)).isEqualTo(2);
        assertThat(served("clockwork", behind)).isEqualTo(1);
        // With deadline 6300 the work fits (6200 <= 6300): not behind, u first, then both, all 3 served.
        List<io.kairos.core.request.Request> inTime = List.of(req("u", "R2", 0, 2_700), req("a", "R", 0, 6_300), req("b", "R", 0, 6_300));
        GroupScheduler h = scheduler("kairos", PolicyParams.NONE, device(0));
        inTime.forEach(h::admit);
        assertThat(h.schedule(0).dispatches()).singleElement().satisfies(d -> assertThat(ids(d)).containsExactly("u"));
        assertThat(served("kairos", inTime)).isEqualTo(3);
        // Two devices halve the work: 3100 <= 3600, not behind, u on one and the two on the other.
        GroupScheduler two = scheduler("kairos", PolicyParams.NONE, device(0), device(1));
        behind.forEach(two::admit);
        assertThat(two.schedule(0).dispatches()).hasSize(2);
        // A gain required above 1.54 keeps EDF even behind.
        GroupScheduler strict = scheduler("kairos", PolicyParams.of(Map.of("efficiency_gain", "1.6")), device(0));
        behind.forEach(strict::admit);
        assertThat(strict.schedule(0).dispatches().get(0).model()).isEqualTo("R2");
    }

    @Test
    void anEfficiencyGainBelowOneIsRefused() {
        // Refused when the policy is set, not on the first arrival.
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> scheduler("kairos", PolicyParams.of(Map.of("efficiency_gain", "0.5")), device(0)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("serving group 'g': kairos parameter 'efficiency_gain' must be 0 (off) or at least 1, got '0.5'");
    }
}
