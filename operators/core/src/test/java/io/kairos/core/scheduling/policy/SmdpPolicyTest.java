package io.kairos.core.scheduling.policy;

import io.kairos.core.model.ModelCatalog;
import io.kairos.core.scheduling.BatchingTable;
import io.kairos.core.scheduling.ConfiguredPolicy;
import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.scheduling.Dispatch;
import io.kairos.core.scheduling.GroupScheduler;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.core.scheduling.SchedulingPolicy;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static io.kairos.core.scheduling.policy.SchedulingFixtures.device;
import static io.kairos.core.scheduling.policy.SchedulingFixtures.droppedIds;
import static io.kairos.core.scheduling.policy.SchedulingFixtures.ids;
import static io.kairos.core.scheduling.policy.SchedulingFixtures.req;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;

/** The {@code smdp} policy: serving from a batching table, the work-conserving fallback, and the deadline guard, worked by hand. */
class SmdpPolicyTest {
    /** S and T: tau(b) = b + 2 ms at every size 1..5, so no batch is padded (3, 4, 5, 6, 7 ms). */
    private static final ModelCatalog CATALOG = ModelCatalog.parse("""
            {"models": [
              {"name": "S", "input": {"dtype": "FLOAT32", "shape": [1]}, "batch_sizes": [1, 2, 3, 4, 5],
               "latency_ms": {"alpha": 1, "beta": 2}},
              {"name": "T", "input": {"dtype": "FLOAT32", "shape": [1]}, "batch_sizes": [1, 2, 3, 4, 5],
               "latency_ms": {"alpha": 1, "beta": 2}}
            ]}""", "smdp-policy-test");
    private static final long FAR = 1_000_000_000L;
    /** Wait with 0, 1 or 2 requests, serve 2 of 3, 3 of 4 or more: states 0..5 and S_o. */
    private static final BatchingTable TABLE = new BatchingTable(new int[]{0, 0, 0, 2, 3, 3, 3});

    private static GroupScheduler scheduler(SchedulingPolicy policy, DeviceView... devices) {
        return new GroupScheduler("g", CATALOG, List.of(devices), new ConfiguredPolicy(policy, true));
    }

    @Test
    void servesWhatTheTableSaysForTheQueueLengthEarliestDeadlinesFirst() {
        GroupScheduler g = scheduler(new SmdpPolicy(Map.of("S", TABLE), false), device(0));
        g.admit(req("r0", "S", 0, FAR));
        assertThat(g.schedule(0).dispatches()).isEmpty();            // 1 queued: wait
        g.admit(req("r1", "S", 10, FAR));
        GroupScheduler.Outcome two = g.schedule(10);
        assertThat(two.dispatches()).isEmpty();                       // 2 queued: wait
        assertThat(two.nextWakeMicros()).isEqualTo(FAR - 3_000 + 1);  // guard off: only the shedding wake-up
        g.admit(req("r2", "S", 20, FAR - 1));
        GroupScheduler.Outcome three = g.schedule(20);                // 3 queued: serve 2, the earliest deadlines
        assertThat(three.dispatches()).extracting(Dispatch::size, Dispatch::predictedLatencyMicros).containsExactly(tuple(2, 4_000L));
        assertThat(ids(three.dispatches().get(0))).containsExactly("r2", "r0");
        assertThat(g.pendingCount()).isEqualTo(1);

        GroupScheduler five = scheduler(new SmdpPolicy(Map.of("S", TABLE), false), device(0));
        for (int i = 0; i < 5; i++) five.admit(req("q" + i, "S", 0, FAR - i));
        GroupScheduler.Outcome o = five.schedule(0);                  // 5 queued: serve 3
        assertThat(o.dispatches()).extracting(Dispatch::size).containsExactly(3);
        assertThat(ids(o.dispatches().get(0))).containsExactly("q4", "q3", "q2");
        // 2 left, which the table leaves waiting: no wake-up when the device frees after tau(3) = 5 ms,
        // only the scheduler's own, when the new head (deadline FAR - 1) could no longer start alone.
        assertThat(o.nextWakeMicros()).isEqualTo(FAR - 1 - 3_000 + 1);
        assertThat(five.schedule(5_000).dispatches()).isEmpty();
    }

