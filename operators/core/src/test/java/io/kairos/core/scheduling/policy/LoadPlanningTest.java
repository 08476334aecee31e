package io.kairos.core.scheduling.policy;

import io.kairos.core.scheduling.Drop;
import io.kairos.core.scheduling.ModelAction;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.request.Request;
import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.scheduling.Dispatch;
import io.kairos.core.scheduling.GroupScheduler;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.core.scheduling.SchedulingPolicy;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * Loads as decisions of their own: the load planner gives a model another copy from its demand,
 * books the load on the device's timeline, and drops an idle copy a model can spare when memory is
 * needed; batches go only where the model is held or its load is done by the time they start.
 *
 * <p>The model H takes b + 4 ms at batch b (1 to 16, powers of two: 20 ms for 16, 800 requests/s
 * a device at full batches), 300 ms to load and 100 bytes; C is the same network under another
 * name. Requests of H arrive every 1.5 ms (666.7 requests/s), SLO 100 ms: 0.83 of a device at full
 * batches, more than {@code TARGET_UTILISATION} (0.7) of one copy, so H wants two.
 */
class LoadPlanningTest {
    private static final ModelCatalog CATALOG = ModelCatalog.parse("""
            {"models": [
              {"name": "H", "input": {"dtype": "FLOAT32", "shape": [1]}, "max_batch": 16,
               "latency_ms": {"alpha": 1.0, "beta": 4.0}, "memory_bytes": 100, "load_ms": 300},
              {"name": "C", "input": {"dtype": "FLOAT32", "shape": [1]}, "max_batch": 16,
               "latency_ms": {"alpha": 1.0, "beta": 4.0}, "memory_bytes": 100, "load_ms": 300}
            ]}""", "load-planning-test");
    private static final long GAP = 1_500;
    private static final long SLO = 100_000;

    /** What a drive of the scheduler gave: each call's time and outcome. */
    private record Call(long at, GroupScheduler.Outcome outcome) {}

    /**
     * Drives {@code g} as the engines do, open loop (every batch as predicted): schedule() at each
     * arrival and at each wake-up it asks for, until every request has ended.
     */
    private static List<Call> drive(GroupScheduler g, List<Request> arrivals) {
        List<Call> calls = new ArrayList<>();
        long wake = SchedulingPolicy.NO_WAKE;
        int next = 0;
        while (next < arrivals.size() || g.pendingCount() > 0) {
            long now = Math.min(next < arrivals.size() ? arrivals.get(next).arrivalMicros() : SchedulingPolicy.NO_WAKE, wake);
            while (next < arrivals.size() && arrivals.get(next).arrivalMicros() == now) g.admit(arrivals.get(next++));
            GroupScheduler.Outcome o = g.schedule(now);
            calls.add(new Call(now, o));
            wake = o.nextWakeMicros();
        }
        return calls;
    }

    private static List<Request> every(String model, long from, long gap, int count) {
        List<Request> out = new ArrayList<>();
        for (int i = 0; i < count; i++) out.add(new Request(model + i, model, from + i * gap, from + i * gap + SLO, null));
        return out;
    }

    private static DeviceView holding(int slot, long memory, String... models) {
        DeviceView d = new DeviceView(slot, null, memory);
        for (String m : models) d.hold(CATALOG.get(m));
        return d;
    }

    /** The actions without their reasons: "load H on 1". */
    private static List<String> what(List<ModelAction> actions) {
        return actions.stream().map(a -> (a.load() ? "load " : "unload ") + a.model() + " on " + a.device()).toList();
    }

    private static List<Dispatch> dispatches(List<Call> calls) {
        return calls.stream().flatMap(c -> c.outcome().dispatches().stream()).toList();
    }

    private static List<Drop> drops(List<Call> calls) {
        return calls.stream().flatMap(c -> c.outcome().drops().stream()).toList();
    }

    /** Each policy that chooses its devices through the shared device choice. */
    private static final List<Supplier<SchedulingPolicy>> POLICIES = List.of(LatestStartPolicy::kairos, LatestStartPolicy::clockwork, FlexPolicy::new, SmdpPolicy::new);

