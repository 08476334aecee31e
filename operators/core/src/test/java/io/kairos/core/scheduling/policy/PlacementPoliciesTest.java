package io.kairos.core.scheduling.policy;

import io.kairos.core.scheduling.ModelAction;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.model.ModelSpec;
import io.kairos.core.request.Request;
import io.kairos.core.scheduling.AutoPlacement;
import io.kairos.core.scheduling.BatchReport;
import io.kairos.core.scheduling.ColocationPlacement;
import io.kairos.core.scheduling.ConfiguredPolicy;
import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.scheduling.Dispatch;
import io.kairos.core.scheduling.GroupScheduler;
import io.kairos.core.scheduling.AnalyticModel;
import io.kairos.core.scheduling.PlacementPolicy;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.core.scheduling.RegistryPlacement;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static io.kairos.core.scheduling.policy.SchedulingFixtures.req;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

/**
 * Each placement policy on hand-worked cases. M takes 10 ms at batch 1 and 30 ms to load; T (a
 * t5-small of the thesis, in ms for s) takes 1,000 ms, loads in 3,000, with no pre/post-processing
 * and 5,000 ms of network.
 */
class PlacementPoliciesTest {
    private static final ModelCatalog CATALOG = ModelCatalog.parse("""
            {"models": [
              {"name": "M", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 10}}, "memory_bytes": 100, "load_ms": 30},
              {"name": "T", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 1000}}, "memory_bytes": 100, "load_ms": 3000,
               "pre_post_ms": 0, "network_ms": 5000},
              {"name": "P", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 10}}, "memory_bytes": 100, "load_ms": 30,
               "pre_post_ms": 5, "network_ms": 2}
            ]}""", "placement-test");
    private static final ModelSpec M = CATALOG.get("M");

    /** Device 0 holds M; device 1 does not. */
    private static DeviceView warm(int slot) {
        DeviceView d = new DeviceView(slot, null, 1_000);
        d.hold(M);
        return d;
    }

    private static DeviceView cold(int slot) {
        return new DeviceView(slot, null, 1_000);
    }

    /** Books {@code n} batches of M of 10 ms each on {@code d} from 0. */
    private static void busy(DeviceView d, int n) {
        for (int i = 0; i < n; i++) {
            d.book(new Dispatch("M", new Request[] {req("b" + i, "M", 0, 1_000_000)}, d.slot(), d.startAtMicros(0), 10_000), 0);
        }
    }

    @Test
    void defaultAdmitsWarmAndColdAlike() {
        DeviceView w = warm(0);
        DeviceView c = cold(1);
        assertThat(PlacementPolicy.DEFAULT.admits(M, c, List.of(w, c), 0)).isTrue();
        assertThat(PlacementPolicy.DEFAULT.modelAware()).isFalse();
    }

    /**
     * Without queuing: the cold device is admitted only when no warm one starts as soon. The warm
     * device idle (starts at 0, as the cold one): not admitted. The warm device busy until 10 ms:
     * admitted, it would wait.
     */
    @Test
    void colocationWithoutQueuingColdStartsRatherThanWait() {
        ColocationPlacement without = new ColocationPlacement(false);
        DeviceView w = warm(0);
        DeviceView c = cold(1);
        assertThat(without.admits(M, w, List.of(w, c), 0)).isTrue();
        assertThat(without.admits(M, c, List.of(w, c), 0)).isFalse();
        busy(w, 1);
        assertThat(without.admits(M, c, List.of(w, c), 0)).isTrue();
        assertThat(without.admits(M, cold(2), List.of(cold(2), c), 0)).as("nobody holds it: the first load is unavoidable").isTrue();
    }

    @Test
    void colocationWithQueuingWaitsForAWarmDevice() {
        ColocationPlacement with = new ColocationPlacement(true);
        DeviceView w = warm(0);
        DeviceView c = cold(1);
        busy(w, 3);
        assertThat(with.admits(M, c, List.of(w, c), 0)).isFalse();
        assertThat(with.admits(M, w, List.of(w, c), 0)).isTrue();
        assertThat(with.admits(M, c, List.of(cold(0), c), 0)).isTrue();
    }

