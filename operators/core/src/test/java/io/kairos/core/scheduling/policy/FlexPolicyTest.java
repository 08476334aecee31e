package io.kairos.core.scheduling.policy;

import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.model.LatencyProfile;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.request.Request;
import io.kairos.core.scheduling.Dispatch;
import io.kairos.core.scheduling.GroupScheduler;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.core.scheduling.SchedulingPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static io.kairos.core.scheduling.policy.SchedulingFixtures.CATALOG;
import static io.kairos.core.scheduling.policy.SchedulingFixtures.device;
import static io.kairos.core.scheduling.policy.SchedulingFixtures.droppedIds;
import static io.kairos.core.scheduling.policy.SchedulingFixtures.ids;
import static io.kairos.core.scheduling.policy.SchedulingFixtures.req;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;

/**
 * Shepherd's Flex. Latencies (SchedulingFixtures): R and R2 tau(b) = 0.8 b + 1.9 ms, i.e. 2.7, 3.5,
 * 5.1, 8.3, 14.7 ms at b = 1, 2, 4, 8, 16; A 10 ms; B 1 ms (batch size 1 only).
 */
class FlexPolicyTest {

    private static GroupScheduler scheduler(PolicyParams params, boolean preemption, DeviceView... devices) {
        GroupScheduler g = new GroupScheduler("g", CATALOG, List.of(devices), new FlexPolicy(), params);
        g.allowPreemption(preemption);
        return g;
    }

    private static GroupScheduler scheduler(DeviceView... devices) {
        return scheduler(PolicyParams.NONE, false, devices);
    }

    private static PolicyParams lambda(String value) {
        return PolicyParams.of(Map.of(FlexPolicy.LAMBDA, value));
    }

    @Test
    void nameIsFlex() {
        assertThat(Policies.create("flex")).isInstanceOf(FlexPolicy.class);
        assertThat(new FlexPolicy().name()).isEqualTo("flex");
    }

    @Test
    void theLargerFeasibleBatchGoesBeforeTheEarlierDeadline() {
        // One device, all at t = 0: b (B, deadline 10 ms) and r0..r3 (R, deadline 50 ms).
        // Candidates at 0: B a batch of 1 (0 + 1 <= 10 ms); R a batch of 4 (0 + 5.1 <= 50 ms).
        // Flex starts the larger, R x4 on [0, 5.1 ms), though B's deadline is earlier; B then runs on
        // [5.1, 6.1 ms), still by 10 ms. Wake at 5.1 ms, when the device frees (B's last chance, 9.001 ms, is later).
        GroupScheduler g = scheduler(device(0));
        g.admit(req("b", "B", 0, 10_000));
        for (int i = 0; i < 4; i++) g.admit(req("r" + i, "R", 0, 50_000));

        GroupScheduler.Outcome o = g.schedule(0);
        assertThat(o.dispatches()).extracting(Dispatch::model, Dispatch::size, Dispatch::predictedStartMicros, Dispatch::predictedLatencyMicros)
                .containsExactly(tuple("R", 4, 0L, 5_100L));
        assertThat(ids(o.dispatches().get(0))).containsExactly("r0", "r1", "r2", "r3");
        assertThat(o.nextWakeMicros()).isEqualTo(5_100);

        GroupScheduler.Outcome next = g.schedule(5_100);
        assertThat(next.dispatches()).extracting(Dispatch::model, Dispatch::predictedStartMicros, Dispatch::predictedEndMicros)
                .containsExactly(tuple("B", 5_100L, 6_100L));
        assertThat(next.drops()).isEmpty();
        assertThat(next.nextWakeMicros()).isEqualTo(SchedulingPolicy.NO_WAKE);

        // Work-conserving, by contrast, starts B first: earliest head deadline.
        GroupScheduler wc = new GroupScheduler("g", CATALOG, List.of(device(0)), new WorkConservingPolicy(), PolicyParams.NONE);
        wc.admit(req("b", "B", 0, 10_000));
        for (int i = 0; i < 4; i++) wc.admit(req("r" + i, "R", 0, 50_000));
        assertThat(wc.schedule(0).dispatches()).extracting(Dispatch::model).containsExactly("B");
    }