    /**
     * Device 0 holds H, device 1 nothing. H's rate counts once it has 100 ms of history: at the
     * first call from then, 100.5 ms (an arrival), it is 666.7/s: H wants two copies, and device 1,
     * idle, gets the load, booked from 100.5 ms to 400.5 ms, decided once. Device 0 serves every
     * request meanwhile (0.83 of it), none dropped, each ending by its deadline as booked; device
     * 1's first batch starts once the load is done.
     */
    @Test
    void aHotModelGetsItsSecondCopyAsALoadBookedOnTheIdleDeviceAndServesMeanwhile() {
        for (Supplier<SchedulingPolicy> policy : POLICIES) {
            List<DeviceView> devices = List.of(holding(0, 1_000, "H"), holding(1, 1_000));
            GroupScheduler g = new GroupScheduler("g", CATALOG, devices, policy.get(), PolicyParams.NONE);
            List<Call> calls = drive(g, every("H", 0, GAP, 400)); // 600 ms of arrivals
            String name = g.policy().name();

            List<Call> loading = calls.stream().filter(c -> !c.outcome().actions().isEmpty()).toList();
            assertThat(loading).as(name).extracting(Call::at, c -> what(c.outcome().actions()))
                    .containsExactly(tuple(100_500L, List.of("load H on 1")));
            // Why, as the telemetry says it: H's rate, about 667/s, takes 0.83 of a device's full
            // batches of 16 (20 ms each), so two copies keep each under 70 %.
            assertThat(loading.get(0).outcome().actions().get(0).why()).as(name)
                    .matches("demand: 6[5-7]\\d requests/s take 0\\.8\\d devices in full batches of 16; 2 copies keep each under 70 %");
            assertThat(drops(calls)).as(name + ": no request dropped while the copy loads").isEmpty();
            List<Dispatch> batches = dispatches(calls);
            for (Dispatch d : batches) {
                if (d.device() == 1) assertThat(d.predictedStartMicros()).as(name + ": a batch on device 1 before its load ended").isGreaterThanOrEqualTo(400_500);
                assertThat(d.predictedLatencyMicros()).as(name + ": no load in front of a batch").isEqualTo(CATALOG.get("H").latency().latencyMicros(d.size()));
                for (Request r : d.requests()) assertThat(d.predictedEndMicros()).as(name).isLessThanOrEqualTo(r.deadlineMicros());
            }
            assertThat(batches.stream().filter(d -> d.predictedStartMicros() < 400_500)).as(name + ": device 0 alone until the load ends")
                    .allSatisfy(d -> assertThat(d.device()).isZero());
            assertThat(batches).as(name + ": both copies serve once the second is loaded").anySatisfy(d -> assertThat(d.device()).isEqualTo(1));
        }
    }

    /**
     * A load that fails takes that copy out: device 0 holds H, devices 1 and 2 nothing. At 100.5 ms
     * H's second copy goes to device 1 (the lowest of two idle ones); at 150 ms device 1 reports
     * that it could not load H, which frees it: devices 1 and 2 are both idle then, and H still
     * wants two copies, so the next decision, at that same call, loads it on device 2, not on 1
     * (the lower slot) again, and no batch of H goes to device 1; device 0 serves
     * every request meanwhile. At 501 ms the group's devices change (device 2 leaves): device 1
     * may be tried again, and H, back to one copy, gets its load there.
     */
    @Test
    void aDeviceThatFailedToLoadAModelIsNotTriedAgainUntilTheDevicesChange() {
        List<DeviceView> devices = List.of(holding(0, 1_000, "H"), holding(1, 1_000), holding(2, 1_000));
        GroupScheduler g = new GroupScheduler("g", CATALOG, devices, LatestStartPolicy.kairos(), PolicyParams.NONE);
        List<Request> arrivals = every("H", 0, GAP, 400);
        List<Call> calls = new ArrayList<>();
        long wake = SchedulingPolicy.NO_WAKE;
        int next = 0;
        boolean failed = false, moved = false;
        while (next < arrivals.size() || g.pendingCount() > 0) {
            long now = Math.min(next < arrivals.size() ? arrivals.get(next).arrivalMicros() : SchedulingPolicy.NO_WAKE, wake);
            if (!failed && now >= 150_000) {
                g.loadFailed(1, "H", now);
                failed = true;
            }
            if (!moved && now >= 501_000) {
                assertThat(g.setDevices(List.of(new DeviceView(0, null, 1_000), new DeviceView(1, null, 1_000)))).isEmpty();
                moved = true;
            }
            while (next < arrivals.size() && arrivals.get(next).arrivalMicros() == now) g.admit(arrivals.get(next++));
            GroupScheduler.Outcome o = g.schedule(now);
            calls.add(new Call(now, o));
            wake = o.nextWakeMicros();
        }

        assertThat(calls.stream().filter(c -> !c.outcome().actions().isEmpty()).toList())
                .extracting(Call::at, c -> what(c.outcome().actions()))
                .containsExactly(tuple(100_500L, List.of("load H on 1")), tuple(150_000L, List.of("load H on 2")), tuple(501_000L, List.of("load H on 1")));
        assertThat(drops(calls)).isEmpty();
        assertThat(dispatches(calls)).filteredOn(d -> d.device() == 1).allSatisfy(d -> assertThat(d.predictedStartMicros()).isGreaterThanOrEqualTo(501_000 + 300_000));
        assertThat(dispatches(calls)).filteredOn(d -> d.device() == 2).isNotEmpty()
                .allSatisfy(d -> assertThat(d.predictedStartMicros()).isGreaterThanOrEqualTo(150_000 + 300_000));
    }