    /**
     * The registry with a target of 2: the holder with 1 batch outstanding takes it, the cold device
     * does not, and no copy is wanted; with 2 outstanding (full), the registry wants a copy and
     * neither takes the batch; once the copy's load is booked on the cold device, that device
     * takes it (its batch to start when the load is done) and the full holder does not; with
     * every device holding the model and full, the holders take it. A device the model does not
     * fit at all is no device to load on.
     */
    @Test
    void registryFillsHoldersUpToTheTargetThenLoadsElsewhere() {
        RegistryPlacement registry = new RegistryPlacement(2);
        DeviceView w = warm(0);
        DeviceView c = cold(1);
        busy(w, 1);
        assertThat(w.outstandingBatches(0)).isEqualTo(1);
        assertThat(registry.admits(M, w, List.of(w, c), 0)).isTrue();
        assertThat(registry.admits(M, c, List.of(w, c), 0)).isFalse();
        assertThat(registry.copyWanted(M, List.of(w, c), 0)).isNull();
        busy(w, 1);
        assertThat(registry.admits(M, w, List.of(w, c), 0)).isFalse();
        assertThat(registry.admits(M, c, List.of(w, c), 0)).as("another copy is a load decision, not a batch's").isFalse();
        assertThat(registry.copyWanted(M, List.of(w, c), 0)).isEqualTo("every copy has 2 batches outstanding (target_ongoing)");
        assertThat(registry.admits(M, w, List.of(w), 0)).as("nowhere else to load").isTrue();
        assertThat(registry.copyWanted(M, List.of(w), 0)).isNull();
        assertThat(registry.admits(M, w, List.of(w, new DeviceView(1, null, 99)), 0)).as("M (100 bytes) does not fit a 99-byte device").isTrue();
        // At 15 ms the first batch is predicted done: room again.
        assertThat(registry.admits(M, w, List.of(w, c), 15_000)).isTrue();
        assertThat(registry.copyWanted(M, List.of(w, c), 15_000)).isNull();
        assertThat(new RegistryPlacement(3).admits(M, c, List.of(w, c), 0)).isFalse();
        assertThat(c.bookLoad(M, 0)).isEqualTo(30_000);
        assertThat(registry.admits(M, c, List.of(w, c), 0)).isTrue();
        assertThat(registry.admits(M, w, List.of(w, c), 0)).isFalse();
        assertThat(registry.copyWanted(M, List.of(w, c), 0)).isNull();
        assertThat(registry.admits(M, cold(2), List.of(cold(2), cold(3)), 0)).as("nobody holds it: the first load is unavoidable").isTrue();
    }

    /**
     * The group under the registry with a target of 1: two M requests at 0, device 0 warm and
     * idle, device 1 cold. The first goes to device 0 (0 to 10 ms); device 0 is then full, so the
     * registry wants a copy: the load planner loads M on device 1 (0 to 30 ms), an action of its
     * own with its reason. The work-conserving policy sends a batch to an idle device only: device
     * 0 is free first, at 10 ms, with room again, and the second batch runs there, 10 to 20 ms.
     * When a batch carried the load, it went to device 1 at 0 and ended at 40 ms.
     */
    @Test
    void theRegistrysLoadElsewhereIsALoadDecision() {
        GroupScheduler g = new GroupScheduler("g", CATALOG, List.of(warm(0), cold(1)), new WorkConservingPolicy(),
                PolicyParams.of(Map.of("placement", "registry", "target_ongoing", "1")));
        g.admit(req("m1", "M", 0, 1_000_000));
        g.admit(req("m2", "M", 0, 1_000_000));
        List<Dispatch> all = new java.util.ArrayList<>();
        List<ModelAction> actions = new java.util.ArrayList<>();
        for (long t = 0; all.size() < 2 && t <= 40_000; ) {
            GroupScheduler.Outcome o = g.schedule(t);
            all.addAll(o.dispatches());
            actions.addAll(o.actions());
            t = o.nextWakeMicros();
        }
        assertThat(all).extracting(Dispatch::device, Dispatch::predictedStartMicros, Dispatch::predictedLatencyMicros)
                .containsExactly(tuple(0, 0L, 10_000L), tuple(0, 10_000L, 10_000L));
        assertThat(actions).containsExactly(ModelAction.load(1, "M", "registry: every copy has 1 batch outstanding (target_ongoing)"));
    }

