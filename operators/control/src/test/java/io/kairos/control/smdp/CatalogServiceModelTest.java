package io.kairos.control.smdp;

import io.kairos.core.model.ModelCatalog;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class CatalogServiceModelTest {

    /** A catalog model: googlenet runs sizes 1, 2, 4, ..., 32, so a batch of 3 takes (and costs) what 4 does. */
    @Test
    void catalogModelIsPaddedToItsAllowedSizes() {
        BatchServiceModel m = BatchServiceModel.of(ModelCatalog.builtIn().get("googlenet"), 1000);
        assertThat(m.maxBatch()).isEqualTo(32);
        assertThat(m.arrivalRate()).isEqualTo(1.0);
        assertThat(m.latencyMs(3)).isCloseTo(0.3051 * 4 + 1.052, within(1e-3));
        assertThat(m.energyMj(3)).isCloseTo(19.90 * 4 + 19.60, within(1e-9));
        assertThat(m.energyKnown()).isTrue();
        assertThat(BatchServiceModel.of(ModelCatalog.builtIn().get("resnet50"), 100).energyKnown()).isFalse();
        // The padded model still solves: a batch of 3 is never better than one of 4.
        SmdpSolution sol = new SmdpSolver().solve(new TruncatedSmdp(m.atLoad(0.6), CostWeights.of(1, 1), 100, 100));
        for (int s = 0; s <= 100; s++) assertThat(sol.table().action(s)).isNotIn(3, 5, 6, 7);
    }
}