    @Test
    void equalBatchesGoByTheEarlierHeadDeadline() {
        // R and R2, two requests each: both candidates are batches of 2 (3.5 ms); R2's head is due earlier.
        GroupScheduler g = scheduler(device(0));
        g.admit(req("r0", "R", 0, 50_000));
        g.admit(req("r1", "R", 0, 50_000));
        g.admit(req("q0", "R2", 0, 40_000));
        g.admit(req("q1", "R2", 0, 40_000));
        assertThat(g.schedule(0).dispatches()).extracting(Dispatch::model, Dispatch::size).containsExactly(tuple("R2", 2));
    }

    @Test
    void theBatchShrinksToWhatTheHeadDeadlineAllows() {
        // 16 R at t = 0: r0 due at 6 ms, r1..r15 at 100 ms. At 0: 16 (14.7 ms) and 8 (8.3 ms) miss
        // r0's 6 ms, 4 (5.1 ms) fits: r0..r3 on [0, 5.1). At 5.1 ms, 12 left due at 100 ms: 8 is the
        // largest allowed size <= 12, on [5.1, 13.4). At 13.4 ms, the last 4 on [13.4, 18.5).
        GroupScheduler g = scheduler(device(0));
        g.admit(req("r0", "R", 0, 6_000));
        for (int i = 1; i < 16; i++) g.admit(req("r" + i, "R", 0, 100_000));

        List<Dispatch> all = new ArrayList<>();
        long now = 0;
        for (long expectedWake : new long[] {5_100, 13_400, SchedulingPolicy.NO_WAKE}) {
            GroupScheduler.Outcome o = g.schedule(now);
            assertThat(o.drops()).isEmpty();
            all.addAll(o.dispatches());
            assertThat(o.nextWakeMicros()).isEqualTo(expectedWake);
            now = o.nextWakeMicros();
        }
        assertThat(all).extracting(Dispatch::size, Dispatch::predictedStartMicros, Dispatch::predictedEndMicros)
                .containsExactly(tuple(4, 0L, 5_100L), tuple(8, 5_100L, 13_400L), tuple(4, 13_400L, 18_500L));
        assertThat(ids(all.get(0))).containsExactly("r0", "r1", "r2", "r3");
    }

    /** 16 R due at D, device idle at D - laxity: the largest b with tau(b) <= laxity, never more than are queued. */
    @ParameterizedTest(name = "laxity {0} us, {1} queued -> batch of {2}")
    @CsvSource({"20000, 16, 16", "14700, 16, 16", "14699, 16, 8", "5100, 16, 4", "5099, 16, 2", "2700, 16, 1",
            "20000, 3, 2", "20000, 7, 4"})
    void largestAllowedBatchThatFitsTheLaxityAndTheQueue(long laxity, int queued, int expected) {
        long deadline = 1_000_000;
        GroupScheduler g = scheduler(device(0));
        for (int i = 0; i < queued; i++) g.admit(req("r" + i, "R", 0, deadline));
        GroupScheduler.Outcome o = g.schedule(deadline - laxity);
        assertThat(o.dispatches()).singleElement().satisfies(d -> {
            assertThat(d.size()).isEqualTo(expected);
            assertThat(d.predictedEndMicros()).isLessThanOrEqualTo(deadline);
        });
    }

    @Test
    void idleDevicesEachTakeTheLargestBatchLeft() {
        // Two idle devices, 8 R2 due at 20 ms and 2 B due at 5 ms, at t = 0. Device 0 (first in order,
        // both idle equally long) takes the largest candidate, R2 x8; device 1 the only one left, B x1
        // (B's batch size is 1). The second B waits for device 1, free at 1 ms, and ends at 2 ms.
        GroupScheduler g = scheduler(device(0), device(1));
        for (int i = 0; i < 8; i++) g.admit(req("q" + i, "R2", 0, 20_000));
        g.admit(req("b0", "B", 0, 5_000));
        g.admit(req("b1", "B", 0, 5_000));
        GroupScheduler.Outcome o = g.schedule(0);
        assertThat(o.dispatches()).extracting(Dispatch::device, Dispatch::model, Dispatch::size)
                .containsExactly(tuple(0, "R2", 8), tuple(1, "B", 1));
        assertThat(o.nextWakeMicros()).isEqualTo(1_000);
        assertThat(g.schedule(1_000).dispatches()).extracting(Dispatch::device, Dispatch::predictedEndMicros).containsExactly(tuple(1, 2_000L));
    }

