package io.kairos.wire.device;

import io.kairos.core.api.Internal;
import io.kairos.core.device.ExecutionModel;
import io.kairos.schema.Tensor;

import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * A device that "executes" a batch by completing it when the time its {@link ExecutionModel} gives
 * (profile times speed, noise, a cold start when the model is not in its memory) has passed, in
 * real time, without holding a thread: completions are timer tasks on one shared scheduler
 * thread, so dozens of simulated devices fit on two cores. Batches run back to back in the order
 * they were handed over, as on a GPU that runs one batch at a time; a load the scheduler decided
 * ({@link #load}) takes its turn among them for its load time.
 *
 * <p>Cancelling the last batch handed over frees the device from then (or from the batch's start,
 * if it had not started), as a preempted batch frees a GPU; the scheduler only ever preempts the
 * last batch it sent a device. An earlier batch, cancelled, keeps its time booked.
 *
 * <p>The job's simulated device, on the wall clock, beside the ONNX Runtime devices (it serves the
 * job when no model repository is given, {@link DeviceFactory#simulated}); not the simulator's
 * {@code DiscreteEventDevice}, which takes the same {@link ExecutionModel} in virtual time and
 * needs neither a thread nor a lock. It has both, so it is kept out of the core.
 */
@Internal
public final class RealTimeSimulatedDevice implements Device {

    // One daemon timer thread for all simulated devices of the JVM: completions are short tasks.
    private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "kairos-simulated-devices");
        t.setDaemon(true);
        return t;
    });

    private final int slot;
    private final ExecutionModel time;
    private final LongSupplier clockMicros;
    private long busyUntilMicros;
    private CompletableFuture<Execution> last;
    private long lastStartMicros;

    /**
     * @param time how long its batches take; a speed factor of 0 makes a zero-latency device that
     *             completes every batch at once (for measuring the pipeline itself)
     */
    public RealTimeSimulatedDevice(int slot, ExecutionModel time, LongSupplier clockMicros) {
        this.slot = slot;
        this.time = time;
        this.clockMicros = clockMicros;
    }

    @Override
    public int slot() {
        return slot;
    }

    @Override
    public synchronized CompletableFuture<Execution> execute(String model, int size, List<Tensor> inputs) {
        long now = clockMicros.getAsLong();
        last = null;
        ExecutionModel.Run run = time.run(model, size);
        if (!run.succeeded()) return CompletableFuture.completedFuture(Execution.failed(now, now, "device " + slot + ": " + run.error()));
        long start = Math.max(now, busyUntilMicros);
        long end = start + run.latencyMicros();
        busyUntilMicros = end;
        Execution done = new Execution(start, end, run.coldStart(), List.of(), null);
        if (end <= now) return CompletableFuture.completedFuture(done);
        CompletableFuture<Execution> future = new CompletableFuture<>();
        last = future;
        lastStartMicros = start;
        future.whenComplete((e, error) -> {
            if (error instanceof CancellationException) freeIfLast(future);
        });
        TIMER.schedule(() -> future.complete(done), end - now, TimeUnit.MICROSECONDS);
        return future;
    }

    /**
     * Loads the model as work of its own, after the batches handed over before and before those
     * handed over after, for its load time (as the scheduler booked it on the device's timeline,
     * and as the simulator's devices load): completes when it is loaded. A model already held, or
     * one without a load cost, takes no time.
     */
    @Override
    public synchronized CompletableFuture<Void> load(String model) {
        long now = clockMicros.getAsLong();
        long load = time.loadAsWork(model);
        // A cancel of the batch before frees no time from now on: the load is booked behind it.
        last = null;
        if (load <= 0) return CompletableFuture.completedFuture(null);
        long start = Math.max(now, busyUntilMicros);
        long end = start + load;
        busyUntilMicros = end;
        CompletableFuture<Void> loaded = new CompletableFuture<>();
        TIMER.schedule(() -> loaded.complete(null), end - now, TimeUnit.MICROSECONDS);
        return loaded;
    }

    @Override
    public synchronized CompletableFuture<Void> unload(String model) {
        time.unload(model);
        return CompletableFuture.completedFuture(null);
    }

    private synchronized void freeIfLast(CompletableFuture<Execution> cancelled) {
        if (cancelled != last) return;
        busyUntilMicros = Math.max(clockMicros.getAsLong(), lastStartMicros);
        last = null;
    }
}