    @Test
    void pastSMaxTheTableServesWhatItServesAtSMaxAndNeverMoreThanTheModelsLargestBatch() {
        BatchingTable six = new BatchingTable(new int[]{0, 0, 0, 0, 0, 0, 6, 6}); // serve 6 from 6 on; S runs at most 5
        GroupScheduler g = scheduler(new SmdpPolicy(Map.of("S", six), false), device(0), device(1));
        for (int i = 0; i < 9; i++) g.admit(req("r" + i, "S", 0, FAR));
        GroupScheduler.Outcome o = g.schedule(0);
        // 9 queued: 5 (6 cut to B_max) on device 0; then 4 queued: the table waits, device 1 stays idle.
        assertThat(o.dispatches()).extracting(Dispatch::device, Dispatch::size).containsExactly(tuple(0, 5));
        assertThat(g.pendingCount()).isEqualTo(4);
    }

    @Test
    void aModelWithoutATableIsServedWorkConservingMinOfQueueAndLargestBatch() {
        GroupScheduler g = scheduler(new SmdpPolicy(Map.of("S", TABLE), true), device(0), device(1));
        for (int i = 0; i < 7; i++) g.admit(req("t" + i, "T", 0, FAR));
        g.admit(req("s0", "S", 0, FAR));
        GroupScheduler.Outcome o = g.schedule(0);
        // T has no table: 5 at once, then the 2 left on the other device; S (1 queued) waits.
        assertThat(o.dispatches()).extracting(Dispatch::model, Dispatch::device, Dispatch::size)
                .containsExactly(tuple("T", 0, 5), tuple("T", 1, 2));
        assertThat(g.queue("S").size()).isEqualTo(1);
    }

    @Test
    void theGuardServesAWaitingRequestExactlyAtItsLatestStart() {
        // A table that waits for 4: one request with deadline 10 ms, alone tau(1) = 3 ms, latest start 7 ms.
        GroupScheduler g = scheduler(new SmdpPolicy(Map.of("S", BatchingTable.staticBatch(4, 6)), true), device(0));
        g.admit(req("r0", "S", 0, 10_000));
        GroupScheduler.Outcome waiting = g.schedule(0);
        assertThat(waiting.dispatches()).isEmpty();
        assertThat(waiting.nextWakeMicros()).isEqualTo(7_000);
        assertThat(g.schedule(6_999).dispatches()).isEmpty();
        GroupScheduler.Outcome served = g.schedule(7_000);
        assertThat(served.dispatches()).extracting(Dispatch::size, Dispatch::predictedStartMicros, Dispatch::predictedLatencyMicros)
                .containsExactly(tuple(1, 7_000L, 3_000L));
        assertThat(served.drops()).isEmpty();
    }

    @Test
    void theGuardLeavesAHeadThatIsLateEvenAloneToTheTable() {
        // Without shedding, a request whose deadline passes before it could end alone stays queued.
        GroupScheduler g = new GroupScheduler("g", CATALOG, List.of(device(0)),
                new ConfiguredPolicy(new SmdpPolicy(Map.of("S", BatchingTable.staticBatch(4, 6)), true), false));
        g.admit(req("r0", "S", 0, 10_000));
        assertThat(g.schedule(7_001).dispatches()).isEmpty(); // 7.001 + 3 ms > 10 ms: lost, not guarded
        for (int i = 1; i < 4; i++) g.admit(req("r" + i, "S", 7_001, 100_000));
        assertThat(g.schedule(7_001).dispatches()).extracting(Dispatch::size).containsExactly(4); // the table's batch
    }

    @Test
    void theMarginMovesTheGuardEarlier() {
        GroupScheduler g = scheduler(Policies.configure("g", "smdp", PolicyParams.of(Map.of("guard_margin_ms", "0.5")),
                io.kairos.core.scheduling.ControlInputs.tables(Map.of("S", BatchingTable.staticBatch(4, 6)))).policy(), device(0));
        g.admit(req("r0", "S", 0, 10_000));
        assertThat(g.schedule(0).nextWakeMicros()).isEqualTo(6_500);
        assertThat(g.schedule(6_500).dispatches()).extracting(Dispatch::predictedEndMicros).containsExactly(9_500L);

        // Fired 1.2 ms late for three queued (latest start 10 - 0.5 - 5 = 4.5 ms): the three still end by the deadline itself.
        GroupScheduler late = scheduler(Policies.configure("g", "smdp", PolicyParams.of(Map.of("guard_margin_ms", "0.5")),
                io.kairos.core.scheduling.ControlInputs.tables(Map.of("S", BatchingTable.staticBatch(4, 6)))).policy(), device(0));
        for (int i = 0; i < 3; i++) late.admit(req("r" + i, "S", i, 10_000 + i));
        assertThat(late.schedule(2).nextWakeMicros()).isEqualTo(4_500);
        assertThat(late.schedule(5_000).dispatches()).extracting(Dispatch::size, Dispatch::predictedEndMicros).containsExactly(tuple(3, 10_000L));
    }

