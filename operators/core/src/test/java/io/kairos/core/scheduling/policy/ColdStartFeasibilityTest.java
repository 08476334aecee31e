package io.kairos.core.scheduling.policy;

import io.kairos.core.model.ModelCatalog;
import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.scheduling.Dispatch;
import io.kairos.core.scheduling.GroupScheduler;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.core.scheduling.SchedulingPolicy;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.kairos.core.scheduling.policy.SchedulingFixtures.droppedIds;
import static io.kairos.core.scheduling.policy.SchedulingFixtures.req;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * The cold start is inside feasibility and shedding, for every policy: a batch sent to a device
 * that does not hold its model starts computing only once the model is loaded there, which is how
 * the scheduler books it, so a batch is judged feasible, and a request reachable, from that
 * instant.
 *
 * <p>The cases: M takes 10 ms at batch 1 and 30 ms to load; L takes 10, 12, 16 ms at batches 1, 2,
 * 4 and 20 ms to load. Device 0 holds M already and is busy until 5 ms; device 1 holds nothing
 * and is idle.
 */
class ColdStartFeasibilityTest {
    private static final ModelCatalog CATALOG = ModelCatalog.parse("""
            {"models": [
              {"name": "M", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 10}}, "memory_bytes": 100, "load_ms": 30},
              {"name": "L", "input": {"dtype": "FLOAT32", "shape": [1]}, "batch_sizes": [1, 2, 4],
               "latency_ms": {"table": {"1": 10, "2": 12, "4": 16}}, "memory_bytes": 100, "load_ms": 20}
            ]}""", "cold-start-feasibility-test");

    private static List<DeviceView> warmBusyAndColdIdle() {
        DeviceView warm = new DeviceView(0, null, 1_000);
        warm.hold(CATALOG.get("M"));
        warm.book(0, 5_000);
        return List.of(warm, new DeviceView(1, null, 1_000));
    }

    private static GroupScheduler group(SchedulingPolicy policy, List<DeviceView> devices) {
        return new GroupScheduler("g", CATALOG, devices, policy, PolicyParams.NONE);
    }

    @Test
    void aDeviceTellsWhenABatchCouldStartComputingThere() {
        List<DeviceView> d = warmBusyAndColdIdle();
        // Warm, busy until 5 ms: 5 ms. Cold, idle: 0 + 30 ms load.
        assertThat(d.get(0).readyAtMicros(CATALOG.get("M"), 0)).isEqualTo(5_000);
        assertThat(d.get(1).readyAtMicros(CATALOG.get("M"), 0)).isEqualTo(30_000);
        assertThat(d.get(0).isWarm(CATALOG.get("M"))).isTrue();
        assertThat(d.get(1).isWarm(CATALOG.get("M"))).isFalse();
    }

    /**
     * Kairos (latest start) at 0: device 1 is the only one free; M there would start computing at
     * 30 ms and end at 40 ms, past the deadline of 20 ms, so it takes nothing. At 5 ms, device 0
     * frees: 5 + 10 = 15 ms &le; 20 ms. Before the load counted, device 1 took it at 0 and ended
     * it at 40 ms, 20 ms late.
     */
    @Test
    void latestStartLeavesAColdDeviceAloneWhenTheLoadWouldMakeTheBatchLate() {
        GroupScheduler g = group(LatestStartPolicy.kairos(), warmBusyAndColdIdle());
        g.admit(req("m", "M", 0, 20_000));
        GroupScheduler.Outcome at0 = g.schedule(0);
        assertThat(at0.dispatches()).isEmpty();
        assertThat(at0.drops()).isEmpty();
        assertThat(at0.nextWakeMicros()).isEqualTo(5_000);
        assertThat(g.schedule(5_000).dispatches()).extracting(Dispatch::device, Dispatch::predictedStartMicros, Dispatch::predictedEndMicros)
                .containsExactly(tuple(0, 5_000L, 15_000L));
    }

