package io.kairos.core.device;

import io.kairos.core.model.ModelCatalog;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class ExecutionModelTest {
    private static final long MB = 1 << 20;
    // X: 1 ms at size 1, 3 ms at 4; Y: 2 ms. Each takes 6 MB and loads in 5 ms (X) or 3 ms (Y); F costs nothing to hold.
    private static final ModelCatalog CATALOG = ModelCatalog.parse("""
            {"models": [
              {"name": "X", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 1, "4": 3}},
               "memory_bytes": 6291456, "load_ms": 5},
              {"name": "Y", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 2}},
               "memory_bytes": 6291456, "load_ms": 3},
              {"name": "F", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 1}}}
            ]}""", "execution-model-test");

    private static ExecutionModel device(double speed, long budget) {
        return new ExecutionModel(CATALOG, speed, ExecutionNoise.none(), budget, new SplittableRandom(1));
    }

    @Test
    void aModelNotInMemoryIsLoadedFirstAndEvictsTheLeastRecentlyUsed() {
        ExecutionModel d = device(1, 10 * MB); // room for one
        assertThat(d.run("X", 1)).isEqualTo(new ExecutionModel.Run(6_000, true, null));
        assertThat(d.run("X", 3)).as("warm, padded to 4").isEqualTo(new ExecutionModel.Run(3_000, false, null));
        assertThat(d.run("Y", 1)).isEqualTo(new ExecutionModel.Run(5_000, true, null));
        assertThat(d.loadedModels()).containsExactly("Y");
        assertThat(d.run("X", 1).coldStart()).as("X was evicted").isTrue();
        assertThat(d.run("F", 1)).as("no load cost: always warm").isEqualTo(new ExecutionModel.Run(1_000, false, null));
    }

    @Test
    void theSpeedFactorScalesBatchesAndLoads() {
        ExecutionModel d = device(1.5, 12 * MB);
        assertThat(d.run("X", 1)).isEqualTo(new ExecutionModel.Run(9_000, true, null));
        assertThat(d.run("Y", 1)).isEqualTo(new ExecutionModel.Run(7_500, true, null));
        assertThat(d.run("X", 4)).isEqualTo(new ExecutionModel.Run(4_500, false, null));
        assertThat(d.loadedModels()).containsExactly("Y", "X");
    }

    @Test
    void whatCannotRunFailsWithAReason() {
        ExecutionModel d = device(1, 4 * MB);
        assertThat(d.run("X", 1).error()).contains("needs 6291456 bytes, more than the device's budget of 4194304");
        assertThat(d.run("nope", 1).error()).contains("no profile for model 'nope'");
        assertThat(device(1, 10 * MB).run("X", 5).error()).contains("exceeds the largest allowed size 4");
    }

    @Test
    void anExplicitLoadTakesOnlyFreeRoomAndMakesTheFirstBatchWarm() {
        ExecutionModel d = device(1, 12 * MB);
        assertThat(d.load("X")).isTrue();
        assertThat(d.load("Y")).isTrue();
        assertThat(d.load("F")).as("nothing to load").isFalse();
        assertThat(d.run("X", 1).coldStart()).isFalse();
        d.unload("X");
        assertThat(d.loadedModels()).containsExactly("Y");
        ExecutionModel full = device(1, 10 * MB);
        full.run("X", 1);
        assertThat(full.load("Y")).as("would evict X").isFalse();
    }

    // On cpu, X takes 8 ms and loads in 5 ms; on gpu 1 ms and loads in 20 ms. Y has no gpu profile.
    private static final ModelCatalog TYPED = ModelCatalog.parse("""
            {"hardware": [{"name": "cpu", "price_per_hour": 0.1}, {"name": "gpu", "price_per_hour": 0.9}],
             "models": [
              {"name": "X", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 8}}, "memory_bytes": 1, "load_ms": 5,
               "hardware_profiles": {"gpu": {"latency_ms": {"table": {"1": 1}}, "load_ms": 20}}},
              {"name": "Y", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 2}}}
            ]}""", "typed-execution-model-test");

    @Test
    void aDeviceRunsAndLoadsInItsTypesTimes() {
        ExecutionModel cpu = new ExecutionModel(TYPED, "cpu", 1, ExecutionNoise.none(), Long.MAX_VALUE, new SplittableRandom(1));
        ExecutionModel gpu = new ExecutionModel(TYPED, "gpu", 1, ExecutionNoise.none(), Long.MAX_VALUE, new SplittableRandom(1));
        assertThat(cpu.run("X", 1)).as("8 ms + 5 ms load").isEqualTo(new ExecutionModel.Run(13_000, true, null));
        assertThat(gpu.run("X", 1)).as("1 ms + 20 ms load").isEqualTo(new ExecutionModel.Run(21_000, true, null));
        assertThat(gpu.run("X", 1)).isEqualTo(new ExecutionModel.Run(1_000, false, null));
        assertThat(gpu.run("Y", 1).error()).isEqualTo("model 'Y' has no profile on hardware type 'gpu'");
        assertThat(gpu.load("Y")).isFalse();
        // Without a type: the catalog's first.
        assertThat(new ExecutionModel(TYPED, 1, ExecutionNoise.none(), Long.MAX_VALUE, new SplittableRandom(1)).hardwareType()).isEqualTo("cpu");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new ExecutionModel(TYPED, "tpu", 1, ExecutionNoise.none(), 1, new SplittableRandom(1)))
                .hasMessageContaining("hardware type 'tpu'");
    }
}