    /**
     * Three devices with room for one model each: device 0 holds H, devices 1 and 2 hold C, whose
     * two requests (at 0 and 200 ms) are served by then and leave it a rate of a few per second:
     * one copy is all it wants. When H comes at 666.7/s from 1 s, its second copy (decided at
     * 1.1005 s, 100 ms into H's history) needs room: C's copy on device 1 is idle and spare (C keeps
     * device 2), so device 1 unloads C, then loads H until 1.4005 s. C's last copy is not dropped.
     */
    @Test
    void aModelWhoseDemandFellLosesItsIdleCopyWhenAnotherNeedsTheMemory() {
        List<DeviceView> devices = List.of(holding(0, 100, "H"), holding(1, 100, "C"), holding(2, 100, "C"));
        GroupScheduler g = new GroupScheduler("g", CATALOG, devices, LatestStartPolicy.kairos(), PolicyParams.NONE);
        List<Request> arrivals = new ArrayList<>(every("C", 0, 200_000, 2));
        arrivals.addAll(every("H", 1_000_000, GAP, 200));
        List<Call> calls = drive(g, arrivals);

        assertThat(calls.stream().filter(c -> !c.outcome().actions().isEmpty()).toList())
                .extracting(Call::at, c -> what(c.outcome().actions()))
                .containsExactly(tuple(1_100_500L, List.of("unload C on 1", "load H on 1")));
        assertThat(calls.stream().flatMap(c -> c.outcome().actions().stream()).filter(a -> !a.load()))
                .extracting(ModelAction::why).containsExactly("room for 'H': an idle copy its model can spare");
        assertThat(devices.get(1).loadedModels()).containsExactly("H");
        assertThat(devices.get(2).loadedModels()).containsExactly("C");
        assertThat(drops(calls)).isEmpty();
        assertThat(dispatches(calls)).filteredOn(d -> d.device() == 1 && d.model().equals("H"))
                .allSatisfy(d -> assertThat(d.predictedStartMicros()).isGreaterThanOrEqualTo(1_400_500));
    }

    /**
     * A copy with work of its model booked is not idle: with C's batch booked on device 1 until
     * after H wants its copy, the planner takes C's idle copy on device 2 instead.
     */
    @Test
    void aCopyWithWorkBookedIsNotDropped() {
        DeviceView one = holding(1, 100, "C");
        List<DeviceView> devices = List.of(holding(0, 100, "H"), one, holding(2, 100, "C"));
        GroupScheduler g = new GroupScheduler("g", CATALOG, devices, LatestStartPolicy.kairos(), PolicyParams.NONE);
        // C's batch, of a request that came long before, runs on device 1 from 1 s to 1.2 s.
        one.book(new Dispatch("C", new Request[] {new Request("c", "C", 0, 2_000_000, null)}, 1, 1_000_000, 200_000), 1_000_000);
        List<Call> calls = drive(g, every("H", 1_000_000, GAP, 100));
        assertThat(what(calls.stream().flatMap(c -> c.outcome().actions().stream()).toList()))
                .containsExactly("unload C on 2", "load H on 2");
        assertThat(one.loadedModels()).containsExactly("C");
    }