    // ---- preemption ----

    /** r0 (R, due at {@code r0Deadline}) alone at t = 0 on one device: it runs on [0, 2.7 ms). */
    private static Dispatch startR0(GroupScheduler g, long r0Deadline) {
        g.admit(req("r0", "R", 0, r0Deadline));
        GroupScheduler.Outcome o = g.schedule(0);
        assertThat(o.dispatches()).extracting(Dispatch::size, Dispatch::predictedStartMicros, Dispatch::predictedEndMicros)
                .containsExactly(tuple(1, 0L, 2_700L));
        assertThat(o.nextWakeMicros()).isEqualTo(SchedulingPolicy.NO_WAKE);
        return o.dispatches().get(0);
    }

    private static void eightR2At1ms(GroupScheduler g) {
        for (int i = 0; i < 8; i++) g.admit(req("q" + i, "R2", 1_000, 20_000));
    }

    @Test
    void aBatchLambdaTimesLargerPreemptsAndThePreemptedRequestRunsLater() {
        // lambda = 2. r0 runs on [0, 2.7 ms). At 1 ms, 8 R2 due at 20 ms: started now, a batch of 8
        // ends at 1 + 8.3 = 9.3 ms <= 20: candidate 8 >= 2 x 1, so r0's batch is aborted. r0 alone
        // from 1 ms would end at 3.7 ms <= 50: back in its queue. R2 x8 runs on [1, 9.3 ms); no
        // further preemption (R2's own candidate is 8 < 2 x 8). r0 runs when the device frees, on [9.3, 12 ms).
        GroupScheduler g = scheduler(lambda("2"), true, device(0));
        Dispatch r0 = startR0(g, 50_000);
        eightR2At1ms(g);

        GroupScheduler.Outcome o = g.schedule(1_000);
        assertThat(o.preempted()).singleElement().isSameAs(r0);
        assertThat(o.dispatches()).extracting(Dispatch::model, Dispatch::size, Dispatch::device, Dispatch::predictedStartMicros, Dispatch::predictedEndMicros)
                .containsExactly(tuple("R2", 8, 0, 1_000L, 9_300L));
        assertThat(o.drops()).isEmpty();
        assertThat(g.pendingCount()).isEqualTo(1);
        assertThat(o.nextWakeMicros()).isEqualTo(9_300);

        GroupScheduler.Outcome later = g.schedule(9_300);
        assertThat(later.preempted()).isEmpty();
        assertThat(later.dispatches()).singleElement().satisfies(d -> {
            assertThat(ids(d)).containsExactly("r0");
            assertThat(d.predictedStartMicros()).isEqualTo(9_300);
            assertThat(d.predictedEndMicros()).isEqualTo(12_000);
        });
    }

    @Test
    void aPreemptedRequestThatCanNoLongerMakeItIsDropped() {
        // As above, but r0 is due at 3 ms: feasible at 0 (ends 2.7), not once aborted at 1 ms (alone
        // it would end at 3.7 ms, 700 us late): dropped, with a reason that says it was preempted.
        GroupScheduler g = scheduler(lambda("2"), true, device(0));
        Dispatch r0 = startR0(g, 3_000);
        eightR2At1ms(g);

        GroupScheduler.Outcome o = g.schedule(1_000);
        assertThat(o.preempted()).singleElement().isSameAs(r0);
        assertThat(droppedIds(o)).containsExactly("r0");
        assertThat(o.drops().get(0).reason()).startsWith("preempted").contains("700 us late");
        assertThat(o.dispatches()).extracting(Dispatch::model, Dispatch::size, Dispatch::predictedStartMicros).containsExactly(tuple("R2", 8, 1_000L));
        assertThat(g.pendingCount()).isZero();
        assertThat(o.nextWakeMicros()).isEqualTo(SchedulingPolicy.NO_WAKE);
    }

