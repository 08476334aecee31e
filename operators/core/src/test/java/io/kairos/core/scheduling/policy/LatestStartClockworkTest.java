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

import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.IntStream;

import static io.kairos.core.scheduling.policy.SchedulingFixtures.CATALOG;
import static io.kairos.core.scheduling.policy.SchedulingFixtures.device;
import static io.kairos.core.scheduling.policy.SchedulingFixtures.droppedIds;
import static io.kairos.core.scheduling.policy.SchedulingFixtures.ids;
import static io.kairos.core.scheduling.policy.SchedulingFixtures.req;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

class LatestStartClockworkTest {

    private static GroupScheduler scheduler(PolicyParams params, DeviceView... devices) {
        return new GroupScheduler("g", CATALOG, List.of(devices), LatestStartPolicy.clockwork(), params);
    }

    private static GroupScheduler scheduler(DeviceView... devices) {
        return scheduler(PolicyParams.NONE, devices);
    }

    @Test
    void nameIsClockwork() {
        assertThat(LatestStartPolicy.clockwork().name()).isEqualTo("clockwork");
        assertThat(Policies.create("clockwork").name()).isEqualTo("clockwork");
        assertThat(Policies.create("clockwork")).isInstanceOf(LatestStartPolicy.class);
    }

    @Test
    void aGroupOfMoreThan64DevicesStillReachesTheDeviceThatCanServe() {
        // Device 0 runs A and B; devices 1 to 69 only R2, which nobody asks for. B (1 ms) goes to
        // device 0, which then has 1 ms booked, under the 5 ms lookahead. An A request next: the
        // idle devices 1..69 come first (free at 0) and can take nothing; device 0 must still get
        // it, at 1 ms. The scheduler once gave up at the first such device past the 64th, so the
        // A request waited, and asked to be woken 1 us later, again and again.
        DeviceView[] devices = new DeviceView[70];
        devices[0] = device(0, "A", "B");
        for (int i = 1; i < devices.length; i++) devices[i] = device(i, "R2");
        GroupScheduler g = scheduler(devices);
        g.admit(req("b", "B", 0, 100_000));
        assertThat(g.schedule(0).dispatches()).extracting(Dispatch::model, Dispatch::device).containsExactly(tuple("B", 0));

        g.admit(req("a", "A", 0, 100_000));
        GroupScheduler.Outcome o = g.schedule(0);

        assertThat(o.dispatches()).extracting(Dispatch::model, Dispatch::device, Dispatch::predictedStartMicros).containsExactly(tuple("A", 0, 1_000L));
        assertThat(g.pendingCount()).isZero();
        assertThat(o.nextWakeMicros()).isEqualTo(SchedulingPolicy.NO_WAKE);
    }

    @Test
    void tightDeadlineGoesFirstWhereFifoWouldMissIt() {
        // One device. A: 10 ms, SLO 100 ms; B: 1 ms, SLO 10 ms; both arrive at t=0, A first.
        // FIFO would run A on [0, 10) and B on [10, 11): B late by 1 ms.
        // Clockwork: latest start of A = 100 - 10 = 90 ms, of B = 10 - 1 = 9 ms -> B first, on [0, 1).
        // 1 ms is then booked (< 5 ms lookahead), so A goes in the same call, on [1, 11), done by 100.
        GroupScheduler g = scheduler(device(0));
        g.admit(req("a", "A", 0, 100_000));
        g.admit(req("b", "B", 0, 10_000));

        GroupScheduler.Outcome o = g.schedule(0);

        assertThat(o.drops()).isEmpty();
        assertThat(o.dispatches()).hasSize(2);
        Dispatch first = o.dispatches().get(0);
        Dispatch second = o.dispatches().get(1);
        assertThat(first.model()).isEqualTo("B");
        assertThat(ids(first)).containsExactly("b");
        assertThat(first.device()).isZero();
        assertThat(first.predictedStartMicros()).isZero();
        assertThat(first.predictedLatencyMicros()).isEqualTo(1_000);
        assertThat(first.predictedEndMicros()).isLessThanOrEqualTo(10_000);

        assertThat(second.model()).isEqualTo("A");
        assertThat(ids(second)).containsExactly("a");
        assertThat(second.device()).isZero();
        assertThat(second.predictedStartMicros()).isEqualTo(1_000);
        assertThat(second.predictedLatencyMicros()).isEqualTo(10_000);
        assertThat(second.predictedEndMicros()).isEqualTo(11_000).isLessThanOrEqualTo(100_000);

        assertThat(g.pendingCount()).isZero();
        assertThat(o.nextWakeMicros()).isEqualTo(SchedulingPolicy.NO_WAKE);
    }

