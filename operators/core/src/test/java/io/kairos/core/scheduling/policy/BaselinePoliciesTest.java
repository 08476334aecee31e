package io.kairos.core.scheduling.policy;

import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.request.Request;
import io.kairos.core.scheduling.Dispatch;
import io.kairos.core.scheduling.GroupScheduler;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.core.scheduling.SchedulingPolicy;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Random;

import static io.kairos.core.scheduling.policy.SchedulingFixtures.CATALOG;
import static io.kairos.core.scheduling.policy.SchedulingFixtures.device;
import static io.kairos.core.scheduling.policy.SchedulingFixtures.ids;
import static io.kairos.core.scheduling.policy.SchedulingFixtures.req;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

/** FIFO, EDF, static batching and work-conserving batching: the baselines of the policy experiments. */
class BaselinePoliciesTest {

    private static GroupScheduler scheduler(SchedulingPolicy policy, PolicyParams params, DeviceView... devices) {
        return new GroupScheduler("g", CATALOG, List.of(devices), policy, params);
    }

    @Test
    void fifoServesTheOldestFirstAndMissesTheTightDeadline() {
        // The issue's case on one device: A (10 ms, SLO 100) arrives at 0, B (1 ms, SLO 10) at 1 us.
        // FIFO starts A on [0, 10 ms), so B could start at 10 ms and end at 11 ms > 10 ms: it is shed
        // when the device frees. (Clockwork, LatestStartClockworkTest, runs B first and meets both.)
        GroupScheduler g = scheduler(OneAtATimePolicy.fifo(), PolicyParams.NONE, device(0));
        g.admit(req("a", "A", 0, 100_000));
        g.admit(req("b", "B", 1, 10_001));
        GroupScheduler.Outcome o = g.schedule(1);
        assertThat(o.dispatches()).extracting(Dispatch::model, Dispatch::predictedStartMicros).containsExactly(tuple("A", 1L));
        assertThat(o.nextWakeMicros()).isEqualTo(9_002); // B's last chance: 10_001 - 1_000 + 1
        GroupScheduler.Outcome later = g.schedule(9_002);
        assertThat(later.drops()).extracting(d -> d.request().id()).containsExactly("b");
    }

    @Test
    void edfServesTheEarliestDeadlineFirstWithoutBatching() {
        GroupScheduler g = scheduler(OneAtATimePolicy.edf(), PolicyParams.NONE, device(0));
        g.admit(req("a", "A", 0, 100_000));
        g.admit(req("b", "B", 1, 10_001));
        g.admit(req("r1", "R", 2, 50_000));
        g.admit(req("r2", "R", 3, 50_000));
        // Idle device at 3 us: B first (deadline 10 ms); the device is then busy, nothing else starts.
        GroupScheduler.Outcome o = g.schedule(3);
        assertThat(o.dispatches()).extracting(Dispatch::model, Dispatch::size).containsExactly(tuple("B", 1));
        assertThat(o.nextWakeMicros()).isEqualTo(1_003);
        // At 1,003 us: R's head (deadline 50 ms) before A (100 ms), one request, not a batch of two.
        GroupScheduler.Outcome next = g.schedule(1_003);
        assertThat(next.dispatches()).extracting(Dispatch::model, Dispatch::size).containsExactly(tuple("R", 1));
        assertThat(ids(next.dispatches().get(0))).containsExactly("r1");
    }

    @Test
    void staticBatchingWaitsForAFullBatch() {
        GroupScheduler g = scheduler(new StaticBatchPolicy(), PolicyParams.of(Map.of("batch", "4")), device(0), device(1));
        for (int i = 0; i < 3; i++) g.admit(req("r" + i, "R", i, 1_000_000));
        assertThat(g.schedule(10).dispatches()).isEmpty(); // 3 < 4: no partial batch
        for (int i = 3; i < 9; i++) g.admit(req("r" + i, "R", i, 1_000_000));
        // 9 queued: two batches of 4 on the two idle devices, one request left waiting.
        GroupScheduler.Outcome o = g.schedule(20);
        assertThat(o.dispatches()).extracting(Dispatch::device, Dispatch::size).containsExactly(tuple(0, 4), tuple(1, 4));
        assertThat(g.pendingCount()).isEqualTo(1);
    }

    @Test
    void workConservingTakesTheLargestBatchThatStillMeetsTheHeadDeadline() {
        // 16 R requests with deadline 10 ms, device idle at 0: tau(8) = 8.3 ms fits, tau(16) = 14.7 ms does not.
        GroupScheduler g = scheduler(new WorkConservingPolicy(), PolicyParams.NONE, device(0));
        for (int i = 0; i < 16; i++) g.admit(req("r" + i, "R", 0, 10_000));
        GroupScheduler.Outcome o = g.schedule(0);
        assertThat(o.dispatches()).extracting(Dispatch::size, Dispatch::predictedLatencyMicros).containsExactly(tuple(8, 8_300L));
        // It never waits: 3 requests alone on an idle device go out at once as a batch of 2 (3 is no allowed size).
        GroupScheduler h = scheduler(new WorkConservingPolicy(), PolicyParams.NONE, device(0));
        for (int i = 0; i < 3; i++) h.admit(req("q" + i, "R", 0, 1_000_000));
        assertThat(h.schedule(0).dispatches()).extracting(Dispatch::size).containsExactly(2);
    }

    @Test
    void everyBaselineEndsEachRequestExactlyOnceUnderRandomLoad() {
        ModelCatalog catalog = ModelCatalog.builtIn();
        List<String> models = catalog.names();
        for (SchedulingPolicy policy : List.of(OneAtATimePolicy.fifo(), OneAtATimePolicy.edf(), new StaticBatchPolicy(), new WorkConservingPolicy())) {
            for (long seed = 1; seed <= 4; seed++) {
                Random rnd = new Random(seed);
                List<DeviceView> devices = GroupSimulation.devices(rnd, 2 + rnd.nextInt(3), models);
                List<Request> arrivals = GroupSimulation.randomLoad(rnd, 2000, models);
                // GroupSimulation asserts conservation, no overlapping bookings and feasible shedding as it runs.
                GroupSimulation sim = new GroupSimulation().run(catalog, devices, policy, PolicyParams.NONE, arrivals);
                assertThat(sim.dispatched.size() + sim.dropped.size()).as("%s seed %d", policy.name(), seed).isPositive();
                for (GroupSimulation.Made m : sim.dispatched) {
                    if (!(policy instanceof WorkConservingPolicy) && !(policy instanceof StaticBatchPolicy)) {
                        assertThat(m.dispatch().size()).as(policy.name()).isEqualTo(1);
                    }
                    if (policy instanceof StaticBatchPolicy) assertThat(m.dispatch().size()).isEqualTo(Math.min(8, catalog.get(m.dispatch().model()).latency().maxBatch()));
                }
            }
        }
    }

    @Test
    void everyPolicyIsKnownByName() {
        assertThat(Policies.names()).containsExactly("clockwork", "edf", "fifo", "flex", "kairos", "random", "rl", "smdp", "static", "triton", "work-conserving");
        for (String name : Policies.names()) assertThat(Policies.create(name).name()).isEqualTo(name);
    }
}
