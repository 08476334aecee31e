package io.kairos.core.plan;

import io.kairos.core.model.ModelCatalog;
import io.kairos.core.scheduling.PolicyParams;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A model no device can load, its memory larger than every device's, is refused when the catalog
 * arrives with the plan's devices (every placement of the plan is checked against that catalog).
 */
class ModelLargerThanMemoryTest {
    private static final ModelCatalog CATALOG = ModelCatalog.parse("""
            {"models": [
              {"name": "small", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 1}}, "memory_bytes": 100, "load_ms": 5},
              {"name": "large", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 1}}, "memory_bytes": 900, "load_ms": 5}
            ]}""", "larger-than-memory-test");

    @Test
    void aCatalogWithAModelLargerThanTheDevicesIsRefusedNamingItAndTheSizes() {
        assertThatThrownBy(() -> new ServingPlan(2, 500, "kairos", PolicyParams.NONE, CATALOG))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the catalog: model 'large' needs 900 bytes of device memory, more than every device's 500 bytes");
    }

    @Test
    void aCatalogWhoseModelsFitIsTaken() {
        assertThat(new ServingPlan(2, 900, "kairos", PolicyParams.NONE, CATALOG).deviceMemoryBytes()).isEqualTo(900);
    }
}