    /**
     * The group with placement colocation-queuing (work-conserving): two M requests at 0, device 0
     * warm and idle, device 1 cold. The first goes to device 0 for 10 ms; the second waits for it
     * and runs from 10 to 20 ms, no load. Without queuing, the second cold-starts on device 1 at 0
     * (30 + 10 ms). Model-unaware, the same as with queuing: while device 0 holds M, a batch does
     * not carry a load to device 1 (another copy is the load planner's decision, and two requests
     * are no demand for one).
     */
    @Test
    void theGroupPlacesByTheModelsPlacementParameter() {
        assertThat(twoRequests("colocation-queuing")).containsExactly(tuple(0, 0L, 10_000L), tuple(0, 10_000L, 10_000L));
        assertThat(twoRequests("colocation")).containsExactly(tuple(0, 0L, 10_000L), tuple(1, 0L, 40_000L));
        assertThat(twoRequests("default")).containsExactly(tuple(0, 0L, 10_000L), tuple(0, 10_000L, 10_000L));
    }

    private static List<org.assertj.core.groups.Tuple> twoRequests(String placement) {
        GroupScheduler g = new GroupScheduler("g", CATALOG, List.of(warm(0), cold(1)), new WorkConservingPolicy(),
                PolicyParams.of(Map.of()).withModel("M", Map.of("placement", placement)));
        g.admit(req("m1", "M", 0, 1_000_000));
        g.admit(req("m2", "M", 0, 1_000_000));
        List<Dispatch> all = new java.util.ArrayList<>(g.schedule(0).dispatches());
        if (all.size() < 2) all.addAll(g.schedule(10_000).dispatches());
        return all.stream().map(d -> tuple(d.device(), d.predictedStartMicros(), d.predictedLatencyMicros())).toList();
    }

    /**
     * P takes 10 ms, 5 ms of pre/post-processing and 2 ms of network; device 0 holds it. Colocated,
     * the batch holds device 0 for 10 + 5 = 15 ms from 0. Sent by the registry to the holder, it
     * reaches it at 2 ms, holds it for the inference alone (10 ms), and its request ends 5 ms
     * after: 17 ms, what the scheduler judged its deadline by.
     */
    @Test
    void theRegistrySendsABatchOverTheNetworkAndLeavesItsPrePostProcessingBehind() {
        ModelSpec p = CATALOG.get("P");
        for (String placement : List.of("colocation", "registry")) {
            DeviceView w = new DeviceView(0, null, 1_000);
            w.hold(p);
            GroupScheduler g = new GroupScheduler("g", CATALOG, List.of(w), new WorkConservingPolicy(), PolicyParams.of(Map.of("placement", placement)));
            g.admit(req("p", "P", 0, 17_000));
            Dispatch d = g.schedule(0).dispatches().get(0);
            if (placement.equals("colocation")) {
                assertThat(List.of(d.predictedStartMicros(), d.predictedLatencyMicros(), d.networkMicros(), d.afterMicros())).containsExactly(0L, 15_000L, 0L, 0L);
            } else {
                assertThat(List.of(d.predictedStartMicros(), d.predictedLatencyMicros(), d.networkMicros(), d.afterMicros())).containsExactly(2_000L, 10_000L, 2_000L, 5_000L);
                assertThat(d.predictedEndMicros() + d.afterMicros()).isEqualTo(17_000);
            }
        }
    }