    /** A model larger than a device's free memory, with no copy to spare there, gets no copy: the model that holds it keeps it. */
    @Test
    void noCopyWhereNoIdleCopyCanBeSpared() {
        List<DeviceView> devices = List.of(holding(0, 100, "H"), holding(1, 100, "C"));
        GroupScheduler g = new GroupScheduler("g", CATALOG, devices, LatestStartPolicy.kairos(), PolicyParams.NONE);
        List<Request> arrivals = new ArrayList<>();
        // C at 100/s: one copy wanted, and it has one.
        for (int i = 0; i < 100; i++) arrivals.add(new Request("c" + i, "C", i * 10_000L, i * 10_000L + SLO, null));
        arrivals.addAll(every("H", 0, GAP, 400));
        arrivals.sort(java.util.Comparator.comparingLong(Request::arrivalMicros));
        List<Call> calls = drive(g, arrivals);
        assertThat(calls.stream().flatMap(c -> c.outcome().actions().stream()).toList()).isEmpty();
        assertThat(devices.get(1).loadedModels()).containsExactly("C");
    }
    /**
     * Properties on larger cases: random rates of H and C (100 to 2,000 requests/s each, gaps drawn
     * around them), eight devices of unbounded memory of which device 0 holds both, every policy.
     * No batch starts on a device before a load booked there for its model ends; no device loads
     * a model twice (memory never asks for a copy to go); no batch carries a load in front of it.
     */
    @Test
    void noBatchBeforeItsLoadEndsAndNoDeviceLoadsAModelTwice() {
        java.util.Random rnd = new java.util.Random(47);
        int loads = 0;
        for (int round = 0; round < 12; round++) {
            Supplier<SchedulingPolicy> policy = POLICIES.get(round % POLICIES.size());
            List<DeviceView> devices = new ArrayList<>();
            devices.add(holding(0, Long.MAX_VALUE, "H", "C"));
            for (int slot = 1; slot < 8; slot++) devices.add(holding(slot, Long.MAX_VALUE));
            GroupScheduler g = new GroupScheduler("g", CATALOG, devices, policy.get(), PolicyParams.NONE);
            List<Request> arrivals = new ArrayList<>();
            for (String model : List.of("H", "C")) {
                double meanGap = 1e6 / (100 + rnd.nextInt(1_901));
                long t = 0;
                for (int i = 0; t < 1_500_000; i++) {
                    t += (long) Math.ceil(-meanGap * Math.log(1 - rnd.nextDouble()));
                    arrivals.add(new Request(model + i, model, t, t + SLO, null));
                }
            }
            arrivals.sort(java.util.Comparator.comparingLong(Request::arrivalMicros));
            List<Call> calls = drive(g, arrivals);
            String name = g.policy().name() + " round " + round;

            java.util.Map<String, Long> loadEnds = new java.util.HashMap<>();
            for (Call c : calls) {
                for (ModelAction a : c.outcome().actions()) {
                    assertThat(a.load()).as(name + ": an unload with memory to spare").isTrue();
                    String key = a.device() + "/" + a.model();
                    assertThat(loadEnds).as(name + ": %s loaded twice", key).doesNotContainKey(key);
                    loadEnds.put(key, c.at() + CATALOG.get(a.model()).loadMicros());
                    loads++;
                }
                for (Dispatch d : c.outcome().dispatches()) {
                    Long loaded = loadEnds.get(d.device() + "/" + d.model());
                    // Booked behind the work before it, a load ends at its start + 300 ms at the earliest.
                    if (loaded != null) assertThat(d.predictedStartMicros()).as(name + ": %s before its load ended", d).isGreaterThanOrEqualTo(loaded);
                    if (d.device() != 0 && loaded == null) throw new AssertionError(name + ": a batch on device " + d.device() + " that never loaded " + d.model());
                    assertThat(d.predictedLatencyMicros()).as(name + ": a load in front of a batch").isEqualTo(CATALOG.get(d.model()).latency().latencyMicros(d.size()));
                }
            }
        }
        assertThat(loads).as("the cases ask for copies").isGreaterThan(12);
    }
}
