package io.kairos.sim;

import io.kairos.core.model.LatencyProfile;
import io.kairos.core.model.ModelCatalog;
import io.kairos.workload.ArrivalSpec;
import io.kairos.workload.ModelLoad;
import io.kairos.workload.Workload;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Goodput under overload, in the simulator, with the job's scheduler and policies: two devices four
 * times slower than the catalog's ResNet50 (a full batch of 16 in 58.8 ms: capacity 544 requests/s),
 * Poisson arrivals, SLO 200 ms. Shedding early keeps the batches full and the goodput at capacity
 * at twice and three times the load; without it, the group ends up serving batches of one.
 */
class OverloadSimulationTest {
    private static final ModelCatalog CATALOG = ModelCatalog.builtIn();
    private static final double SPEED = 4;
    private static final int DEVICES = 2;

    private static double capacity() {
        LatencyProfile p = CATALOG.get("resnet50").latency();
        return DEVICES * p.maxBatch() / (p.latencyMicros(p.maxBatch()) * SPEED / 1e6);
    }

    private static SimulationReport run(String policy, double load, boolean shedEarly) {
        return Simulation.builder(CATALOG).devices(DEVICES).speed(SPEED)
                .policy(policy, Map.of("shed_early", Boolean.toString(shedEarly)))
                .workload(new Workload(List.of(ModelLoad.of("t", "resnet50", load * capacity(), 200, ArrivalSpec.POISSON))))
                .duration(12_000_000).warmup(2_000_000).seed(3).build().run();
    }

    @ParameterizedTest
    @ValueSource(strings = {"clockwork", "kairos", "triton", "flex"})
    void atTwiceAndThreeTimesCapacityGoodputStaysAtCapacity(String policy) {
        double capacity = capacity();
        assertThat(capacity).isBetween(544.0, 545.0);
        for (double load : new double[] {2, 3}) {
            SimulationReport r = run(policy, load, true);
            assertThat(r.goodputPerSecond()).as("%s at %.0fx: goodput", policy, load).isGreaterThan(0.9 * capacity);
            assertThat(r.meanBatchSize()).as("%s at %.0fx: mean batch", policy, load).isGreaterThan(15);
            assertThat(r.late()).as("%s at %.0fx: late", policy, load).isLessThan(r.arrivals() / 100);
        }
        // Below capacity nothing is shed, early or not.
        assertThat(run(policy, 0.8, true).dropped()).as("%s at 0.8x: dropped", policy).isZero();
    }

    @ParameterizedTest
    @ValueSource(strings = {"clockwork", "kairos"})
    void withoutSheddingEarlyTheGroupCollapsesToBatchesOfOne(String policy) {
        SimulationReport r = run(policy, 2, false);
        assertThat(r.goodputPerSecond()).as("goodput").isLessThan(0.5 * capacity());
        assertThat(r.meanBatchSize()).as("mean batch").isLessThan(2);
    }
}