    /**
     * 16 requests of R, all with deadline D; the device is idle, so a batch starts now and the
     * laxity L = D - now must cover tau(b): tau = 2.7, 3.5, 5.1, 8.3, 14.7 ms for b = 1, 2, 4, 8, 16.
     * Clockwork takes the largest b with tau(b) <= L. After a batch of 1 or 2 the device has less
     * than 5 ms booked, but what is left of L then fits no batch (e.g. L=5099: 5099-3500 < 2700).
     */
    @ParameterizedTest(name = "laxity {0} us -> batch of {1}")
    @CsvSource({
            "20000, 16", "14700, 16", "14699, 8", "8300, 8", "8299, 4", "5100, 4", "5099, 2",
            "3500, 2", "3499, 1", "2700, 1"})
    void largestBatchThatFitsTheLaxity(long laxity, int expected) {
        long deadline = 1_000_000;
        long now = deadline - laxity;
        GroupScheduler g = scheduler(device(0));
        for (int i = 0; i < 16; i++) g.admit(req("r" + i, "R", 0, deadline));

        GroupScheduler.Outcome o = g.schedule(now);

        assertThat(o.drops()).isEmpty();
        assertThat(o.dispatches()).hasSize(1);
        Dispatch d = o.dispatches().get(0);
        assertThat(d.size()).isEqualTo(expected);
        assertThat(d.predictedStartMicros()).isEqualTo(now);
        assertThat(d.predictedEndMicros()).isLessThanOrEqualTo(deadline);
        assertThat(g.pendingCount()).isEqualTo(16 - expected);
        // Earliest deadline first within the model, ties in arrival order.
        assertThat(ids(d)).containsExactlyElementsOf(IntStream.range(0, expected).mapToObj(i -> "r" + i).toList());
    }

    @Test
    void laxityBelowTauOfOneShedsAll() {
        // L = 2699 < tau(1) = 2700: none of the 16 can make it, alone or batched.
        GroupScheduler g = scheduler(device(0));
        for (int i = 0; i < 16; i++) g.admit(req("r" + i, "R", 0, 1_000_000));
        GroupScheduler.Outcome o = g.schedule(1_000_000 - 2699);
        assertThat(o.dispatches()).isEmpty();
        assertThat(o.drops()).hasSize(16);
        assertThat(g.pendingCount()).isZero();
    }

    @Test
    void secondDeviceTakesTheRest() {
        // L = 8.3 ms, two idle devices: 8 on device 0 (8.3 ms booked, no more room), the other 8 on device 1.
        GroupScheduler g = scheduler(device(0), device(1));
        for (int i = 0; i < 16; i++) g.admit(req("r" + i, "R", 0, 100_000));
        GroupScheduler.Outcome o = g.schedule(100_000 - 8_300);
        assertThat(o.dispatches()).extracting(Dispatch::device, Dispatch::size, Dispatch::predictedStartMicros)
                .containsExactly(tuple(0, 8, 91_700L), tuple(1, 8, 91_700L));
        assertThat(ids(o.dispatches().get(0))).containsExactly("r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7");
        assertThat(g.pendingCount()).isZero();
    }

    @Test
    void goesToTheDeviceFreeSoonest() {
        DeviceView d0 = device(0);
        DeviceView d1 = device(1);
        d0.book(0, 3_000);
        d1.book(0, 1_000);
        GroupScheduler g = scheduler(d0, d1);
        g.admit(req("r", "R", 0, 100_000));
        GroupScheduler.Outcome o = g.schedule(0);
        assertThat(o.dispatches()).singleElement().satisfies(d -> {
            assertThat(d.device()).isEqualTo(1);
            assertThat(d.predictedStartMicros()).isEqualTo(1_000);
        });
    }

