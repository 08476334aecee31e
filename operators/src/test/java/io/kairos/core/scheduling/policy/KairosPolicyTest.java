package io.kairos.core.scheduling.policy;

import io.kairos.core.device.DeviceView;
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
class KairosPolicyTest {

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
}
