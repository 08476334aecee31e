package io.kairos.control.herd;

import io.kairos.core.model.ModelCatalog;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class SingleDeviceGoodputTest {
    static final ModelCatalog CATALOG = ModelCatalog.builtIn();

    @Test
    void capacityBoundIsTheBestFullBatchThatFitsTheSlo() {
        // resnet50: tau(b) = 0.8 b + 1.9 ms at b = 1, 2, 4, 8, 16. SLO 25 ms: every size fits, 16 / 14.7 ms = 1,088.4/s.
        // SLO 10 ms: tau(8) = 8.3 fits, tau(16) = 14.7 does not: 8 / 8.3 ms = 963.9/s. SLO 2 ms: none (tau(1) = 2.7).
        assertThat(SingleDeviceGoodput.capacityBound(CATALOG.get("resnet50"), 25_000)).isCloseTo(16e6 / 14_700, within(1e-6));
        assertThat(SingleDeviceGoodput.capacityBound(CATALOG.get("resnet50"), 10_000)).isCloseTo(8e6 / 8_300, within(1e-6));
        assertThat(SingleDeviceGoodput.capacityBound(CATALOG.get("resnet50"), 2_000)).isZero();
    }

    @Test
    void goodputIsBelowTheBoundAndFallsWithBursts() {
        SingleDeviceGoodput goodput = new SingleDeviceGoodput(CATALOG, "kairos", 4_000, 1);
        double bound = SingleDeviceGoodput.capacityBound(CATALOG.get("resnet50"), 25_000);
        SingleDeviceGoodput.Measured poisson = goodput.of(RequestStream.of("p", "resnet50", 100, 25, 1, null));
        SingleDeviceGoodput.Measured bursty = goodput.of(RequestStream.of("b", "resnet50", 100, 25, 16, null));
        assertThat(poisson.perSecond()).isBetween(0.6 * bound, bound);
        assertThat(bursty.perSecond()).isPositive().isLessThan(poisson.perSecond());
        // The grid, then halfway to each neighbour of its best point (one at an end of the grid).
        assertThat(poisson.simulations()).isBetween(SingleDeviceGoodput.GRID.length + 1, SingleDeviceGoodput.GRID.length + 2);
    }

    @Test
    void streamsOfOneModelSloAndBurstinessShareOneMeasurement() {
        SingleDeviceGoodput goodput = new SingleDeviceGoodput(CATALOG, "kairos", 2_000, 1);
        SingleDeviceGoodput.Measured first = goodput.of(RequestStream.of("a", "mlp", 500, 10, 4, null));
        int runs = goodput.simulations();
        // Another rate and name, the same model, SLO and CV²: the cached answer, no simulation.
        assertThat(goodput.of(RequestStream.of("b", "mlp", 3_000, 10, 4, null))).isSameAs(first);
        assertThat(goodput.simulations()).isEqualTo(runs);
        goodput.of(RequestStream.of("c", "mlp", 500, 20, 4, null));
        assertThat(goodput.simulations()).isGreaterThan(runs);
    }
}
