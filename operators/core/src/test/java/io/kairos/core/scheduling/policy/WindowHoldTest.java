package io.kairos.core.scheduling.policy;

import io.kairos.core.request.Request;
import io.kairos.core.result.Completion;
import io.kairos.core.result.ResultStatus;
import io.kairos.core.scheduling.ConfiguredPolicy;
import io.kairos.core.scheduling.Dispatch;
import io.kairos.core.scheduling.GroupScheduler;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.core.scheduling.RequestQueue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.kairos.core.scheduling.policy.SchedulingFixtures.CATALOG;
import static io.kairos.core.scheduling.policy.SchedulingFixtures.device;
import static io.kairos.core.scheduling.policy.SchedulingFixtures.droppedIds;
import static io.kairos.core.scheduling.policy.SchedulingFixtures.ids;
import static io.kairos.core.scheduling.policy.SchedulingFixtures.req;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * Window SLOs: the group's scheduler holds a request with a window out of its queues until its
 * window start less its model's latency alone on the fastest device, for every policy alike, and
 * a result is met only within [window start, deadline]. R (the fixtures' ResNet50) takes
 * tau(1) = 0.8 + 1.9 = 2.7 ms alone.
 */
class WindowHoldTest {

    private static Request windowed(String id, String model, long arrival, long windowStart, long deadline) {
        return new Request(id, model, arrival, deadline, windowStart, null);
    }

    private static GroupScheduler clockwork() {
        return new GroupScheduler("g", CATALOG, List.of(device(0)), LatestStartPolicy.clockwork(), PolicyParams.NONE);
    }

    @Test
    void heldUntilWindowStartLessLatencyAloneThenServedEndingAtTheWindowStart() {
        // Arrives at 0, window [100 ms, 1000 ms]. Release = 100,000 - 2,700 = 97,300 us.
        // Clockwork on an idle device starts it alone at its release: it ends at 97,300 + 2,700
        // = 100,000 us, the window start itself: met.
        GroupScheduler g = clockwork();
        g.admit(windowed("w", "R", 0, 100_000, 1_000_000));

        GroupScheduler.Outcome at0 = g.schedule(0);
        assertThat(at0.dispatches()).isEmpty();
        assertThat(at0.nextWakeMicros()).isEqualTo(97_300);
        assertThat(g.pendingCount()).isEqualTo(1);
        assertThat(g.heldCount()).isEqualTo(1);
        assertThat(g.pendingQueues()).as("held out of every queue a policy sees").isEmpty();

        assertThat(g.schedule(97_299).dispatches()).isEmpty();
        GroupScheduler.Outcome released = g.schedule(97_300);
        assertThat(released.dispatches()).hasSize(1);
        Dispatch d = released.dispatches().get(0);
        assertThat(ids(d)).containsExactly("w");
        assertThat(d.predictedStartMicros()).isEqualTo(97_300);
        assertThat(d.predictedEndMicros()).isEqualTo(100_000);
        assertThat(Completion.status(d.predictedEndMicros(), 100_000, 1_000_000)).isEqualTo(ResultStatus.OK);
        assertThat(g.heldCount()).isZero();
    }

    @Test
    void aRequestWithoutAWindowBesideItGoesAtOnce() {
        // "n" (no window, deadline 20 ms) is dispatched at 0 as it always was; "w" stays held.
        GroupScheduler g = clockwork();
        g.admit(windowed("w", "R", 0, 100_000, 1_000_000));
        g.admit(req("n", "R", 0, 20_000));
        GroupScheduler.Outcome o = g.schedule(0);
        assertThat(o.dispatches()).hasSize(1);
        assertThat(ids(o.dispatches().get(0))).containsExactly("n");
        assertThat(o.dispatches().get(0).predictedStartMicros()).isZero();
        assertThat(o.nextWakeMicros()).isEqualTo(97_300);
    }

    @Test
    void aWindowThatStartsWithinTheLatencyAloneIsQueuedAtOnce() {
        // Window start 2 ms < tau(1) = 2.7 ms: release -0.7 ms, before the arrival: queued as any other.
        GroupScheduler g = clockwork();
        g.admit(windowed("w", "R", 0, 2_000, 50_000));
        assertThat(g.heldCount()).isZero();
        GroupScheduler.Outcome o = g.schedule(0);
        assertThat(o.dispatches()).hasSize(1);
        assertThat(ids(o.dispatches().get(0))).containsExactly("w");
    }

    @Test
    void heldRequestsLeaveInReleaseOrderAndCountTowardMaxPending() {
        // max_pending 2. w1 (window 50 ms, release 47,300) and w2 (window 30 ms, release 27,300)
        // are held; w3 finds the group full (2 held) and is dropped "queue full".
        GroupScheduler g = new GroupScheduler("g", CATALOG, List.of(device(0)),
                ConfiguredPolicy.of("g", LatestStartPolicy.clockwork(), PolicyParams.of(Map.of(GroupScheduler.MAX_PENDING, "2"))));
        g.admit(windowed("w1", "R", 0, 50_000, 500_000));
        g.admit(windowed("w2", "R", 0, 30_000, 500_000));
        g.admit(windowed("w3", "R", 0, 40_000, 500_000));
        GroupScheduler.Outcome o = g.schedule(0);
        assertThat(droppedIds(o)).containsExactly("w3");
        assertThat(o.drops().get(0).reason()).startsWith("queue full");
        assertThat(o.nextWakeMicros()).isEqualTo(27_300);
        GroupScheduler.Outcome first = g.schedule(27_300);
        assertThat(first.dispatches()).hasSize(1);
        assertThat(ids(first.dispatches().get(0))).containsExactly("w2");
        assertThat(first.nextWakeMicros()).isEqualTo(47_300);
        assertThat(g.pendingRequests()).extracting(Request::id).containsExactly("w1");
    }

    @Test
    void aWindowMarginReleasesThatMuchLaterAndANegativeOneIsRefused() {
        // window_margin_ms 0.5: release 100,000 - 2,700 + 500 = 97,800; the batch of one then ends
        // at 100,500, 500 us inside the window, room for a batch up to 500 us faster than profiled.
        GroupScheduler g = new GroupScheduler("g", CATALOG, List.of(device(0)),
                ConfiguredPolicy.of("g", LatestStartPolicy.clockwork(), PolicyParams.of(Map.of(ConfiguredPolicy.WINDOW_MARGIN, "0.5"))));
        g.admit(windowed("w", "R", 0, 100_000, 1_000_000));
        assertThat(g.schedule(0).nextWakeMicros()).isEqualTo(97_800);
        assertThat(g.schedule(97_799).dispatches()).isEmpty();
        Dispatch d = g.schedule(97_800).dispatches().get(0);
        assertThat(d.predictedEndMicros()).isEqualTo(100_500);
        assertThatThrownBy(() -> ConfiguredPolicy.of("g", LatestStartPolicy.clockwork(), PolicyParams.of(Map.of(ConfiguredPolicy.WINDOW_MARGIN, "-1"))))
                .hasMessageContaining("window_margin_ms");
    }

    @Test
    void withoutTheHoldAWindowedRequestIsQueuedAtOnceAndAPolicyThatDoesNotWaitAnswersItEarly() {
        // window_hold false: "w" (window [100 ms, 1000 ms]) joins its queue on arrival; clockwork
        // starts it alone at 0 on the idle device, ending at 2,700 us, 97.3 ms before its window.
        GroupScheduler g = new GroupScheduler("g", CATALOG, List.of(device(0)),
                ConfiguredPolicy.of("g", LatestStartPolicy.clockwork(), PolicyParams.of(Map.of(ConfiguredPolicy.WINDOW_HOLD, "false"))));
        g.admit(windowed("w", "R", 0, 100_000, 1_000_000));
        assertThat(g.heldCount()).isZero();
        assertThat(g.pendingQueues()).as("in its queue, where a policy sees it").hasSize(1);
        GroupScheduler.Outcome o = g.schedule(0);
        assertThat(o.dispatches()).hasSize(1);
        Dispatch d = o.dispatches().get(0);
        assertThat(ids(d)).containsExactly("w");
        assertThat(d.predictedEndMicros()).isEqualTo(2_700);
        assertThat(Completion.status(d.predictedEndMicros(), 100_000, 1_000_000)).isEqualTo(ResultStatus.EARLY);
        assertThatThrownBy(() -> ConfiguredPolicy.of("g", LatestStartPolicy.clockwork(), PolicyParams.of(Map.of(ConfiguredPolicy.WINDOW_HOLD, "maybe"))))
                .hasMessageContaining("window_hold");
    }

    @Test
    void handOverTakesTheHeldRequestsOfTheModelToo() {
        GroupScheduler g = clockwork();
        g.admit(windowed("w", "R", 0, 100_000, 1_000_000));
        g.admit(windowed("other", "R2", 0, 100_000, 1_000_000));
        assertThat(g.handOver("R")).extracting(Request::id).containsExactly("w");
        assertThat(g.pendingCount()).isEqualTo(1);
        assertThat(g.drainPending()).extracting(Request::id).containsExactly("other");
        assertThat(g.pendingCount()).isZero();
    }

    static List<String> policies() {
        return Policies.names();
    }

    @ParameterizedTest
    @MethodSource("policies")
    void noPolicyServesAHeldRequestBeforeItsRelease(String name) {
        // Every policy alike: nothing of "w" runs before 97,300 us, whatever the policy would like;
        // from then on it is queued as any request, and whatever batch it goes in ends no earlier
        // than the window start (the batch takes at least tau(1) from its start).
        ConfiguredPolicy configured;
        try {
            configured = Policies.configure("g", name, PolicyParams.NONE);
        } catch (IllegalArgumentException needsParameters) {
            assumeThat(needsParameters).as(name + " needs parameters").isNull();
            return;
        }
        GroupScheduler g = new GroupScheduler("g", CATALOG, List.of(device(0)), configured);
        g.admit(windowed("w", "R", 0, 100_000, 1_000_000));
        List<Dispatch> before = new ArrayList<>();
        for (long t = 0; t < 97_300; t += 1_000) before.addAll(g.schedule(t).dispatches());
        assertThat(before).isEmpty();
        assertThat(g.pendingQueues()).isEmpty();
        List<Dispatch> after = new ArrayList<>();
        for (long t = 97_300; t <= 1_000_000 && after.isEmpty(); t += 1_000) {
            after.addAll(g.schedule(t).dispatches());
        }
        for (Dispatch d : after) assertThat(d.predictedEndMicros()).isGreaterThanOrEqualTo(100_000);
    }

    @Test
    void metEarlyAndLateByHand() {
        // Window [100,000, 1,000,000] us.
        assertThat(Completion.status(100_000, 100_000, 1_000_000)).isEqualTo(ResultStatus.OK);
        assertThat(Completion.status(1_000_000, 100_000, 1_000_000)).isEqualTo(ResultStatus.OK);
        assertThat(Completion.status(99_999, 100_000, 1_000_000)).isEqualTo(ResultStatus.EARLY);
        assertThat(Completion.status(1_000_001, 100_000, 1_000_000)).isEqualTo(ResultStatus.LATE);
        // No window: as before, OK up to the deadline, whatever how soon.
        assertThat(Completion.status(5, Request.NO_WINDOW, 1_000_000)).isEqualTo(ResultStatus.OK);
        assertThat(Completion.earlyReason(99_000, 100_000)).startsWith("done 1000 us before its window start");
    }
}