    /** Flex at 0: the same; its fallback (the earliest head alone) no longer sends the head where it cannot make it while device 0 still can. */
    @Test
    void flexLeavesTheHeadToTheDeviceThatCanStillMakeIt() {
        GroupScheduler g = group(new FlexPolicy(), warmBusyAndColdIdle());
        g.admit(req("m", "M", 0, 20_000));
        GroupScheduler.Outcome at0 = g.schedule(0);
        assertThat(at0.dispatches()).isEmpty();
        assertThat(at0.nextWakeMicros()).isEqualTo(5_000);
        assertThat(g.schedule(5_000).dispatches()).extracting(Dispatch::device, Dispatch::predictedEndMicros)
                .containsExactly(tuple(0, 15_000L));
    }

    /**
     * Shedding judges a head from the earliest instant its model could start computing on a device
     * a batch may go to: device 0 holds M but is busy until 40 ms; device 1 does not hold it, and
     * while device 0 does, a batch does not carry a load there (the load planner's to decide). So
     * it would end at 50 ms at the earliest, 15 ms past its deadline of 35 ms: dropped at once.
     */
    @Test
    void aHeadThatNoDeviceCanServeInTimeOnceLoadedIsShed() {
        DeviceView warm = new DeviceView(0, null, 1_000);
        warm.hold(CATALOG.get("M"));
        warm.book(0, 40_000);
        GroupScheduler g = group(OneAtATimePolicy.edf(), List.of(warm, new DeviceView(1, null, 1_000)));
        g.admit(req("m", "M", 0, 35_000));
        GroupScheduler.Outcome o = g.schedule(0);
        assertThat(o.dispatches()).isEmpty();
        assertThat(droppedIds(o)).containsExactly("m");
        assertThat(o.drops().get(0).reason()).isEqualTo("deadline unreachable: alone on the earliest-free device it would finish 15000 us late");
    }

    /**
     * The first load of a model is unavoidable: with no device holding M, the same request is
     * judged by its inference alone (latest start 25 ms &ge; 0) and goes, booked with its load
     * (0 to 40 ms, 5 ms late): it warms device 1 for the requests behind it. Judged with the load,
     * a model whose SLO is shorter than its load would never be loaded again.
     */
    @Test
    void theFirstLoadOfAModelNoDeviceHoldsIsPaidNotShed() {
        GroupScheduler g = group(OneAtATimePolicy.edf(), List.of(new DeviceView(1, null, 1_000)));
        g.admit(req("m", "M", 0, 35_000));
        GroupScheduler.Outcome o = g.schedule(0);
        assertThat(o.drops()).isEmpty();
        assertThat(o.dispatches()).extracting(Dispatch::device, Dispatch::predictedStartMicros, Dispatch::predictedLatencyMicros)
                .containsExactly(tuple(1, 0L, 40_000L));
    }

    /** ...and keeps it while the warm device can: ready at 5 ms, latest start alone 25 ms. */
    @Test
    void aHeadThatAWarmDeviceCanServeInTimeIsKept() {
        GroupScheduler g = group(OneAtATimePolicy.edf(), warmBusyAndColdIdle());
        g.admit(req("m", "M", 0, 35_000));
        assertThat(g.schedule(0).drops()).isEmpty();
    }

    /**
     * Work-conserving no longer sends a batch to a device that must load its model first while
     * another holds it: four L requests, head deadline 34 ms; device 0 holds L but is busy until
     * 100 ms; device 1 is idle without L. Nothing goes to device 1 (before, 2 went there, booked
     * with the load, 0 to 32 ms), and on device 0 none could end by its deadline: all four are shed.
     * Four requests at one instant are no rate for the load planner to add a copy for.
     */
    @Test
    void workConservingSendsNoBatchToACopyThatMustLoadFirst() {
        DeviceView warm = new DeviceView(0, null, 1_000);
        warm.hold(CATALOG.get("L"));
        warm.book(0, 100_000);
        GroupScheduler g = group(new WorkConservingPolicy(), List.of(warm, new DeviceView(1, null, 1_000)));
        for (int i = 0; i < 4; i++) g.admit(req("l" + i, "L", 0, 34_000 + i));
        GroupScheduler.Outcome o = g.schedule(0);
        assertThat(o.dispatches()).isEmpty();
        assertThat(o.actions()).isEmpty();
        assertThat(droppedIds(o)).containsExactly("l0", "l1", "l2", "l3");
    }
}
