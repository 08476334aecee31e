package io.kairos.core.device;

import io.kairos.core.model.ModelCatalog;
import io.kairos.core.time.WallClock;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link SimulatedDevice} in real time: batches back to back, and what a cancel frees. */
class SimulatedDeviceTest {
    private static final long BATCH_MICROS = 400_000;
    // 400 ms per request: long enough to cancel a batch while it runs.
    private static final ModelCatalog CATALOG = ModelCatalog.parse("""
            {"models": [{"name": "m", "input": {"dtype": "FLOAT32", "shape": [1]},
                         "batch_sizes": [1, 2], "latency_ms": {"alpha": 400, "beta": 0}}]}""", "test");

    private final SimulatedDevice device = new SimulatedDevice(0, new ExecutionModel(CATALOG, 1.0, ExecutionNoise.none(), Long.MAX_VALUE, new java.util.SplittableRandom(1)), WallClock::nowMicros);

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
}
