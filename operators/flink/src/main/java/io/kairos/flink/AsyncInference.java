package io.kairos.flink;

import io.kairos.core.model.ModelCatalog;
import io.kairos.core.time.Clock;
import io.kairos.schema.Tensor;
import io.kairos.schema.internal.AdmittedRequest;
import io.kairos.schema.internal.BatchOutcome;
import io.kairos.schema.internal.DeviceAction;
import io.kairos.schema.internal.DispatchedBatch;
import io.kairos.wire.AvroCodec;
import io.kairos.wire.device.Device;
import io.kairos.wire.device.DeviceFactory;
import io.kairos.wire.result.Results;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.ThreadSafeSimpleCounter;
import org.apache.flink.streaming.api.functions.async.ResultFuture;
import org.apache.flink.streaming.api.functions.async.RichAsyncFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Runs batches on this subtask's device: subtask i owns device slot i, and batches reach it by
 * partitioning on the slot. The device runs them one at a time in arrival order; the task thread
 * only hands them over, so it is never blocked by execution. {@code LOAD} and {@code UNLOAD}
 * actions (a placement change) go to the device's model cache and produce no outcome.
 *
 * <p>A {@code CANCEL} (the scheduler preempted a batch it sent here before) withdraws the batch
 * from the device if it has not completed: it then gives no outcome of its own. Either way the
 * cancel's outcome says which it was ({@code cancelled_in_time}), for the requests' results to be
 * resolved downstream ({@link ResolvePreemptions}). A cancel always comes after its batch, on the
 * same channel.
 *
 * <p>An execution error (a device that throws, an execution that fails, an output that could
 * not be written), or a batch that outlives the async timeout, becomes a FAILED outcome for that
 * batch's requests only; the job goes on. A timed-out batch is also cancelled on the
 * device (see {@link Device#execute}), so that it does not hold the device for the batches behind
 * it.
 *
 * <p>Before it takes batches, the device warms up ({@link Device#warmUp}: an ONNX device loads and
 * runs its models on synthetic inputs); the warm-up is logged and its duration is the gauge
 * {@code warmUpMillis}; none of its batches is an outcome.
 *
 * <p>Metrics (group {@code kairos}): {@code batchesFailed} (an execution error),
 * {@code batchesTimedOut}, {@code coldStarts}, {@code batchesCancelled} (preempted in time),
 * {@code cancelsTooLate} (preempted after they completed), {@code loadsFailed} (a LOAD the device
 * could not carry out, logged with the reason), {@code deviceBusyMicros} (start to end
 * of every batch the device ran); per model (group {@code kairos.model.<name>}, a label in
 * Prometheus) {@code coldStarts} again, registered at the model's first cold start on the device,
 * so that a placement's loads can be told apart by model, and {@code loads} and {@code unloads},
 * the LOAD and UNLOAD actions the device carried out (a placement's, the load planner's),
 * registered at the model's first. Cold starts, failures and busy time are
 * counted on the device's completion thread, hence thread-safe counters.
 */
public final class AsyncInference extends RichAsyncFunction<DispatchedBatch, BatchOutcome> {
    private static final Logger LOG = LoggerFactory.getLogger(AsyncInference.class);
    private final ModelCatalog catalog;
    private final DeviceFactory devices;
    private final Clock clock;
    private transient Device device;
    /** The GPU this slot holds ({@link GpuClaims}); -1 without one. Held only between open and close. */
    private transient int gpu;
    private transient boolean holdsGpu;
    // Batches handed to the device and not yet complete, by batch id. Touched by the task thread
    // (timeouts, cancels) and the device's completions; whoever removes a batch answers for it.
    private transient Map<String, InFlight> onDevice;
    private transient Counter batchesFailed;
    private transient Counter batchesTimedOut;
    private transient Counter coldStarts;
    private transient MetricGroup metrics;
    // Cold starts by model, each registered on its first (completion thread, hence concurrent).
    private transient Map<String, Counter> coldStartsByModel;
    // Per model: the LOAD and UNLOAD actions this device carried out (a placement's, the load planner's).
    private transient Map<String, Counter> loadsByModel;
    private transient Map<String, Counter> unloadsByModel;
    private transient Counter batchesCancelled;
    private transient Counter loadsFailed;
    private transient Counter cancelsTooLate;
    // Microseconds the device spent on the batches it ran: its rate over a window is the device's
    // utilisation, which no other metric gives (a task's busy time is the hand-over, not the device).
    private transient Counter deviceBusyMicros;

    private record InFlight(CompletableFuture<Device.Execution> execution, ResultFuture<BatchOutcome> result) {}

    public AsyncInference(ModelCatalog catalog, DeviceFactory devices) {
        this(catalog, devices, Clock.wall());
    }

    /** @param clock stamps the outcomes this function makes itself (cancels, failures, timeouts); a device keeps its own time */
    public AsyncInference(ModelCatalog catalog, DeviceFactory devices, Clock clock) {
        this.catalog = catalog;
        this.devices = devices;
        this.clock = clock;
    }

    @Override
    public void open(OpenContext openContext) {
        AvroCodec.enableCustomCoders();
        onDevice = new ConcurrentHashMap<>();
        int slot = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        gpu = GpuClaims.THIS_PROCESS.claim(slot, GpuClaims.indices(getRuntimeContext().getExternalResourceInfos(GPU_RESOURCE)));
        holdsGpu = true;
        device = devices.create(slot, gpu, catalog);
        // Before the first batch: open() returns, and this subtask takes batches, only once it is done.
        Device.WarmUp warmUp = device.warmUp();
        if (warmUp != Device.WarmUp.NONE) LOG.info(warmUp.describe(slot));
        metrics = getRuntimeContext().getMetricGroup().addGroup("kairos");
        coldStartsByModel = new ConcurrentHashMap<>();
        loadsByModel = new ConcurrentHashMap<>();
        unloadsByModel = new ConcurrentHashMap<>();
        long warmUpMillis = warmUp.micros() / 1000;
        metrics.gauge("warmUpMillis", (Gauge<Long>) () -> warmUpMillis);
        batchesFailed = metrics.counter("batchesFailed", new ThreadSafeSimpleCounter());
        batchesTimedOut = metrics.counter("batchesTimedOut", new ThreadSafeSimpleCounter());
        coldStarts = metrics.counter("coldStarts", new ThreadSafeSimpleCounter());
        batchesCancelled = metrics.counter("batchesCancelled");
        loadsFailed = metrics.counter("loadsFailed", new ThreadSafeSimpleCounter());
        cancelsTooLate = metrics.counter("cancelsTooLate");
        deviceBusyMicros = metrics.counter("deviceBusyMicros", new ThreadSafeSimpleCounter());
    }

    /** Flink's name for GPUs (its GPU plugin: {@code external-resources: gpu}). */
    static final String GPU_RESOURCE = "gpu";

    @Override
    public void close() {
        if (device != null) device.close();
        if (holdsGpu) GpuClaims.THIS_PROCESS.release(gpu);
        holdsGpu = false;
    }

    @Override
    public void asyncInvoke(DispatchedBatch batch, ResultFuture<BatchOutcome> result) {
        if (batch.getAction() == DeviceAction.CANCEL) {
            cancel(batch, result);
            return;
        }
        if (batch.getAction() != DeviceAction.RUN) {
            // A placement change or the load planner's copy: no requests; the device carries the
            // load out in its turn among the batches. Its outcome goes to the telemetry, and a load
            // that fails goes back to its scheduler too, which takes that copy out; a batch already
            // sent behind it fails on the device with the same reason.
            long handedAt = clock.nowMicros();
            CompletableFuture<Void> action;
            try {
                action = batch.getAction() == DeviceAction.LOAD ? device.load(batch.getModel()) : device.unload(batch.getModel());
            } catch (RuntimeException e) {
                action = CompletableFuture.failedFuture(e);
            }
            action.whenComplete((done, error) -> {
                String why = null;
                if (error != null) {
                    Throwable cause = error instanceof java.util.concurrent.CompletionException && error.getCause() != null ? error.getCause() : error;
                    why = "device " + device.slot() + " could not " + (batch.getAction() == DeviceAction.LOAD ? "load" : "unload")
                            + " model '" + batch.getModel() + "': " + cause.getMessage();
                    if (batch.getAction() == DeviceAction.LOAD) loadsFailed.inc();
                    LOG.warn(why);
                } else {
                    boolean load = batch.getAction() == DeviceAction.LOAD;
                    (load ? loadsByModel : unloadsByModel).computeIfAbsent(batch.getModel(),
                            m -> metrics.addGroup("model", m).counter(load ? "loads" : "unloads", new ThreadSafeSimpleCounter())).inc();
                }
                result.complete(Collections.singleton(outcome(batch, new Device.Execution(handedAt, clock.nowMicros(), false, List.of(), why))));
            });
            return;
        }
        List<Tensor> inputs = new ArrayList<>(batch.getRequests().size());
        for (AdmittedRequest r : batch.getRequests()) inputs.add(r.getRequest().getInput());
        CompletableFuture<Device.Execution> execution;
        try {
            execution = device.execute(batch.getModel(), inputs.size(), inputs);
        } catch (RuntimeException e) { // a device that throws rather than failing its future: this batch fails, the job goes on
            completed(batch, null, e, result);
            return;
        }
        onDevice.put(batch.getBatchId(), new InFlight(execution, result));
        execution.whenComplete((done, error) -> {
            onDevice.remove(batch.getBatchId());
            if (error instanceof CancellationException) return; // timed out or preempted: answered there
            completed(batch, done, error, result);
        });
    }

    /** Withdraws a preempted batch if it has not completed, and says whether it had. */
    private void cancel(DispatchedBatch cancel, ResultFuture<BatchOutcome> result) {
        InFlight batch = onDevice.remove(cancel.getBatchId());
        // cancel() is false if the device completed the batch meanwhile: then its outcome goes out as usual.
        boolean inTime = batch != null && batch.execution().cancel(false);
        if (inTime) {
            batchesCancelled.inc();
            batch.result().complete(Collections.emptyList());
        } else {
            cancelsTooLate.inc();
        }
        long now = clock.nowMicros();
        BatchOutcome verdict = outcome(cancel, new Device.Execution(now, now, false, List.of(), null));
        verdict.setCancelledInTime(inTime);
        result.complete(Collections.singleton(verdict));
    }

    private void completed(DispatchedBatch batch, Device.Execution execution, Throwable error, ResultFuture<BatchOutcome> result) {
        long now = clock.nowMicros();
        Device.Execution done = error != null
                ? Device.Execution.failed(now, now, "device " + device.slot() + " failed: " + error)
                : unwritable(execution);
        if (done.error() != null) batchesFailed.inc();
        if (done.coldStart()) {
            coldStarts.inc();
            coldStartsByModel.computeIfAbsent(batch.getModel(),
                    m -> metrics.addGroup("model", m).counter("coldStarts", new ThreadSafeSimpleCounter())).inc();
        }
        deviceBusyMicros.inc(Math.max(0, done.endMicros() - done.startMicros()));
        result.complete(Collections.singleton(outcome(batch, done)));
    }

    /**
     * The execution as it is, or failed when the device handed back nothing or an output that could
     * not be sent on (see {@link Results#unwritable}): the outcome crosses the network to its
     * results, and a record that cannot be serialized there would fail the job rather than the batch.
     */
    private Device.Execution unwritable(Device.Execution execution) {
        long now = clock.nowMicros();
        if (execution == null) return Device.Execution.failed(now, now, "device " + device.slot() + " completed the batch with no execution");
        if (execution.error() != null || execution.outputs() == null) {
            return execution.outputs() != null ? execution
                    : Device.Execution.failed(execution.startMicros(), execution.endMicros(), "device " + device.slot() + " returned no output list");
        }
        for (int i = 0; i < execution.outputs().size(); i++) {
            String why = Results.unwritable(execution.outputs().get(i));
            if (why != null) {
                return Device.Execution.failed(execution.startMicros(), execution.endMicros(),
                        "device " + device.slot() + " returned an output that cannot be written (request " + i + " of the batch): " + why);
            }
        }
        return execution;
    }

    @Override
    public void timeout(DispatchedBatch batch, ResultFuture<BatchOutcome> result) {
        if (batch.getAction() == DeviceAction.CANCEL) {
            cancel(batch, result);
            return;
        }
        if (batch.getAction() != DeviceAction.RUN) { // a load still under way (a cancel never waits): it goes on, nothing to report
            result.complete(Collections.emptyList());
            return;
        }
        batchesTimedOut.inc();
        InFlight execution = onDevice.remove(batch.getBatchId());
        if (execution != null) execution.execution().cancel(false);
        long now = clock.nowMicros();
        result.complete(Collections.singleton(outcome(batch,
                Device.Execution.failed(batch.getDispatchedAtMicros(), now, "timed out on device " + batch.getDevice()
                        + " after " + (now - batch.getDispatchedAtMicros()) / 1000 + " ms"))));
    }

    private static BatchOutcome outcome(DispatchedBatch batch, Device.Execution e) {
        return BatchOutcome.newBuilder()
                .setBatch(batch)
                .setExecStartMicros(e.startMicros())
                .setExecEndMicros(e.endMicros())
                .setColdStart(e.coldStart())
                .setError(e.error())
                .setOutputs(new ArrayList<>(e.outputs()))
                .build();
    }
}
