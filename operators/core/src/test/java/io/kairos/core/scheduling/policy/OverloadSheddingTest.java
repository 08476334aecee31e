package io.kairos.core.scheduling.policy;

import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.scheduling.Dispatch;
import io.kairos.core.scheduling.GroupScheduler;
import io.kairos.core.scheduling.PolicyParams;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static io.kairos.core.scheduling.policy.SchedulingFixtures.CATALOG;
import static io.kairos.core.scheduling.policy.SchedulingFixtures.device;
import static io.kairos.core.scheduling.policy.SchedulingFixtures.droppedIds;
import static io.kairos.core.scheduling.policy.SchedulingFixtures.ids;
import static io.kairos.core.scheduling.policy.SchedulingFixtures.req;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

/**
 * How a serving group sheds under overload: early, to keep its batches full ({@code shed_early}),
 * and at its bound on pending requests ({@code max_pending}). R takes 2.7, 3.5, 5.1, 8.3 and
 * 14.7 ms at batches of 1, 2, 4, 8 and 16 (a full batch); A takes 10 ms and B 1 ms, alone.
 */
class OverloadSheddingTest {

    private static GroupScheduler clockwork(Map<String, String> params, DeviceView... devices) {
        return new GroupScheduler("g", CATALOG, List.of(devices), LatestStartPolicy.clockwork(), PolicyParams.of(params));
    }

    /** {@code urgent} requests of R due at 10 ms, then {@code relaxed} due at 100 ms, all at t=0. */
    private static void queueR(GroupScheduler g, int urgent, int relaxed) {
        for (int i = 0; i < urgent; i++) g.admit(req("u" + i, "R", 0, 10_000));
        for (int i = 0; i < relaxed; i++) g.admit(req("r" + i, "R", 0, 100_000));
    }

    @Test
    void withTwoFullBatchesWaitingTheHeadsThatCannotMakeAFullBatchAreShedAndTheBatchIsFull() {
        // 36 requests of R on an idle device: two full batches and more. The 4 due at 10 ms could
        // finish alone (2.7 ms) or in a batch of 8 (8.3 ms), but not in a full batch (14.7 ms): shed. Then a full batch of the
        // relaxed ones on [0, 14.7 ms), which fills the 5 ms lookahead.
        GroupScheduler g = clockwork(Map.of(), device(0));
        queueR(g, 4, 32);

        GroupScheduler.Outcome o = g.schedule(0);

        assertThat(droppedIds(o)).containsExactly("u0", "u1", "u2", "u3");
        assertThat(o.drops()).allSatisfy(d -> assertThat(d.reason()).startsWith("shed under overload: ")
                .contains("in a full batch of 16 on the earliest-free device it would finish 4700 us late"));
        assertThat(o.dispatches()).extracting(Dispatch::size, Dispatch::predictedStartMicros, Dispatch::predictedEndMicros)
                .containsExactly(tuple(16, 0L, 14_700L));
        assertThat(ids(o.dispatches().get(0))).first().isEqualTo("r0");
        assertThat(g.pendingCount()).isEqualTo(16);
    }

    @Test
    void withSheddingEarlyOffTheHeadsRunInASmallBatch() {
        // The same queue: the largest batch the head can make is 8 (8.3 ms by 10 ms): the 4 urgent
        // requests and 4 relaxed ones, which fill the lookahead.
        GroupScheduler g = clockwork(Map.of(GroupScheduler.SHED_EARLY, "false"), device(0));
        queueR(g, 4, 32);

        GroupScheduler.Outcome o = g.schedule(0);

        assertThat(o.drops()).isEmpty();
        assertThat(o.dispatches()).extracting(Dispatch::size, Dispatch::predictedEndMicros).containsExactly(tuple(8, 8_300L));
        assertThat(ids(o.dispatches().get(0))).startsWith("u0", "u1", "u2", "u3", "r0");
    }

    @Test
    void belowTwoFullBatchesNothingIsShedEarly() {
        // 31 requests: the heads are served, in a batch of 8, as without shedding early.
        GroupScheduler g = clockwork(Map.of(), device(0));
        queueR(g, 4, 27);

        GroupScheduler.Outcome o = g.schedule(0);

        assertThat(o.drops()).isEmpty();
        assertThat(o.dispatches()).extracting(Dispatch::size).containsExactly(8);
    }

    @Test
    void sheddingEarlyStopsWhenTwoFullBatchesNoLongerWait() {
        // 33 requests: u0 and u1 are shed, leaving 31; u2 and u3 stay, and the largest batch u2 can
        // make is 8 (8.3 ms by 10 ms): u2, u3 and six relaxed ones.
        GroupScheduler g = clockwork(Map.of(), device(0));
        queueR(g, 4, 29);

        GroupScheduler.Outcome o = g.schedule(0);

        assertThat(droppedIds(o)).containsExactly("u0", "u1");
        assertThat(o.dispatches()).extracting(Dispatch::size, Dispatch::predictedEndMicros).containsExactly(tuple(8, 8_300L));
        assertThat(ids(o.dispatches().get(0))).startsWith("u2", "u3", "r0");
    }

