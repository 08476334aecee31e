package io.kairos.core.scheduling.policy;

import io.kairos.core.scheduling.ModelAction;
import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.scheduling.Dispatch;
import io.kairos.core.scheduling.GroupScheduler;
import io.kairos.core.scheduling.PolicyParams;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static io.kairos.core.scheduling.policy.SchedulingFixtures.req;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * The scheduler books a model's load time in front of a batch its device does not hold, and turns
 * a placement change into explicit loads and unloads.
 */
class GroupSchedulerColdStartTest {
    /**
     * C: 2 ms, 100 bytes, 8 ms to load; D: 1 ms, 100 bytes, 4 ms to load; E: 1 ms, 60 bytes, 2 ms
     * to load. A 150-byte device holds one of C and D.
     */
    private static final ModelCatalog CATALOG = ModelCatalog.parse("""
            {"models": [
              {"name": "C", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 2}}, "memory_bytes": 100, "load_ms": 8},
              {"name": "D", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 1}}, "memory_bytes": 100, "load_ms": 4},
              {"name": "E", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 1}}, "memory_bytes": 60, "load_ms": 2}
            ]}""", "cold-start-test");

    @Test
    void firstBatchOfAModelIsBookedWithItsLoadTimeAndAnEvictedModelIsColdAgain() {
        DeviceView device = new DeviceView(0, null, 150);
        GroupScheduler g = new GroupScheduler("g", CATALOG, List.of(device), OneAtATimePolicy.fifo(), PolicyParams.NONE);

        g.admit(req("c1", "C", 0, 1_000_000));
        // Cold: 8 ms load + 2 ms run, on [0, 10 ms).
        assertThat(g.schedule(0).dispatches()).extracting(Dispatch::model, Dispatch::predictedStartMicros, Dispatch::predictedLatencyMicros)
                .containsExactly(tuple("C", 0L, 10_000L));
        g.admit(req("c2", "C", 1, 1_000_000));
        // Warm: 2 ms, on [10, 12 ms).
        assertThat(g.schedule(10_000).dispatches()).extracting(Dispatch::predictedStartMicros, Dispatch::predictedLatencyMicros)
                .containsExactly(tuple(10_000L, 2_000L));
        g.admit(req("d1", "D", 12_000, 1_000_000));
        // D does not fit beside C: 4 ms load + 1 ms run, C evicted.
        assertThat(g.schedule(12_000).dispatches()).extracting(Dispatch::model, Dispatch::predictedLatencyMicros)
                .containsExactly(tuple("D", 5_000L));
        assertThat(device.loadedModels()).containsExactly("D");
        g.admit(req("c3", "C", 17_000, 1_000_000));
        assertThat(g.schedule(17_000).dispatches()).extracting(Dispatch::model, Dispatch::predictedStartMicros, Dispatch::predictedLatencyMicros)
                .containsExactly(tuple("C", 17_000L, 10_000L));
    }

    @Test
    void aPlacementChangeUnloadsWhatTheDeviceNoLongerServesAndLoadsWhatFits() {
        GroupScheduler g = new GroupScheduler("g", CATALOG, List.of(new DeviceView(0, Set.of("C", "D"), 150)), OneAtATimePolicy.fifo(), PolicyParams.NONE);
        g.admit(req("c1", "C", 0, 1_000_000));
        g.schedule(0); // C loaded on device 0, busy until 10 ms

        // Device 0 now serves D and E instead of C; device 1 joins with C.
        DeviceView zero = new DeviceView(0, Set.of("D", "E"), 150);
        DeviceView one = new DeviceView(1, Set.of("C"), 150);
        List<ModelAction> actions = g.setDevices(List.of(zero, one));

        // Device 0: C out, then D (100 bytes) and E (60): 160 bytes do not fit in 150, so D, first
        // by name, is loaded and E waits for its first batch. Device 1: C.
        assertThat(actions).containsExactly(
                ModelAction.unload(0, "C", ModelAction.UNPLACED),
                ModelAction.load(0, "D", ModelAction.PLACED),
                ModelAction.load(1, "C", ModelAction.PLACED));
        assertThat(zero.loadedModels()).containsExactly("D");
        assertThat(one.loadedModels()).containsExactly("C");
        assertThat(zero.freeAtMicros()).as("the work booked before stays, D's load (4 ms) booked behind it").isEqualTo(14_000);

        // D's first batch is warm: when D's load ends, 1 ms with no load in front of it.
        g.admit(req("d1", "D", 1_000, 1_000_000));
        assertThat(g.schedule(14_000).dispatches()).extracting(Dispatch::device, Dispatch::predictedStartMicros, Dispatch::predictedLatencyMicros)
                .containsExactly(tuple(0, 14_000L, 1_000L));
        assertThat(g.setDevices(List.of(new DeviceView(0, Set.of("D", "E"), 150), new DeviceView(1, Set.of("C"), 150))))
                .as("the same placement again changes nothing").isEmpty();
    }
}
