package io.kairos.flink;

import io.kairos.core.model.ModelCatalog;
import io.kairos.core.time.ManualClock;
import io.kairos.schema.DType;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.Tensor;
import io.kairos.schema.internal.AdmittedRequest;
import io.kairos.schema.internal.BatchOutcome;
import io.kairos.schema.internal.DeviceAction;
import io.kairos.schema.internal.DispatchedBatch;
import io.kairos.wire.device.Device;
import io.kairos.wire.request.RequestValidator;
import org.apache.flink.formats.avro.typeutils.AvroSerializer;
import org.apache.flink.streaming.api.datastream.AsyncDataStream;
import org.apache.flink.streaming.api.operators.async.AsyncWaitOperatorFactory;
import org.apache.flink.streaming.runtime.tasks.mailbox.Mail;
import org.apache.flink.streaming.runtime.tasks.mailbox.TaskMailbox;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

/**
 * Drives {@link AsyncInference} inside Flink's async operator with a device whose executions the
 * test completes, a manual clock, and processing time the harness controls: a cancel that comes
 * before the batch completed, one that comes after (too late), an execution that outlives the
 * async timeout, and the failures of one batch (a device error, a device that throws, an output
 * that cannot be sent on), each with the outcomes it emits and the metrics it counts.
 */
class AsyncInferenceHarnessTest {

    private static final ModelCatalog CATALOG = ModelCatalog.builtIn();
    private static final long TIMEOUT_MS = 200;
    private static final long T0 = 1_700_000_000_000_000L; // micros since the epoch when the batch is dispatched
    private static final long PROCESSING_START_MS = 10_000;

    /**
     * The device of the test: it runs nothing, it remembers each execution it was handed, and the
     * test completes them. Static, because the function makes its device from a serializable
     * factory when it opens.
     */
    static final class ControlledDevice implements Device {
        record Handed(String model, int size, CompletableFuture<Execution> execution) {}

        final List<Handed> handed = new CopyOnWriteArrayList<>();
        // Thrown by the next execute() instead of handing back a future, once.
        volatile RuntimeException throwNext;
        // Warm-ups, and the batches handed over before the first of them.
        final java.util.concurrent.atomic.AtomicInteger warmUps = new java.util.concurrent.atomic.AtomicInteger();
        volatile int handedBeforeWarmUp = -1;
        // The reason the next load fails with, once; null: loads succeed at once.
        volatile String failNextLoad;

        @Override
        public CompletableFuture<Void> load(String model) {
            String why = failNextLoad;
            failNextLoad = null;
            return why == null ? CompletableFuture.completedFuture(null) : CompletableFuture.failedFuture(new IllegalStateException(why));
        }

        /** A warm-up of 250 ms: what a real device's summary of its synthetic batches says (OnnxDeviceTest runs a real one). */
        @Override
        public WarmUp warmUp() {
            handedBeforeWarmUp = handed.size();
            warmUps.incrementAndGet();
            return new WarmUp(250_000, List.of("resnet50"), 2, List.of());
        }

        @Override
        public int slot() {
            return 0;
        }

        @Override
        public CompletableFuture<Execution> execute(String model, int size, List<Tensor> inputs) {
            RuntimeException e = throwNext;
            if (e != null) {
                throwNext = null;
                throw e;
            }
            CompletableFuture<Execution> execution = new CompletableFuture<>();
            handed.add(new Handed(model, size, execution));
            return execution;
        }
    }

    private static ControlledDevice device;

    private final ManualClock clock = new ManualClock(T0);
    private RecordedMetrics metrics;
    private OneInputStreamOperatorTestHarness<DispatchedBatch, BatchOutcome> harness;

    @BeforeEach
    void open() throws Exception {
        device = new ControlledDevice();
        metrics = new RecordedMetrics("inference");
        AsyncInference function = new AsyncInference(CATALOG, (slot, gpu, catalog) -> device, clock);
        harness = new OneInputStreamOperatorTestHarness<>(
                new AsyncWaitOperatorFactory<>(function, TIMEOUT_MS, 10, AsyncDataStream.OutputMode.UNORDERED),
                new AvroSerializer<>(DispatchedBatch.class), metrics.environment());
        harness.setup(new AvroSerializer<>(BatchOutcome.class));
        harness.setProcessingTime(PROCESSING_START_MS);
        harness.open();
    }

    @AfterEach
    void close() throws Exception {
        harness.close();
        metrics.close();
    }