    @Test
    void preemptedRequestsOfTheSameModelJoinTheNewBatch() {
        // lambda = 4. r0 runs alone; at 1 ms, r1..r3 of the same model R arrive. Counting r0 again (as
        // if aborted), R's candidate is 4 (1 + 5.1 = 6.1 <= r0's 50 ms), and 4 >= 4 x 1: r0's batch
        // makes way for one of 4 with r0 at its head. (The 3 queued alone would make only 2 < 4.)
        GroupScheduler g = scheduler(lambda("4"), true, device(0));
        Dispatch r0 = startR0(g, 50_000);
        for (int i = 1; i < 4; i++) g.admit(req("r" + i, "R", 1_000, 60_000));

        GroupScheduler.Outcome o = g.schedule(1_000);
        assertThat(o.preempted()).singleElement().isSameAs(r0);
        assertThat(o.dispatches()).singleElement().satisfies(d -> {
            assertThat(ids(d)).containsExactly("r0", "r1", "r2", "r3");
            assertThat(d.predictedStartMicros()).isEqualTo(1_000);
            assertThat(d.predictedEndMicros()).isEqualTo(6_100);
        });
        assertThat(g.pendingCount()).isZero();
    }

    /** R x4 on [0, 5.1 ms); at 1 ms, 8 R2 due at 20 ms: a candidate of 8, twice the running batch. */
    @ParameterizedTest(name = "lambda {0}: preempts {1}")
    @CsvSource({"2, true", "2.5, false", "3.03, false"})
    void preemptsOnlyWhenTheNewBatchIsAtLeastLambdaTimesTheRunningOne(String lambda, boolean preempts) {
        GroupScheduler g = scheduler(lambda(lambda), true, device(0));
        for (int i = 0; i < 4; i++) g.admit(req("r" + i, "R", 0, 50_000));
        Dispatch running = g.schedule(0).dispatches().get(0);
        assertThat(running.size()).isEqualTo(4);
        eightR2At1ms(g);

        GroupScheduler.Outcome o = g.schedule(1_000);
        if (preempts) {
            assertThat(o.preempted()).containsExactly(running);
            assertThat(o.dispatches()).extracting(Dispatch::model, Dispatch::size, Dispatch::predictedStartMicros).containsExactly(tuple("R2", 8, 1_000L));
        } else {
            // Not preempted: R2 waits for the device to free at 5.1 ms, and still makes 20 ms (5.1 + 8.3 = 13.4).
            assertThat(o.preempted()).isEmpty();
            assertThat(o.dispatches()).isEmpty();
            assertThat(o.nextWakeMicros()).isEqualTo(5_100);
            assertThat(g.schedule(5_100).dispatches()).extracting(Dispatch::size, Dispatch::predictedEndMicros).containsExactly(tuple(8, 13_400L));
        }
    }

    @Test
    void theDefaultLambdaIsShepherds() {
        // 3.03: 8 >= 3.03 x 1 preempts a batch of 1, 4 < 3.03 x 2 does not preempt a batch of 2.
        GroupScheduler g = scheduler(PolicyParams.NONE, true, device(0));
        Dispatch r0 = startR0(g, 50_000);
        eightR2At1ms(g);
        assertThat(g.schedule(1_000).preempted()).containsExactly(r0);

        GroupScheduler h = scheduler(PolicyParams.NONE, true, device(0));
        h.admit(req("r0", "R", 0, 50_000));
        h.admit(req("r1", "R", 0, 50_000));
        assertThat(h.schedule(0).dispatches()).extracting(Dispatch::size).containsExactly(2);
        for (int i = 0; i < 4; i++) h.admit(req("q" + i, "R2", 1_000, 20_000));
        assertThat(h.schedule(1_000).preempted()).isEmpty();
    }