    @Test
    void theEarliestFreeDeviceDecides() {
        // Device 0 is busy until 14.7 ms with a full batch; device 1 holds only A. A full batch of
        // R starting at 14.7 ms ends at 29.4 ms: the 16 due at 20 ms are shed early (32 still
        // wait behind them), the 32 due at 100 ms are not; device 0 has 13.7 ms booked, more
        // than the lookahead, so nothing is dispatched.
        GroupScheduler g = clockwork(Map.of(), device(0, "R"), device(1, "A"));
        for (int i = 0; i < 16; i++) g.admit(req("first" + i, "R", 0, 100_000));
        assertThat(g.schedule(0).dispatches()).extracting(Dispatch::size).containsExactly(16);
        for (int i = 0; i < 16; i++) g.admit(req("u" + i, "R", 1_000, 20_000));
        for (int i = 0; i < 32; i++) g.admit(req("r" + i, "R", 1_000, 100_000));

        GroupScheduler.Outcome o = g.schedule(1_000);

        assertThat(droppedIds(o)).hasSize(16).allMatch(id -> id.startsWith("u"));
        assertThat(o.drops().get(0).reason()).contains("would finish 9400 us late");
        assertThat(o.dispatches()).isEmpty();
        assertThat(g.pendingCount()).isEqualTo(32);
    }

    @Test
    void sheddingEarlyIsPartOfSheddingAndOffWithIt() {
        GroupScheduler g = clockwork(Map.of(GroupScheduler.SHED, "false"), device(0));
        assertThat(g.sheddingEarly()).isFalse();
        queueR(g, 4, 32);
        assertThat(g.schedule(0).drops()).isEmpty();
    }

    // ---- max_pending ----

    @Test
    void aFullGroupDropsTheRequestWithTheLeastLaxityArrivingOrQueued() {
        // Laxity of R = deadline - 2.7 ms. Full at 3: a (50 ms), b (20 ms), c (80 ms).
        // d (30 ms, laxity 27.3) arrives: b (17.3) has less, and goes.
        // e (10 ms, laxity 7.3) arrives: less than d's 27.3, the most urgent queued: e goes.
        GroupScheduler g = clockwork(Map.of(GroupScheduler.MAX_PENDING, "3"), device(0));
        g.admit(req("a", "R", 0, 50_000));
        g.admit(req("b", "R", 0, 20_000));
        g.admit(req("c", "R", 0, 80_000));
        g.admit(req("d", "R", 0, 30_000));
        g.admit(req("e", "R", 0, 10_000));
        assertThat(g.pendingCount()).isEqualTo(3);

        GroupScheduler.Outcome o = g.schedule(0);

        assertThat(droppedIds(o)).containsExactly("b", "e");
        assertThat(o.drops()).allSatisfy(d -> assertThat(d.reason())
                .isEqualTo("queue full: serving group 'g' holds 3 requests (max_pending), and this one had the least laxity"));
        // What stays is served by deadline, d, a, c, in whole batches as Clockwork runs them: 2
        // (3.5 ms), then 1, which fills the lookahead.
        assertThat(o.dispatches()).extracting(Dispatch::size).containsExactly(2, 1);
        assertThat(ids(o.dispatches().get(0))).containsExactly("d", "a");
    }

    @Test
    void laxityCountsEachModelsOwnLatency() {
        // Full at 1. x of A is due at 15 ms but takes 10 ms alone: laxity 5 ms. y of B is due
        // sooner, at 7 ms, but takes 1 ms: laxity 6 ms. x goes.
        GroupScheduler g = clockwork(Map.of(GroupScheduler.MAX_PENDING, "1"), device(0));
        g.admit(req("x", "A", 0, 15_000));
        g.admit(req("y", "B", 0, 7_000));

        GroupScheduler.Outcome o = g.schedule(0);

        assertThat(droppedIds(o)).containsExactly("x");
        assertThat(o.dispatches()).extracting(d -> d.model()).containsExactly("B");
    }

    @Test
    void theBoundHoldsWithSheddingOff() {
        // Full at 2: each later arrival is due a microsecond sooner than all before it, so has the
        // least laxity, and is the one dropped.
        GroupScheduler g = clockwork(Map.of(GroupScheduler.SHED, "false", GroupScheduler.MAX_PENDING, "2"), device(0));
        for (int i = 0; i < 5; i++) g.admit(req("r" + i, "R", 0, 1_000_000 - i));
        assertThat(g.pendingCount()).isEqualTo(2);
        GroupScheduler.Outcome o = g.schedule(0);
        assertThat(droppedIds(o)).containsExactly("r2", "r3", "r4");
        assertThat(o.dispatches()).extracting(Dispatch::size).containsExactly(2);
    }
}