    private static AdmittedRequest request(String id) {
        InferenceRequest r = InferenceRequest.newBuilder()
                .setRequestId(id).setTenant("t").setModel("resnet50")
                .setInput(Tensor.newBuilder().setDtype(DType.FLOAT32).setShape(List.of(3L, 32L, 32L))
                        .setData(ByteBuffer.allocate(3 * 32 * 32 * 4)).build())
                .setSentAtMicros(T0 - 1_000).setSloMs(100)
                .build();
        return AdmittedRequest.newBuilder().setRequest(r).setDeadlineAtMicros(RequestValidator.deadlineMicros(r))
                .setIngestedAtMicros(T0 - 900).setEnqueuedAtMicros(T0 - 800).setGroup("default").build();
    }

    /** Batch {@code id} of requests {@code id}-0 and {@code id}-1, dispatched at T0. */
    private static DispatchedBatch run(String id) {
        return DispatchedBatch.newBuilder().setBatchId(id).setGroup("default").setModel("resnet50").setDevice(0)
                .setDispatchedAtMicros(T0).setPredictedStartMicros(T0).setPredictedLatencyMicros(3_500)
                .setRequests(List.of(request(id + "-0"), request(id + "-1"))).build();
    }

    /** The scheduler's cancel of batch {@code id}, sent at {@code nowMicros}. */
    private static DispatchedBatch cancel(String id, long nowMicros) {
        return DispatchedBatch.newBuilder().setBatchId(id).setGroup("default").setModel("resnet50").setDevice(0)
                .setDispatchedAtMicros(nowMicros).setPredictedStartMicros(T0).setPredictedLatencyMicros(3_500)
                .setRequests(List.of()).setAction(DeviceAction.CANCEL).setCancelledRequestIds(List.of(id + "-0", id + "-1")).build();
    }

    /**
     * Runs what the async operator left in the task's mailbox: results completed on another
     * thread (here the test's, completing a device execution) and timeouts reach the operator
     * as mails.
     */
    private void runMails() throws Exception {
        TaskMailbox mailbox = harness.getTaskMailbox();
        Optional<Mail> mail;
        while ((mail = mailbox.tryTake(TaskMailbox.MIN_PRIORITY)).isPresent()) mail.get().run();
    }

    private List<BatchOutcome> outcomes() throws Exception {
        runMails();
        return new ArrayList<>(harness.extractOutputValues());
    }

    @Test
    void theDeviceWarmsUpOnceBeforeItsFirstBatchAndTheWarmUpGivesNoOutcome() throws Exception {
        assertThat(device.warmUps).hasValue(1);
        assertThat(device.handedBeforeWarmUp).isZero();
        assertThat(metrics.gauge("warmUpMillis")).isEqualTo(250);
        assertThat(outcomes()).isEmpty();
        assertThat(metrics.count("deviceBusyMicros")).as("the warm-up's batches are not the device's work").isZero();
        assertThat(metrics.count("coldStarts")).isZero();

        harness.processElement(run("b1"), 0);
        device.handed.get(0).execution().complete(new Device.Execution(T0 + 100, T0 + 3_600, false, List.of(), null));
        assertThat(outcomes()).singleElement().satisfies(o -> assertThat(o.getBatch().getBatchId()).isEqualTo("b1"));
        assertThat(device.warmUps).hasValue(1);
    }

    @Test
    void aBatchCancelledBeforeItCompletedGivesOnlyTheCancelsVerdict() throws Exception {
        harness.processElement(run("b1"), 0);
        assertThat(device.handed).singleElement().satisfies(h -> {
            assertThat(h.model()).isEqualTo("resnet50");
            assertThat(h.size()).isEqualTo(2);
        });
        assertThat(outcomes()).isEmpty();

        clock.advance(500);
        harness.processElement(cancel("b1", clock.nowMicros()), 0);

        // The device saw the cancel: a batch that had not started never runs.
        assertThat(device.handed.get(0).execution().isCancelled()).isTrue();
        assertThat(outcomes()).singleElement().satisfies(o -> {
            assertThat(o.getBatch().getAction()).isEqualTo(DeviceAction.CANCEL);
            assertThat(o.getBatch().getBatchId()).isEqualTo("b1");
            assertThat(o.getBatch().getCancelledRequestIds()).containsExactly("b1-0", "b1-1");
            assertThat(o.getCancelledInTime()).isTrue();
            assertThat(o.getExecStartMicros()).isEqualTo(T0 + 500);
            assertThat(o.getExecEndMicros()).isEqualTo(T0 + 500);
            assertThat(o.getError()).isNull();
        });
        assertThat(metrics.count("batchesCancelled")).isEqualTo(1);
        assertThat(metrics.count("cancelsTooLate")).isZero();

        // Completing the withdrawn execution changes nothing: the batch gives no outcome of its own.
        device.handed.get(0).execution().complete(new Device.Execution(T0, T0 + 3_500, false, List.of(), null));
        assertThat(outcomes()).hasSize(1);
        assertThat(metrics.count("batchesTimedOut")).isZero();
        assertThat(metrics.count("deviceBusyMicros")).as("a withdrawn batch is not counted").isZero();
    }