    @Test
    void noPreemptionWhenTheEngineDoesNotAllowIt() {
        // The case that preempts above, with preemption off (the default, and the Flink job's): R2
        // x8 waits until r0's batch ends at 2.7 ms, then runs on [2.7, 11 ms).
        GroupScheduler g = scheduler(lambda("2"), false, device(0));
        startR0(g, 50_000);
        eightR2At1ms(g);

        GroupScheduler.Outcome o = g.schedule(1_000);
        assertThat(o.preempted()).isEmpty();
        assertThat(o.dispatches()).isEmpty();
        assertThat(o.nextWakeMicros()).isEqualTo(2_700);
        assertThat(g.schedule(2_700).dispatches()).extracting(Dispatch::size, Dispatch::predictedStartMicros, Dispatch::predictedEndMicros)
                .containsExactly(tuple(8, 2_700L, 11_000L));
        assertThatThrownBy(() -> g.preempt(g.devices().get(0), 3_000)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void lambdaMustBeAboveOne() {
        // Refused when the policy is set, not on the first arrival.
        assertThatThrownBy(() -> scheduler(lambda("1"), true, device(0))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("serving group 'g': flex parameter 'lambda' must be a number above 1, got '1'");
    }

    // ---- properties under random load ----

    @ParameterizedTest(name = "preemption {0}, lambda {1}")
    @CsvSource({"false, 3.03", "true, 3.03", "true, 1.5"})
    void randomArrivalsEndExactlyOnceAndEveryCompletedBatchMeetsItsDeadlines(boolean preemption, double lambda) {
        ModelCatalog catalog = ModelCatalog.builtIn();
        List<String> models = catalog.names();
        PolicyParams params = lambda(Double.toString(lambda));
        int preemptions = 0;
        int largestBatch = 0;
        for (long seed = 1; seed <= 8; seed++) {
            Random rnd = new Random(seed);
            List<DeviceView> devices = GroupSimulation.devices(rnd, 2 + rnd.nextInt(3), models);
            List<Request> arrivals = GroupSimulation.randomLoad(rnd, 2000, models);
            // GroupSimulation checks conservation (preempted batches do not count as completed),
            // no overlapping bookings, and that only the last batch booked on a device is preempted.
            GroupSimulation sim = new GroupSimulation().run(catalog, devices, new FlexPolicy(), params, preemption, arrivals);

            for (GroupSimulation.Made m : sim.dispatched) {
                Dispatch d = m.dispatch();
                LatencyProfile p = catalog.get(d.model()).latency();
                // Flex starts batches now, on a device that is idle now (or just freed by preemption).
                assertThat(d.predictedStartMicros()).as("seed %d", seed).isEqualTo(m.at());
                assertThat(d.size() <= p.batchSizeAt(0) || p.largestSizeAtMost(d.size()) == d.size()).as("seed %d size %d", seed, d.size()).isTrue();
                for (Request r : d.requests()) assertThat(d.predictedEndMicros()).as("seed %d %s", seed, r).isLessThanOrEqualTo(r.deadlineMicros());
                largestBatch = Math.max(largestBatch, d.size());
            }
            for (GroupSimulation.Preempted aborted : sim.preempted) {
                // The batch that replaced it started at once on its device and is lambda times larger.
                Dispatch p = aborted.dispatch();
                List<Dispatch> replacing = new ArrayList<>();
                for (GroupSimulation.Made m : sim.dispatched) {
                    if (m.at() == aborted.at() && m.dispatch().device() == p.device()) replacing.add(m.dispatch());
                }
                for (GroupSimulation.Preempted m : sim.preempted) {
                    if (m.dispatchedAt() == aborted.at() && m.dispatch().device() == p.device()) replacing.add(m.dispatch());
                }
                assertThat(replacing).as("seed %d: what replaced %s x%d on device %d at %d", seed, p.model(), p.size(), p.device(), aborted.at())
                        .extracting(Dispatch::size).anyMatch(size -> size >= lambda * p.size());
            }
            preemptions += sim.preempted.size();
        }
        assertThat(largestBatch).isGreaterThan(1);
        if (preemption) {
            assertThat(preemptions).as("the load makes Flex preempt").isPositive();
        } else {
            assertThat(preemptions).isZero();
        }
    }
}