    @Test
    void deadlineExactlyTauOfOneAwayIsKept() {
        // now = 1000, tau(1) = 2700: deadline 3700 is just reachable, alone, on the idle device.
        GroupScheduler g = scheduler(device(0));
        g.admit(req("r", "R", 0, 3_700));
        GroupScheduler.Outcome o = g.schedule(1_000);
        assertThat(o.drops()).isEmpty();
        assertThat(o.dispatches()).singleElement().satisfies(d -> {
            assertThat(d.size()).isEqualTo(1);
            assertThat(d.predictedStartMicros()).isEqualTo(1_000);
            assertThat(d.predictedEndMicros()).isEqualTo(3_700);
        });
    }

    @Test
    void deadlineOneMicrosecondShortIsDropped() {
        GroupScheduler g = scheduler(device(0));
        g.admit(req("r", "R", 0, 3_699));
        GroupScheduler.Outcome o = g.schedule(1_000);
        assertThat(o.dispatches()).isEmpty();
        assertThat(droppedIds(o)).containsExactly("r");
        assertThat(o.drops().get(0).reason()).contains("deadline unreachable").contains("1 us late");
        assertThat(g.pendingCount()).isZero();
        assertThat(o.nextWakeMicros()).isEqualTo(SchedulingPolicy.NO_WAKE);
    }

    @Test
    void busyDeviceMovesTheThresholdToItsFreeTime() {
        // The only device is booked until t = 20 ms, so at now = 0 a lone request finishes at 22.7 ms at best.
        DeviceView d0 = device(0);
        d0.book(0, 20_000);
        GroupScheduler g = scheduler(d0);
        g.admit(req("keep", "R", 0, 22_700));
        g.admit(req("drop", "R", 0, 22_699));

        GroupScheduler.Outcome o = g.schedule(0);

        assertThat(droppedIds(o)).containsExactly("drop");
        assertThat(o.drops().get(0).reason()).contains("1 us late");
        // 20 ms booked >= 5 ms lookahead: nothing dispatched; ask again when it drops to the lookahead (15 ms),
        // which is before "keep" becomes unreachable (22.7 - 2.7 ms + 1 us).
        assertThat(o.dispatches()).isEmpty();
        assertThat(o.nextWakeMicros()).isEqualTo(15_000);

        Dispatch d = runUntilDispatch(g, o.nextWakeMicros());
        assertThat(ids(d)).containsExactly("keep");
        assertThat(d.predictedStartMicros()).isEqualTo(20_000);
        assertThat(d.predictedEndMicros()).isEqualTo(22_700);
    }

    @Test
    void modelNoDeviceHoldsIsDroppedNamingGroupAndModel() {
        GroupScheduler g = scheduler(device(0, "A"));
        g.admit(req("b", "B", 0, 1_000_000));
        g.admit(req("a", "A", 0, 1_000_000));
        GroupScheduler.Outcome o = g.schedule(0);
        assertThat(droppedIds(o)).containsExactly("b");
        assertThat(o.drops().get(0).reason()).contains("'g'").contains("'B'");
        assertThat(o.dispatches()).singleElement().satisfies(d -> assertThat(d.model()).isEqualTo("A"));
    }

    @Test
    void modelNoDeviceHoldsIsDroppedEvenWithSheddingOff() {
        GroupScheduler g = scheduler(PolicyParams.of(Map.of(GroupScheduler.SHED, "false")), device(0, "A"));
        g.admit(req("b", "B", 0, 1_000_000));
        assertThat(droppedIds(g.schedule(0))).containsExactly("b");
    }

    @Test
    void deviceBookedBeyondTheLookaheadGetsNothingUntilItDrainsToIt() {
        // Booked 6 ms ahead of now = 10 ms (free at 16 ms): 6 ms >= 5 ms lookahead, so wait until 16 - 5 = 11 ms.
        DeviceView d0 = device(0);
        d0.book(10_000, 6_000);
        GroupScheduler g = scheduler(d0);
        g.admit(req("r", "R", 10_000, 1_000_000));

        GroupScheduler.Outcome o = g.schedule(10_000);
        assertThat(o.dispatches()).isEmpty();
        assertThat(o.nextWakeMicros()).isEqualTo(16_000 - 5_000);

        Dispatch d = runUntilDispatch(g, o.nextWakeMicros());
        assertThat(d.predictedStartMicros()).isEqualTo(16_000);
    }