    @Test
    void aCancelAfterTheBatchCompletedIsTooLateAndItsResultsStand() throws Exception {
        harness.processElement(run("b1"), 0);
        device.handed.get(0).execution().complete(new Device.Execution(T0 + 100, T0 + 3_600, true, List.of(), null));

        assertThat(outcomes()).singleElement().satisfies(o -> {
            assertThat(o.getBatch().getAction()).isEqualTo(DeviceAction.RUN);
            assertThat(o.getBatch().getRequests()).hasSize(2);
            assertThat(o.getExecStartMicros()).isEqualTo(T0 + 100);
            assertThat(o.getExecEndMicros()).isEqualTo(T0 + 3_600);
            assertThat(o.getColdStart()).isTrue();
            assertThat(o.getError()).isNull();
        });
        assertThat(metrics.count("coldStarts")).isEqualTo(1);
        assertThat(metrics.count("deviceBusyMicros")).as("start to end on the device").isEqualTo(3_500);

        clock.advance(4_000);
        harness.processElement(cancel("b1", clock.nowMicros()), 0);

        List<BatchOutcome> all = outcomes();
        assertThat(all).hasSize(2);
        assertThat(all.get(1)).satisfies(o -> {
            assertThat(o.getBatch().getAction()).isEqualTo(DeviceAction.CANCEL);
            assertThat(o.getBatch().getBatchId()).isEqualTo("b1");
            assertThat(o.getCancelledInTime()).isFalse();
            assertThat(o.getExecEndMicros()).isEqualTo(T0 + 4_000);
        });
        assertThat(metrics.count("cancelsTooLate")).isEqualTo(1);
        assertThat(metrics.count("batchesCancelled")).isZero();
    }

    @Test
    void aBatchThatOutlivesTheTimeoutFailsAndIsWithdrawnFromTheDevice() throws Exception {
        harness.processElement(run("b1"), 0);
        clock.advance(TIMEOUT_MS * 1000 - 1);
        harness.setProcessingTime(PROCESSING_START_MS + TIMEOUT_MS - 1);
        assertThat(outcomes()).as("not yet timed out").isEmpty();

        clock.advance(1);
        harness.setProcessingTime(PROCESSING_START_MS + TIMEOUT_MS);

        assertThat(outcomes()).singleElement().satisfies(o -> {
            assertThat(o.getBatch().getBatchId()).isEqualTo("b1");
            assertThat(o.getError()).isEqualTo("timed out on device 0 after 200 ms");
            assertThat(o.getExecStartMicros()).isEqualTo(T0);
            assertThat(o.getExecEndMicros()).isEqualTo(T0 + TIMEOUT_MS * 1000);
        });
        // Withdrawn, so that it does not hold the device for the batches behind it.
        assertThat(device.handed.get(0).execution().isCancelled()).isTrue();
        assertThat(metrics.count("batchesTimedOut")).isEqualTo(1);

        // The device finishing it later gives no second outcome.
        device.handed.get(0).execution().complete(new Device.Execution(T0, T0 + 300_000, false, List.of(), null));
        assertThat(outcomes()).hasSize(1);
        assertThat(metrics.count("batchesFailed")).isZero();
    }

    @Test
    void aDeviceThatThrowsFailsThatBatchOnly() throws Exception {
        // The device throws on b1 rather than failing its future: b1 fails at once, b2 is handed over and served.
        device.throwNext = new IllegalArgumentException("no such kernel");
        harness.processElement(run("b1"), 0);
        harness.processElement(run("b2"), 0);
        assertThat(device.handed).hasSize(1);
        device.handed.get(0).execution().complete(new Device.Execution(T0, T0 + 3_500, false, List.of(), null));

        assertThat(outcomes()).extracting(o -> o.getBatch().getBatchId(), BatchOutcome::getError)
                .containsExactlyInAnyOrder(
                        tuple("b1", "device 0 failed: java.lang.IllegalArgumentException: no such kernel"),
                        tuple("b2", null));
        assertThat(metrics.count("batchesFailed")).isEqualTo(1);
    }

