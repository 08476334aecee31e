package io.kairos.core.pipeline;

import io.kairos.core.model.ModelCatalog;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A pipeline's service time in a typed catalog: each model at batch 1 on its fastest hardware type, not on the catalog's first. */
class PipelineServiceTimeOnHardwareTest {
    // cpu first (a: 9 ms, b: 2 ms), gpu faster (a: 4 ms, b: 1 ms): the chain's service time is 4 + 1 = 5 ms, not 11.
    static final ModelCatalog CATALOG = ModelCatalog.parse("""
            {"hardware": [{"name": "cpu", "price_per_hour": 1}, {"name": "gpu", "price_per_hour": 3}],
             "models": [
              {"name": "a", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 9, "2": 12}},
               "hardware_profiles": {"gpu": {"latency_ms": {"table": {"1": 4, "2": 5}}}}},
              {"name": "b", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 2, "2": 3}},
               "hardware_profiles": {"gpu": {"latency_ms": {"table": {"1": 1, "2": 2}}}}}
            ]}""", "typed");

    static PipelineSpec chain(double sloMs) {
        return PipelineSpec.parse("""
                {"pipeline": "chain", "slo_p99_ms": %s,
                 "stages": [{"name": "first", "model": "a"}, {"name": "second", "model": "b"}],
                 "edges": [{"from": "first", "to": "second", "probability": 1}]}""".formatted(sloMs), "chain");
    }

    @Test
    void anSloThatTheFastestHardwareMeetsIsValid() {
        assertThat(chain(8).validate(CATALOG).sloP99Micros()).isEqualTo(8_000);
        assertThat(chain(5).validate(CATALOG).sloP99Micros()).isEqualTo(5_000);
        assertThatThrownBy(() -> chain(4.5).validate(CATALOG))
                .hasMessage("pipeline 'chain': field 'slo_p99_ms': 4.5 ms is below the pipeline's service time of 5 ms (its longest path at the models' batch-1 latencies)");
    }
}