    @Test
    void lookaheadIsAParameter() {
        // With lookahead_ms = 10, 6 ms booked leaves room: the batch is booked behind it at once.
        DeviceView d0 = device(0);
        d0.book(10_000, 6_000);
        GroupScheduler g = scheduler(PolicyParams.of(Map.of("lookahead_ms", "10")), d0);
        g.admit(req("r", "R", 10_000, 1_000_000));
        GroupScheduler.Outcome o = g.schedule(10_000);
        assertThat(o.dispatches()).singleElement().satisfies(d -> assertThat(d.predictedStartMicros()).isEqualTo(16_000));
    }

    @Test
    void feasibleRequestIsNotHeldBackToGrowABatch() {
        // One request of R at laxity 100 ms: a batch of 1 fits, so it goes now; Clockwork does not hold
        // back to grow a batch. (It dispatches whenever the device has room and a strategy is feasible.)
        GroupScheduler g = scheduler(device(0));
        g.admit(req("r", "R", 0, 100_000));
        GroupScheduler.Outcome o = g.schedule(0);
        assertThat(o.dispatches()).singleElement().satisfies(d -> assertThat(d.size()).isEqualTo(1));
    }

    /** Calls schedule at each wake time it returns until something is dispatched (a few calls at most). */
    private static Dispatch runUntilDispatch(GroupScheduler g, long from) {
        long now = from;
        for (int i = 0; i < 3; i++) {
            GroupScheduler.Outcome o = g.schedule(now);
            assertThat(o.drops()).isEmpty();
            if (!o.dispatches().isEmpty()) return o.dispatches().get(0);
            assertThat(o.nextWakeMicros()).isGreaterThan(now);
            now = o.nextWakeMicros();
        }
        throw new AssertionError("nothing dispatched after 3 wake-ups from " + from);
    }

    @Test
    void randomArrivalsEndExactlyOnceAndDispatchedBatchesMeetTheirDeadlines() {
        ModelCatalog catalog = ModelCatalog.builtIn();
        List<String> models = catalog.names();
        int drops = 0;
        int largestBatch = 0;
        for (long seed = 1; seed <= 12; seed++) {
            Random rnd = new Random(seed);
            int deviceCount = 2 + rnd.nextInt(3);
            List<DeviceView> devices = GroupSimulation.devices(rnd, deviceCount, models);
            // Mean gap 0.25-1 ms across 4 models: from light load to overload, so both batching and shedding happen.
            List<Request> arrivals = GroupSimulation.randomLoad(rnd, 3000, models);
            GroupSimulation sim = new GroupSimulation().run(catalog, devices, LatestStartPolicy.clockwork(), PolicyParams.NONE, arrivals);

            for (GroupSimulation.Made m : sim.dispatched) {
                Dispatch d = m.dispatch();
                LatencyProfile p = catalog.get(d.model()).latency();
                // Clockwork only ever runs whole allowed batch sizes, and only strategies that meet the head deadline.
                assertThat(p.batchSizes()).as("seed %d", seed).contains(d.size());
                for (Request r : d.requests()) assertThat(d.predictedEndMicros()).as("seed %d %s", seed, r).isLessThanOrEqualTo(r.deadlineMicros());
                // It only dispatches to a device with less than the lookahead booked.
                assertThat(d.predictedStartMicros() - m.at()).isLessThan(5_000);
            }
            assertThat(sim.dispatched).as("seed %d dispatches something", seed).isNotEmpty();
            drops += sim.dropped.size();
            for (GroupSimulation.Made m : sim.dispatched) largestBatch = Math.max(largestBatch, m.dispatch().size());
        }
        // The workload exercises both batching and shedding.
        assertThat(drops).isPositive();
        assertThat(largestBatch).isGreaterThan(1);
    }
}
