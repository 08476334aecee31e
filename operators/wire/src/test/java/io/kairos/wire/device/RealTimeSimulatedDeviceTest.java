package io.kairos.wire.device;

import io.kairos.core.device.ExecutionModel;
import io.kairos.core.device.ExecutionNoise;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.time.WallClock;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link RealTimeSimulatedDevice} in real time: batches back to back, and what a cancel frees. */
class RealTimeSimulatedDeviceTest {
    private static final long BATCH_MICROS = 400_000;
    // 400 ms per request: long enough to cancel a batch while it runs.
    private static final ModelCatalog CATALOG = ModelCatalog.parse("""
            {"models": [{"name": "m", "input": {"dtype": "FLOAT32", "shape": [1]},
                         "batch_sizes": [1, 2], "latency_ms": {"alpha": 400, "beta": 0}}]}""", "test");

    private final RealTimeSimulatedDevice device = new RealTimeSimulatedDevice(0, new ExecutionModel(CATALOG, 1.0, ExecutionNoise.none(), Long.MAX_VALUE, new java.util.SplittableRandom(1)), WallClock::nowMicros);

    private Device.Execution run(CompletableFuture<Device.Execution> f) throws Exception {
        return f.get(5, TimeUnit.SECONDS);
    }

    @Test
    void batchesRunBackToBackForTheirProfiledLatency() throws Exception {
        long t0 = WallClock.nowMicros();
        var a = device.execute("m", 1, List.of());
        var b = device.execute("m", 1, List.of());
        Device.Execution ea = run(a), eb = run(b);
        assertThat(ea.startMicros()).isBetween(t0, t0 + 50_000);
        assertThat(ea.endMicros() - ea.startMicros()).isEqualTo(BATCH_MICROS);
        assertThat(eb.startMicros()).isEqualTo(ea.endMicros());
    }

    @Test
    void cancellingTheRunningLastBatchFreesTheDeviceAtOnce() throws Exception {
        var a = device.execute("m", 1, List.of());
        Thread.sleep(100);
        long cancelledAt = WallClock.nowMicros();
        assertThat(a.cancel(false)).isTrue();
        Device.Execution eb = run(device.execute("m", 1, List.of()));
        assertThat(eb.startMicros()).as("starts at the cancel, not 300 ms later").isBetween(cancelledAt, cancelledAt + 100_000);
    }

    @Test
    void cancellingAnEarlierBatchKeepsItsTimeBooked() throws Exception {
        long t0 = WallClock.nowMicros();
        var a = device.execute("m", 1, List.of());
        var b = device.execute("m", 1, List.of());
        assertThat(a.cancel(false)).isTrue();
        Device.Execution eb = run(b);
        assertThat(eb.startMicros()).isGreaterThanOrEqualTo(t0 + BATCH_MICROS);
    }

    /**
     * A load the scheduler decided is device work in its turn: a model of 300 ms to load and 400 ms
     * a request, loaded behind a batch of another model, starts loading when that batch ends and
     * holds the device for 300 ms; its first batch, handed over after the load, starts when the
     * load ends and runs warm (400 ms, no cold start).
     */
    @Test
    void aLoadTakesItsTurnAmongTheBatchesForItsLoadTime() throws Exception {
        ModelCatalog catalog = ModelCatalog.parse("""
                {"models": [{"name": "m", "input": {"dtype": "FLOAT32", "shape": [1]}, "batch_sizes": [1], "latency_ms": {"alpha": 400, "beta": 0}},
                            {"name": "hot", "input": {"dtype": "FLOAT32", "shape": [1]}, "batch_sizes": [1], "latency_ms": {"alpha": 400, "beta": 0},
                             "memory_bytes": 1024, "load_ms": 300}]}""", "test");
        RealTimeSimulatedDevice d = new RealTimeSimulatedDevice(0, new ExecutionModel(catalog, 1.0, ExecutionNoise.none(), Long.MAX_VALUE, new java.util.SplittableRandom(1)), WallClock::nowMicros);
        long t0 = WallClock.nowMicros();
        var a = d.execute("m", 1, List.of());
        CompletableFuture<Void> loaded = d.load("hot");
        var b = d.execute("hot", 1, List.of());
        Device.Execution before = run(a);
        assertThat(loaded).as("loading while the batch ahead ran? no").isNotDone();
        Device.Execution first = run(b);
        assertThat(loaded).isDone();
        assertThat(first.coldStart()).isFalse();
        assertThat(first.startMicros()).isEqualTo(before.endMicros() + 300_000).isGreaterThan(t0);
        assertThat(first.endMicros() - first.startMicros()).isEqualTo(BATCH_MICROS);
        assertThat(d.load("hot")).as("loaded already: no time").isDone();
    }
}