    @Test
    void withoutTheGuardTheTableWaitsAndTheSchedulerShedsTheRequest() {
        GroupScheduler g = scheduler(new SmdpPolicy(Map.of("S", BatchingTable.staticBatch(4, 6)), false), device(0));
        g.admit(req("r0", "S", 0, 10_000));
        GroupScheduler.Outcome waiting = g.schedule(0);
        assertThat(waiting.nextWakeMicros()).isEqualTo(7_001); // the scheduler's own: when r0 becomes unreachable
        assertThat(g.schedule(7_000).dispatches()).isEmpty();
        assertThat(droppedIds(g.schedule(7_001))).containsExactly("r0");
    }

    @Test
    void theGuardTakesTheBatchThatWouldFormAndAfterAnArrivalTheLargestThatStillMeetsTheHead() {
        // Two queued, head deadline 10 ms: the batch of 2 takes 4 ms, latest start 6 ms.
        GroupScheduler g = scheduler(new SmdpPolicy(Map.of("S", BatchingTable.staticBatch(4, 6)), true), device(0));
        g.admit(req("r0", "S", 0, 10_000));
        g.admit(req("r1", "S", 1, 20_000));
        assertThat(g.schedule(1).nextWakeMicros()).isEqualTo(6_000);
        // A third arrives at 5.5 ms: a batch of 3 (5 ms) would end at 10.5 ms, past the head's
        // deadline, so its latest start (5 ms) has passed; 2 (ending at 9.5 ms) still make it.
        g.admit(req("r2", "S", 5_500, 30_000));
        GroupScheduler.Outcome o = g.schedule(5_500);
        assertThat(o.dispatches()).extracting(Dispatch::size).containsExactly(2);
        assertThat(ids(o.dispatches().get(0))).containsExactly("r0", "r1");
        assertThat(g.pendingCount()).isEqualTo(1);
    }

    @Test
    void theGuardFiresForTheFullBatchAtItsLatestStart() {
        GroupScheduler g = scheduler(new SmdpPolicy(Map.of("S", BatchingTable.staticBatch(4, 6)), true), device(0));
        g.admit(req("r0", "S", 0, 10_000));
        g.admit(req("r1", "S", 1, 20_000));
        g.admit(req("r2", "S", 2, 30_000));
        assertThat(g.schedule(2).nextWakeMicros()).isEqualTo(5_000); // 10 ms - tau(3)
        GroupScheduler.Outcome o = g.schedule(5_000);
        assertThat(o.dispatches()).extracting(Dispatch::size, Dispatch::predictedLatencyMicros).containsExactly(tuple(3, 5_000L));
    }

    @Test
    void tablesComeFromTheConfigurationAndTheGuardIsAParameterPerGroupOrModel() {
        PolicyParams params = PolicyParams.of(Map.of("deadline_guard", "false")).withModel("T", Map.of("deadline_guard", "true", "guard_margin_ms", "1.5"));
        ConfiguredPolicy c = Policies.configure("g", "smdp", params, io.kairos.core.scheduling.ControlInputs.tables(Map.of("S", TABLE)));
        SmdpPolicy p = (SmdpPolicy) c.policy();
        assertThat(p.table("S")).isEqualTo(TABLE);
        assertThat(p.table("T")).isNull();
        assertThat(p.deadlineGuard("S")).isEqualTo(new SmdpPolicy.Guard(false, 0));
        assertThat(p.deadlineGuard("T")).isEqualTo(new SmdpPolicy.Guard(true, 1_500));
        SmdpPolicy defaults = (SmdpPolicy) Policies.configure("g", "smdp", PolicyParams.NONE).policy();
        assertThat(defaults.tables()).isEmpty();
        assertThat(defaults.deadlineGuard("S")).isEqualTo(SmdpPolicy.Guard.DEFAULT);
        assertThatThrownBy(() -> Policies.configure("g", "smdp", PolicyParams.of(Map.of("deadline_guard", "sometimes"))))
                .hasMessage("serving group 'g': smdp parameter 'deadline_guard' must be true or false, got 'sometimes'");
        assertThatThrownBy(() -> Policies.configure("g", "smdp", PolicyParams.of(Map.of("batch", "4"))))
                .hasMessage("serving group 'g': smdp has no parameter 'batch' (set to '4'); it knows deadline_guard, guard_margin_ms, max_pending, placement, shed, shed_early, target_ongoing, window_hold, window_margin_ms");
    }
}