    @Test
    void placementIsSetPerGroupAndPerModel() {
        ConfiguredPolicy c = Policies.configure("g", "kairos", PolicyParams.of(Map.of("placement", "colocation"))
                .withModel("T", Map.of("placement", "registry", "target_ongoing", "2")));
        assertThat(c.placement().of("M").name()).isEqualTo("colocation");
        assertThat(c.placement().of("T")).isInstanceOfSatisfying(RegistryPlacement.class, r -> assertThat(r.targetOngoing()).isEqualTo(2));
        assertThat(Policies.configure("g", "kairos", PolicyParams.NONE).placement().of("M")).isSameAs(PlacementPolicy.DEFAULT);
    }

    @Test
    void aBadPlacementIsRejectedWithAReason() {
        assertThatThrownBy(() -> Policies.configure("g", "kairos", PolicyParams.of(Map.of("placement", "nearest"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("serving group 'g': kairos parameter 'placement' must be one of default, colocation, colocation-queuing, registry, auto, got 'nearest'");
        assertThatThrownBy(() -> Policies.configure("g", "flex", PolicyParams.of(Map.of("placement", "colocation", "target_ongoing", "2"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("serving group 'g': flex parameter 'target_ongoing' must be set only with placement registry or auto, whose parameter it is; "
                        + "placement is 'colocation', got '2'");
        assertThatThrownBy(() -> Policies.configure("g", "flex", PolicyParams.of(Map.of()).withModel("T", Map.of("placement", "registry", "target_ongoing", "0"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("serving group 'g', model 'T': flex parameter 'target_ongoing' must be a whole number, at least 1, got '0'");
    }

    /**
     * auto on T (the thesis' Table 6.2): device 0 holds T with one batch outstanding, device 1 is
     * cold. The estimate: T_CS 3,000 ms, T_I = T_Iavg 1,000 ms (the catalog's, nothing measured),
     * T_P 0, T_N 5,000 ms, n = 1: colocation 4 s, with queuing 2 s, registry 7 s: with queuing, so
     * device 1 is not admitted. Then it measures: warm batches of 800 and 1,300 ms make T_I
     * 800 and 0.8·800 + 0.2·1,300 = 900 ms; a cold batch of 4,000 ms makes T_CS 4,000 - 900 = 3,100 ms.
     */
    @Test
    void autoPicksTheSmallestEstimateFromWhatItMeasures() {
        ModelSpec t = CATALOG.get("T");
        DeviceView w = new DeviceView(0, null, 1_000);
        w.hold(t);
        w.book(new Dispatch("T", new Request[] {req("a", "T", 0, 60_000_000)}, 0, 0, 1_000_000), 0);
        DeviceView c = cold(1);
        AutoPlacement auto = new AutoPlacement(3);
        assertThat(auto.estimate(t, List.of(w, c), 0)).isEqualTo(new AnalyticModel(3_000_000, 1_000_000, 0, 5_000_000, 1_000_000, 0, 1));
        assertThat(auto.admits(t, c, List.of(w, c), 0)).isFalse();
        assertThat(auto.admits(t, w, List.of(w, c), 0)).isTrue();
        assertThat(auto.lastChoice("T")).isEqualTo(ColocationPlacement.WITH_QUEUING);

        Dispatch d = new Dispatch("T", new Request[] {req("x", "T", 0, 60_000_000)}, 0, 0, 1_000_000);
        auto.observe(t, BatchReport.ran(d, 0, 800_000, false));
        auto.observe(t, BatchReport.ran(d, 0, 1_300_000, false));
        auto.observe(t, BatchReport.ran(d, 0, 4_000_000, true));
        assertThat(auto.estimate(t, List.of(w, c), 0)).isEqualTo(new AnalyticModel(3_100_000, 900_000, 0, 5_000_000, 900_000, 0, 1));
        assertThat(auto.estimate(t, List.of(c), 0)).as("no device holds it: nothing to estimate").isNull();
    }
}
