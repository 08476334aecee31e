package io.kairos.core.scheduling.policy;

import io.kairos.core.model.ModelCatalog;
import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.scheduling.Dispatch;
import io.kairos.core.scheduling.GroupScheduler;
import io.kairos.core.scheduling.PolicyParams;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.kairos.core.scheduling.policy.SchedulingFixtures.req;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * A model whose memory is counted but whose loading takes no time may go to any device it is
 * placed on, even while another device holds it: nothing waits in front of its batch, so the rule
 * that keeps a load from riding in front of a batch has nothing to keep. A model that takes time to
 * load keeps to the device that holds it.
 *
 * <p>The case: Z takes 10 ms at batch 1, 100 bytes and no load time; S the same with a 30 ms
 * load. Device 0 holds both and is busy until 50 ms; device 1 holds nothing and is idle. A request
 * with a deadline of 40 ms arrives at 0.
 */
class ZeroLoadPlacementTest {
    private static final ModelCatalog CATALOG = ModelCatalog.parse("""
            {"models": [
              {"name": "Z", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 10}}, "memory_bytes": 100},
              {"name": "S", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 10}}, "memory_bytes": 100, "load_ms": 30}
            ]}""", "zero-load-placement-test");

    private static GroupScheduler group() {
        DeviceView busy = new DeviceView(0, null, 1_000);
        busy.hold(CATALOG.get("Z"));
        busy.hold(CATALOG.get("S"));
        busy.book(0, 50_000);
        return new GroupScheduler("g", CATALOG, List.of(busy, new DeviceView(1, null, 1_000)), LatestStartPolicy.kairos(), PolicyParams.NONE);
    }

    /** Z on the idle device 1 at once: 0 to 10 ms, by its 40 ms deadline; device 0 would end it at 60 ms. */
    @Test
    void aModelThatLoadsInNoTimeGoesToTheIdleDevice() {
        GroupScheduler g = group();
        g.admit(req("z", "Z", 0, 40_000));
        assertThat(g.schedule(0).dispatches()).extracting(Dispatch::device, Dispatch::predictedStartMicros, Dispatch::predictedEndMicros)
                .containsExactly(tuple(1, 0L, 10_000L));
    }

    /** S may not go to device 1 with its 30 ms load in front of the batch while device 0 holds it: nothing is dispatched at 0. */
    @Test
    void aModelThatTakesTimeToLoadKeepsToTheDeviceThatHoldsIt() {
        GroupScheduler g = group();
        g.admit(req("s", "S", 0, 40_000));
        assertThat(g.schedule(0).dispatches()).isEmpty();
    }
}