    @Test
    void anOutputThatCannotBeSentOnFailsThatBatchOnly() throws Exception {
        // b1's second output has no shape, which no serializer can write: b1 fails with the reason
        // (its outcome would otherwise fail on its way to the results), b2 goes on with its outputs.
        harness.processElement(run("b1"), 0);
        harness.processElement(run("b2"), 0);
        Tensor good = Tensor.newBuilder().setDtype(DType.FLOAT32).setShape(List.of(1L)).setData(ByteBuffer.allocate(4)).build();
        device.handed.get(0).execution().complete(new Device.Execution(T0, T0 + 3_500, false, List.of(good, new Tensor(DType.FLOAT32, null, ByteBuffer.allocate(4))), null));
        device.handed.get(1).execution().complete(new Device.Execution(T0 + 3_500, T0 + 7_000, false, List.of(good, good), null));

        List<BatchOutcome> outcomes = outcomes();
        assertThat(outcomes).extracting(o -> o.getBatch().getBatchId(), BatchOutcome::getError)
                .containsExactlyInAnyOrder(
                        tuple("b1", "device 0 returned an output that cannot be written (request 1 of the batch): its shape is missing"),
                        tuple("b2", null));
        assertThat(outcomes).filteredOn(o -> o.getBatch().getBatchId().equals("b2")).singleElement()
                .satisfies(o -> assertThat(o.getOutputs()).hasSize(2));
        // Both outcomes can be sent on: serialized as the network would.
        AvroSerializer<BatchOutcome> serializer = new AvroSerializer<>(BatchOutcome.class);
        for (BatchOutcome o : outcomes) {
            var bytes = new org.apache.flink.core.memory.DataOutputSerializer(64);
            serializer.serialize(o, bytes);
            assertThat(bytes.length()).isPositive();
        }
        assertThat(metrics.count("batchesFailed")).isEqualTo(1);
    }

    @Test
    void aDeviceErrorFailsThatBatchOnly() throws Exception {
        harness.processElement(run("b1"), 0);
        harness.processElement(run("b2"), 0);
        clock.advance(2_000);
        device.handed.get(0).execution().completeExceptionally(new IllegalStateException("out of memory"));
        device.handed.get(1).execution().complete(new Device.Execution(T0 + 2_000, T0 + 5_500, false, List.of(), null));

        assertThat(outcomes()).extracting(o -> o.getBatch().getBatchId(), BatchOutcome::getError)
                .containsExactlyInAnyOrder(
                        tuple("b1", "device 0 failed: java.lang.IllegalStateException: out of memory"),
                        tuple("b2", null));
        assertThat(metrics.count("batchesFailed")).isEqualTo(1);
        assertThat(metrics.count("batchesTimedOut")).isZero();
    }

    @Test
    void aLoadThatFailsIsCountedAndGivesAnOutcomeWithItsReasonAndTheDeviceGoesOn() throws Exception {
        device.failNextLoad = "model.onnx: not an ONNX file";
        DispatchedBatch load = DispatchedBatch.newBuilder().setBatchId("l1").setGroup("default").setModel("resnet50").setDevice(0)
                .setDispatchedAtMicros(T0).setPredictedStartMicros(T0).setPredictedLatencyMicros(0)
                .setRequests(List.of()).setAction(DeviceAction.LOAD).build();
        harness.processElement(load, 0);
        harness.processElement(run("b1"), 0);
        device.handed.get(0).execution().complete(new Device.Execution(T0, T0 + 3_500, false, List.of(), null));

        // The load's outcome carries why (for its telemetry, and for its scheduler to take the copy out).
        assertThat(outcomes()).extracting(o -> o.getBatch().getBatchId(), BatchOutcome::getError).containsExactlyInAnyOrder(
                tuple("l1", "device 0 could not load model 'resnet50': model.onnx: not an ONNX file"), tuple("b1", null));
        assertThat(metrics.count("loadsFailed")).isEqualTo(1);
        assertThat(metrics.count("batchesFailed")).isZero();
        assertThat(metrics.registered()).noneMatch(id -> id.endsWith(".loads"));
    }

    /** Two loads of resnet50 and an unload, each carried out: counted per model, as actions of their own. */
    @Test
    void theLoadsAndUnloadsADeviceCarriesOutAreCountedPerModel() throws Exception {
        for (String id : List.of("l1", "u1", "l2")) {
            harness.processElement(DispatchedBatch.newBuilder().setBatchId(id).setGroup("default").setModel("resnet50").setDevice(0)
                    .setDispatchedAtMicros(T0).setPredictedStartMicros(T0).setPredictedLatencyMicros(0)
                    .setRequests(List.of()).setAction(id.startsWith("l") ? DeviceAction.LOAD : DeviceAction.UNLOAD).build(), 0);
        }
        assertThat(outcomes()).extracting(o -> o.getBatch().getBatchId(), BatchOutcome::getError)
                .containsExactlyInAnyOrder(tuple("l1", null), tuple("u1", null), tuple("l2", null));
        assertThat(metrics.count("model.resnet50.loads")).isEqualTo(2);
        assertThat(metrics.count("model.resnet50.unloads")).isEqualTo(1);
        assertThat(metrics.count("loadsFailed")).isZero();
    }
}
