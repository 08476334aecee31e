package io.kairos.flink;

import io.kairos.core.model.ModelCatalog;
import io.kairos.core.time.ManualClock;
import io.kairos.core.time.WallClock;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.DType;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.ResultStatus;
import io.kairos.schema.SetPolicy;
import io.kairos.schema.Tensor;
import io.kairos.schema.internal.AdmittedRequest;
import io.kairos.schema.internal.DeviceAction;
import io.kairos.schema.internal.DeviceReport;
import io.kairos.schema.internal.DispatchedBatch;
import io.kairos.schema.internal.GroupInput;
import io.kairos.wire.request.RequestValidator;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.operators.co.CoBroadcastWithKeyedOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.tasks.mailbox.TaskMailbox;
import org.apache.flink.streaming.util.KeyedBroadcastOperatorTestHarness;
import org.apache.flink.streaming.util.ProcessFunctionTestHarnesses;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

/**
 * Drives {@link GroupSchedulerFunction} with Flink's keyed-broadcast test harness and controlled
 * processing time.
 *
 * <p>The function reads the wall clock for "now" while its timers are Flink processing time, which
 * the harness controls and which starts at Long.MIN_VALUE: no timer fires unless a test moves
 * processing time. The cases are chosen so that the wall clock cannot change the result: a
 * Triton queue delay of 60 s (no release by time during a test) unless a test shortens it, SLOs of
 * 2 minutes where a request must not be shed.
 *
 * <p>Timers are fired only once the wall clock has reached them, and processing time is then set
 * to the wall clock, never ahead of it, as in a real job. Ahead of it, a policy that holds its
 * requests would ask for the same wake-up again at a time the harness has already passed, and the
 * harness would fire that timer forever instead of failing the test.
 */
class GroupSchedulerFunctionHarnessTest {

    private static final ModelCatalog CATALOG = ModelCatalog.builtIn();
    private static final String GROUP = "default";
    private static final long TAU1_MICROS = 2_700;        // resnet50 at batch size 1: 0.8 + 1.9 ms
    private static final double LONG_SLO_MS = 120_000;    // never shed during a test
    private static final Map<String, String> TRITON_WAITS = Map.of("max_batch", "4", "max_queue_delay_ms", "60000");

    private final List<KeyedBroadcastOperatorTestHarness<String, GroupInput, ControlDecision, DispatchedBatch>> opened = new ArrayList<>();

    @AfterEach
    void closeHarnesses() throws Exception {
        for (var h : opened) h.close();
    }

    private static GroupSchedulerFunction function() {
        return new GroupSchedulerFunction(CATALOG, new ControlPlane(1, "triton", TRITON_WAITS));
    }

    private KeyedBroadcastOperatorTestHarness<String, GroupInput, ControlDecision, DispatchedBatch> harness(GroupSchedulerFunction f) throws Exception {
        var h = ProcessFunctionTestHarnesses.forKeyedBroadcastProcessFunction(f, GroupInput::getGroup, Types.STRING, ControlPlane.DECISIONS);
        opened.add(h);
        return h;
    }

    /** A fresh harness that restores {@code snapshot} (same parallelism 1, max parallelism 1). */
    private KeyedBroadcastOperatorTestHarness<String, GroupInput, ControlDecision, DispatchedBatch> restored(OperatorSubtaskState snapshot) throws Exception {
        var h = new KeyedBroadcastOperatorTestHarness<>(
                new CoBroadcastWithKeyedOperator<>(function(), List.of(ControlPlane.DECISIONS)),
                GroupInput::getGroup, Types.STRING, 1, 1, 0);
        opened.add(h);
        h.initializeState(snapshot);
        h.open();
        return h;
    }

    /** A request as the scheduler's keyed input carries it. */
    private static GroupInput in(AdmittedRequest request) {
        return GroupInput.newBuilder().setGroup(request.getGroup()).setRequest(request).build();
    }

    private static AdmittedRequest request(String id, double sloMs) {
        return request(id, "resnet50", sloMs);
    }

    /** resnet50 and googlenet of the built-in catalog take the same input, FLOAT32 [3, 32, 32]. */
    private static AdmittedRequest request(String id, String model, double sloMs) {
        long sent = WallClock.nowMicros();
        InferenceRequest r = InferenceRequest.newBuilder()
                .setRequestId(id)
                .setTenant("t")
                .setModel(model)
                .setInput(Tensor.newBuilder().setDtype(DType.FLOAT32).setShape(List.of(3L, 32L, 32L))
                        .setData(ByteBuffer.allocate(3 * 32 * 32 * 4)).build())
                .setSentAtMicros(sent)
                .setSloMs(sloMs)
                .build();
        return AdmittedRequest.newBuilder()
                .setRequest(r)
                .setDeadlineAtMicros(RequestValidator.deadlineMicros(r))
                .setIngestedAtMicros(sent)
                .setGroup(GROUP)
                .build();
    }

    private static ControlDecision setPolicy(long version, String policy) {
        return setPolicy(version, policy, Map.of());
    }

    private static ControlDecision setPolicy(long version, String policy, Map<String, String> params) {
        return setPolicy(version, null, policy, params);
    }

    /** With {@code model} set: that model's parameter overrides (the group keeps its policy). */
    private static ControlDecision setPolicy(long version, String model, String policy, Map<String, String> params) {
        return ControlDecision.newBuilder().setVersion(version).setIssuedAtMicros(WallClock.nowMicros()).setIssuedBy("test")
                .setAction(SetPolicy.newBuilder().setGroup(GROUP).setModel(model).setPolicy(policy).setParams(params).build())
                .build();
    }

    private static List<String> ids(DispatchedBatch b) {
        return b.getRequests().stream().map(a -> a.getRequest().getRequestId()).toList();
    }

    private static List<InferenceResult> dropped(KeyedBroadcastOperatorTestHarness<?, ?, ?, ?> h) {
        var side = h.getSideOutput(GroupSchedulerFunction.DROPPED);
        return side == null ? Collections.emptyList() : side.stream().map(StreamRecord::getValue).toList();
    }

    /** The processing-time timer the function registers for the shedding check of a lone request. */
    private static long sheddingTimerMs(AdmittedRequest r) {
        // GroupScheduler wakes at the first instant the head is unreachable: deadline - tau(1) + 1 us,
        // whose millisecond the function's timer is.
        return ProcessingTimers.millisFor(r.getDeadlineAtMicros() - TAU1_MICROS + 1);
    }

    /**
     * Waits until the wall clock is past the earliest registered timer's millisecond, as Flink fires
     * a timer (1 ms after its time at the earliest), then sets processing time to the wall clock,
     * which fires it (and any other timer due by then).
     */
    private static void fireDueTimers(KeyedBroadcastOperatorTestHarness<?, ?, ?, ?> h) throws Exception {
        var timers = h.getProcessingTimeService().getActiveTimerTimestamps();
        assertThat(timers).as("a registered timer").isNotEmpty();
        long first = Collections.min(timers);
        assertThat(first).as("a timer within the next 10 s").isLessThan(wallMillis() + 10_000);
        while (wallMillis() <= first) Thread.sleep(2);
        h.setProcessingTime(wallMillis());
    }

    private static long wallMillis() {
        return WallClock.nowMicros() / 1000;
    }

    @Test
    void tritonHoldsArrivalsBehindATimerAndReleasesAFullBatch() throws Exception {
        GroupSchedulerFunction f = function();
        var h = harness(f);

        for (int i = 0; i < 3; i++) {
            h.processElement(in(request("r" + i, LONG_SLO_MS)), 0);
            assertThat(h.extractOutputValues()).as("nothing released before max_batch").isEmpty();
            // One timer (the release of the oldest after 60 s): later arrivals need no earlier one.
            assertThat(h.numProcessingTimeTimers()).isEqualTo(1);
        }
        assertThat(h.extractOutputValues()).isEmpty();
        assertThat(dropped(h)).isEmpty();
        assertThat(f.pendingCount(GROUP)).isEqualTo(3);

        h.processElement(in(request("r3", LONG_SLO_MS)), 0);

        assertThat(h.extractOutputValues()).singleElement().satisfies(b -> {
            assertThat(ids(b)).containsExactly("r0", "r1", "r2", "r3");
            assertThat(b.getGroup()).isEqualTo(GROUP);
            assertThat(b.getModel()).isEqualTo("resnet50");
            assertThat(b.getDevice()).isZero();
            assertThat(b.getPredictedLatencyMicros()).isEqualTo(5_100); // 0.8*4 + 1.9 ms
            assertThat(b.getPredictedStartMicros()).isGreaterThanOrEqualTo(b.getDispatchedAtMicros());
            assertThat(b.getRequests()).allSatisfy(a -> assertThat(a.getEnqueuedAtMicros()).isPositive());
        });
        assertThat(f.pendingCount(GROUP)).isZero();
        assertThat(dropped(h)).isEmpty();
    }

    /**
     * A replica removed under a running batch: the batch was sent before the placement changed, the
     * device unloads the model only after it (its UNLOAD follows the batch on the device's channel),
     * and the request queued since goes to the device that stays. By hand: Triton at max batch 1
     * and no queue delay sends r0 to device 0 and r1 to device 1 (device 0 is busy); the group then
     * keeps device 0 only, so device 1 gets an UNLOAD of resnet50 and r2, which arrives after r0's
     * predicted end (2.7 ms), goes to device 0. The scheduler's clock is the test's: on the wall
     * clock r2 came after r0's end only when the placement took more than 2.7 ms to apply, and a
     * warm JVM applied it faster. (The built-in resnet50 has no load cost: it is loaded on its
     * first batch, with no LOAD ahead.)
     */
    @Test
    void aReplicaRemovedUnderARunningBatchIsUnloadedAfterItAndTheQueueMovesToTheDevicesThatStay() throws Exception {
        ManualClock clock = new ManualClock(WallClock.nowMicros());
        GroupSchedulerFunction f = new GroupSchedulerFunction(CATALOG, new ControlPlane(2, "triton", Map.of("max_batch", "1", "max_queue_delay_ms", "0")),
                io.kairos.core.model.LatencyEstimator.Settings.DEFAULT, clock);
        var h = harness(f);
        h.processBroadcastElement(placement(1, 0, 1), 0);
        h.processElement(in(request("r0", LONG_SLO_MS)), 0);
        h.processElement(in(request("r1", LONG_SLO_MS)), 0);
        h.processBroadcastElement(placement(2, 0), 0);
        clock.advance(10_000); // past r0's end on device 0
        h.processElement(in(request("r2", LONG_SLO_MS)), 0);

        assertThat(h.extractOutputValues()).extracting(DispatchedBatch::getAction, DispatchedBatch::getDevice, b -> ids(b)).containsExactly(
                tuple(DeviceAction.RUN, 0, List.of("r0")),
                tuple(DeviceAction.RUN, 1, List.of("r1")),
                tuple(DeviceAction.UNLOAD, 1, List.of()),
                tuple(DeviceAction.RUN, 0, List.of("r2")));
        assertThat(dropped(h)).isEmpty();
    }

    /**
     * A hot model gets its second device as a load of its own, and no request is dropped for it.
     * "hot" takes 100 ms to load and 9 + b ms a batch of b (8 at most: 17 ms, 470 requests/s a
     * device); 300 requests come 1.5 ms apart (667/s, about 1.4 devices' work) to two devices under
     * Triton at max batch 8 and no queue delay. The first batch loads the model on device 0 (no
     * device holds it); from then on device 1 takes no batch until the load planner has sent it a
     * LOAD of the model, and its first batch is predicted to start once that load is done; every
     * request is dispatched or still queued, none is shed.
     */
    /** "hot" (100 ms to load, 9 + b ms a batch of b up to 8) on two devices under Triton at max batch 8 and no queue delay. */
    private static GroupSchedulerFunction hotOnTwoDevices(ManualClock clock) {
        ModelCatalog catalog = ModelCatalog.parse("""
                {"models": [{"name": "hot", "input": {"dtype": "FLOAT32", "shape": [3, 32, 32]}, "batch_sizes": [1, 2, 4, 8],
                             "latency_ms": {"alpha": 1, "beta": 9}, "memory_bytes": 1048576, "load_ms": 100}]}""", "test");
        return new GroupSchedulerFunction(catalog, new ControlPlane(2, "triton", Map.of("max_batch", "8", "max_queue_delay_ms", "0")),
                io.kairos.core.model.LatencyEstimator.Settings.DEFAULT, clock);
    }

    @Test
    void aHotModelGetsItsSecondDeviceAsALoadWithoutDroppingARequest() throws Exception {
        ManualClock clock = new ManualClock(WallClock.nowMicros());
        GroupSchedulerFunction f = hotOnTwoDevices(clock);
        var h = harness(f);
        int n = 300;
        for (int i = 0; i < n; i++) {
            clock.advance(1_500);
            h.processElement(in(request("r" + i, "hot", LONG_SLO_MS)), 0);
        }
        List<DispatchedBatch> out = h.extractOutputValues();
        List<DispatchedBatch> onDevice1 = out.stream().filter(b -> b.getDevice() == 1).toList();
        assertThat(onDevice1).as("device 1's work").isNotEmpty();
        DispatchedBatch load = onDevice1.get(0);
        assertThat(load.getAction()).as("device 1's first action").isEqualTo(DeviceAction.LOAD);
        assertThat(load.getModel()).isEqualTo("hot");
        assertThat(onDevice1.stream().filter(b -> b.getAction() == DeviceAction.LOAD)).as("one load on device 1").hasSize(1);
        List<DispatchedBatch> runs1 = onDevice1.stream().filter(b -> b.getAction() == DeviceAction.RUN).toList();
        assertThat(runs1).as("device 1 serves the model").isNotEmpty();
        assertThat(runs1.get(0).getPredictedStartMicros()).as("after its load").isGreaterThanOrEqualTo(load.getDispatchedAtMicros() + 100_000);
        assertThat(out.stream().filter(b -> b.getDevice() == 0 && b.getAction() != DeviceAction.RUN)).as("device 0 loads in front of its first batch only").isEmpty();
        long dispatched = out.stream().filter(b -> b.getAction() == DeviceAction.RUN).mapToLong(b -> b.getRequests().size()).sum();
        assertThat(dropped(h)).isEmpty();
        assertThat(dispatched + f.pendingCount(GROUP)).isEqualTo(n);
    }

    /**
     * The same hot model, and device 1 reports that it could not load it (its LOAD comes back
     * failed, with the reason): the group takes that copy out, so no batch of the model goes to
     * device 1 and no second LOAD is sent there (the planner does not try it again for the model
     * until the group's devices change); device 0 serves every request meanwhile, none is shed.
     */
    @Test
    void aLoadThatFailsTakesTheCopyOutAndTheDeviceIsNotTriedAgain() throws Exception {
        ManualClock clock = new ManualClock(WallClock.nowMicros());
        GroupSchedulerFunction f = hotOnTwoDevices(clock);
        var h = harness(f);
        int n = 300;
        DispatchedBatch load = null;
        List<DispatchedBatch> after = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            clock.advance(1_500);
            h.processElement(in(request("r" + i, "hot", LONG_SLO_MS)), 0);
            List<DispatchedBatch> out = h.extractOutputValues();
            h.getOutput().clear();
            if (load != null) {
                after.addAll(out);
                continue;
            }
            load = out.stream().filter(b -> b.getAction() == DeviceAction.LOAD && b.getDevice() == 1).findFirst().orElse(null);
            if (load != null) {
                assertThat(out).as("nothing behind the load on device 1 yet").noneMatch(b -> b.getDevice() == 1 && b.getAction() == DeviceAction.RUN);
                // Its report: the device could not load the model.
                h.processElement(GroupInput.newBuilder().setGroup(GROUP).setReport(DeviceReport.newBuilder()
                        .setGroup(GROUP).setBatchId(load.getBatchId()).setModel("hot").setDevice(1).setBatchSize(0)
                        .setExecStartMicros(clock.nowMicros()).setExecEndMicros(clock.nowMicros()).setFailed(true)
                        .setLoadFailed("device 1 could not load model 'hot': model.onnx: not an ONNX file").build()).build(), 0);
                after.addAll(h.extractOutputValues());
                h.getOutput().clear();
            }
        }
        assertThat(load).as("the planner's load on device 1").isNotNull();
        assertThat(after).as("after the failure: device 0 only, and no other load").isNotEmpty()
                .allSatisfy(b -> assertThat(tuple(b.getDevice(), b.getAction())).isEqualTo(tuple(0, DeviceAction.RUN)));
        assertThat(dropped(h)).isEmpty();
    }

    /**
     * T_P in the job's predictions, as in the simulator's (the same GroupScheduler): a model of
     * 2.7 ms at batch 1 with 5 ms of pre- and post-processing (catalog {@code pre_post_ms}) is
     * dispatched with a predicted latency of 2.7 + 5 = 7.7 ms; the same model without it, 2.7 ms.
     */
    @Test
    void theDispatchedBatchesPredictedLatencyIncludesThePreAndPostProcessing() throws Exception {
        for (long prePostMs : new long[]{5, 0}) {
            ModelCatalog catalog = ModelCatalog.parse(("{\"models\": [{\"name\": \"resnet50\", \"input\": {\"dtype\": \"FLOAT32\", \"shape\": [3, 32, 32]},"
                    + " \"latency_ms\": {\"table\": {\"1\": 2.7}}, \"pre_post_ms\": %d}]}").formatted(prePostMs), "test");
            var h = harness(new GroupSchedulerFunction(catalog, new ControlPlane(1, "triton", Map.of("max_batch", "1", "max_queue_delay_ms", "0"))));
            h.processElement(in(request("r0", LONG_SLO_MS)), 0);
            assertThat(h.extractOutputValues()).singleElement()
                    .satisfies(b -> assertThat(b.getPredictedLatencyMicros()).as("pre_post_ms %d", prePostMs).isEqualTo(2_700 + prePostMs * 1000));
        }
    }

    /**
     * A model routed to another group takes its queued requests there at once, without waiting for
     * an arrival of that group's own. By hand: the default group (Triton, 60 s queue delay, batches
     * of 4) on device 0 holds g0 and g1 of googlenet and r0 of resnet50; herd-1 gets device 1 with
     * googlenet and Triton at batches of 2 with no delay; googlenet goes to herd-1: g0 and g1 leave
     * the default group's queue and run on device 1 as one batch of 2, named herd-1's, in the
     * decision's own callback; r0 stays. A googlenet request keyed to the default group after that
     * (admission behind the scheduler) is served by herd-1 too.
     */
    @Test
    void aModelRoutedToAnotherGroupTakesItsQueuedRequestsThereAndServesThemAtOnce() throws Exception {
        GroupSchedulerFunction f = new GroupSchedulerFunction(CATALOG, new ControlPlane(2, "triton", TRITON_WAITS));
        var h = harness(f);
        h.processBroadcastElement(decision(1, io.kairos.schema.SetPlacement.newBuilder().setGroup(GROUP).setDevices(List.of(
                io.kairos.schema.DevicePlacement.newBuilder().setDevice(0).setModels(List.of("googlenet", "resnet50")).build())).build()), 0);
        h.processElement(in(request("g0", "googlenet", LONG_SLO_MS)), 0);
        h.processElement(in(request("g1", "googlenet", LONG_SLO_MS)), 0);
        h.processElement(in(request("r0", "resnet50", LONG_SLO_MS)), 0);
        assertThat(h.extractOutputValues()).as("Triton holds them for 60 s").noneMatch(b -> b.getAction() == DeviceAction.RUN);

        h.processBroadcastElement(decision(2, io.kairos.schema.SetPlacement.newBuilder().setGroup("herd-1").setDevices(List.of(
                io.kairos.schema.DevicePlacement.newBuilder().setDevice(1).setModels(List.of("googlenet")).build())).build()), 0);
        h.processBroadcastElement(decision(3, SetPolicy.newBuilder().setGroup("herd-1").setPolicy("triton")
                .setParams(Map.of("max_batch", "2", "max_queue_delay_ms", "0")).build()), 0);
        assertThat(runs(h)).as("nothing routed to herd-1 yet").isEmpty();
        h.processBroadcastElement(decision(4, io.kairos.schema.AssignGroup.newBuilder().setModel("googlenet").setGroup("herd-1").build()), 0);

        assertThat(runs(h)).singleElement().satisfies(b -> {
            assertThat(b.getGroup()).isEqualTo("herd-1");
            assertThat(b.getDevice()).isEqualTo(1);
            assertThat(ids(b)).containsExactly("g0", "g1");
            assertThat(b.getRequests()).allSatisfy(a -> assertThat(a.getGroup()).isEqualTo("herd-1"));
        });
        assertThat(f.pendingCount(GROUP)).as("r0 stays").isEqualTo(1);
        assertThat(f.pendingCount("herd-1")).isZero();

        h.processElement(in(request("g2", "googlenet", LONG_SLO_MS)), 0); // keyed "default", as admission routed it
        assertThat(runs(h)).singleElement().satisfies(b -> {
            assertThat(b.getGroup()).isEqualTo("herd-1");
            assertThat(ids(b)).containsExactly("g2");
        });
        assertThat(f.pendingCount(GROUP)).isEqualTo(1);
        assertThat(dropped(h)).isEmpty();
    }

    private static ControlDecision decision(long version, Object action) {
        return ControlDecision.newBuilder().setVersion(version).setIssuedAtMicros(WallClock.nowMicros()).setIssuedBy("test").setAction(action).build();
    }

    /** The RUN batches sent since the last call. */
    private static List<DispatchedBatch> runs(KeyedBroadcastOperatorTestHarness<?, ?, ?, ?> h) {
        List<DispatchedBatch> out = new ArrayList<>();
        for (Object o : h.getOutput()) {
            if (o instanceof StreamRecord<?> r && r.getValue() instanceof DispatchedBatch b && b.getAction() == DeviceAction.RUN) out.add(b);
        }
        h.getOutput().clear();
        return out;
    }

    /** The default group's devices {@code slots}, each holding resnet50. */
    private static ControlDecision placement(long version, int... slots) {
        List<io.kairos.schema.DevicePlacement> devices = new ArrayList<>();
        for (int slot : slots) devices.add(io.kairos.schema.DevicePlacement.newBuilder().setDevice(slot).setModels(List.of("resnet50")).build());
        return ControlDecision.newBuilder().setVersion(version).setIssuedAtMicros(WallClock.nowMicros()).setIssuedBy("test")
                .setAction(io.kairos.schema.SetPlacement.newBuilder().setGroup(GROUP).setDevices(devices).build())
                .build();
    }

    @Test
    void onTwoSubtasksARequestRoutedToAGroupOfTheOtherStaysInTheGroupItWasKeyedBy() throws Exception {
        // herd-1 and herd-2 are on different subtasks of two (max parallelism 128). The scheduler's
        // plan routes resnet50 to herd-2 while admission still keyed a request by herd-1 (the
        // decision reached the scheduler first): on one subtask it would go to herd-2; here herd-2
        // is the other subtask's, so it stays in herd-1 and runs on herd-1's device 0, which holds it.
        int max = 128;
        int owner = org.apache.flink.runtime.state.KeyGroupRangeAssignment.assignKeyToParallelOperator("herd-1", max, 2);
        assertThat(org.apache.flink.runtime.state.KeyGroupRangeAssignment.assignKeyToParallelOperator("herd-2", max, 2)).isNotEqualTo(owner);
        var h = new KeyedBroadcastOperatorTestHarness<>(
                new CoBroadcastWithKeyedOperator<>(new GroupSchedulerFunction(CATALOG, new ControlPlane(2, "triton", Map.of("max_batch", "4", "max_queue_delay_ms", "0"))), List.of(ControlPlane.DECISIONS)),
                GroupInput::getGroup, Types.STRING, max, 2, owner);
        opened.add(h);
        h.open();
        long v = 0;
        for (Object action : List.<Object>of(
                io.kairos.schema.SetPlacement.newBuilder().setGroup("herd-1").setDevices(List.of(
                        io.kairos.schema.DevicePlacement.newBuilder().setDevice(0).setModels(List.of("resnet50")).build())).build(),
                io.kairos.schema.SetPlacement.newBuilder().setGroup("herd-2").setDevices(List.of(
                        io.kairos.schema.DevicePlacement.newBuilder().setDevice(1).setModels(List.of("resnet50")).build())).build(),
                io.kairos.schema.AssignGroup.newBuilder().setModel("resnet50").setGroup("herd-2").build())) {
            h.processBroadcastElement(ControlDecision.newBuilder().setVersion(++v).setIssuedAtMicros(WallClock.nowMicros()).setIssuedBy("test")
                    .setAction(action).build(), 0);
        }
        AdmittedRequest r = request("r0", LONG_SLO_MS);
        r.setGroup("herd-1");
        h.processElement(in(r), 0);
        List<DispatchedBatch> ran = runs(h); // triton without a queue delay: at once
        assertThat(ran).singleElement().satisfies(b -> {
            assertThat(b.getGroup()).isEqualTo("herd-1");
            assertThat(b.getDevice()).isEqualTo(0);
            assertThat(ids(b)).containsExactly("r0");
        });
    }

    @Test
    void aRequestTheSchedulerCannotQueueFailsAloneAndTheGroupGoesOnServing() throws Exception {
        // A model the scheduler's catalog lacks (admission checks against the same catalog, so
        // only a mismatch could bring one): queuing it throws inside the core. That request gets
        // a FAILED result with the reason; the four after it make triton's batch as usual.
        GroupSchedulerFunction f = function();
        var h = harness(f);
        h.processElement(in(request("lost", "no-such-model", LONG_SLO_MS)), 0);
        for (int i = 0; i < 4; i++) h.processElement(in(request("r" + i, LONG_SLO_MS)), 0);

        assertThat(dropped(h)).singleElement().satisfies(r -> {
            assertThat(r.getRequestId()).isEqualTo("lost");
            assertThat(r.getStatus()).isEqualTo(ResultStatus.FAILED);
            assertThat(r.getReason()).startsWith("serving group 'default' could not queue the request: java.lang.NullPointerException");
        });
        assertThat(h.extractOutputValues()).singleElement().satisfies(b -> assertThat(ids(b)).containsExactly("r0", "r1", "r2", "r3"));
        assertThat(f.pendingCount(GROUP)).isZero();
    }

    @Test
    void aFullGroupDropsTheRequestWithTheLeastLaxityAsQueueFull() throws Exception {
        // triton holds up to 4 (max_batch) for a minute; the group holds 2 at most. The third
        // arrival, due sooner than the two queued, is the one dropped; a fourth, due later than
        // the most urgent one queued, pushes that one out.
        GroupSchedulerFunction f = new GroupSchedulerFunction(CATALOG, new ControlPlane(1, "triton",
                Map.of("max_batch", "4", "max_queue_delay_ms", "60000", "max_pending", "2")));
        var h = harness(f);
        h.processElement(in(request("a", LONG_SLO_MS)), 0);
        h.processElement(in(request("b", LONG_SLO_MS + 1_000)), 0);
        h.processElement(in(request("c", LONG_SLO_MS - 1_000)), 0);
        h.processElement(in(request("d", LONG_SLO_MS + 2_000)), 0);

        assertThat(dropped(h)).extracting(InferenceResult::getRequestId, InferenceResult::getStatus).containsExactly(
                tuple("c", ResultStatus.DROPPED), tuple("a", ResultStatus.DROPPED));
        assertThat(dropped(h)).allSatisfy(r -> assertThat(r.getReason()).startsWith("queue full: serving group 'default' holds 2 requests (max_pending)"));
        assertThat(f.pendingCount(GROUP)).isEqualTo(2);
        assertThat(h.extractOutputValues()).isEmpty();
    }

    @Test
    void switchingToClockworkDispatchesAtTheNextArrival() throws Exception {
        var h = harness(function());
        h.processElement(in(request("r0", LONG_SLO_MS)), 0);
        assertThat(h.extractOutputValues()).isEmpty();

        h.processBroadcastElement(setPolicy(1, "clockwork"), 0);
        // The group picks the decision up at its next arrival or timer, not before.
        assertThat(h.extractOutputValues()).isEmpty();

        h.processElement(in(request("r1", LONG_SLO_MS)), 0);
        // Clockwork: the device is idle and both fit one batch of 2 (3.5 ms) by their deadline: go now.
        assertThat(h.extractOutputValues()).singleElement().satisfies(b -> {
            assertThat(ids(b)).containsExactly("r0", "r1");
            assertThat(b.getPredictedLatencyMicros()).isEqualTo(3_500);
        });
    }

    @Test
    void flexRunsByName() throws Exception {
        GroupSchedulerFunction f = function();
        var h = harness(f);
        for (int i = 0; i < 3; i++) h.processElement(in(request("r" + i, LONG_SLO_MS)), 0); // triton holds them
        h.processBroadcastElement(setPolicy(1, "flex"), 0);

        h.processElement(in(request("r3", LONG_SLO_MS)), 0);
        // Flex: the idle device takes the largest batch that meets the head deadline, all 4 (5.1 ms).
        assertThat(h.extractOutputValues()).extracting(GroupSchedulerFunctionHarnessTest::ids, DispatchedBatch::getPredictedLatencyMicros)
                .containsExactly(tuple(List.of("r0", "r1", "r2", "r3"), 5_100L));
        assertThat(dropped(h)).isEmpty();
    }

    /** One model whose batches are predicted to run a minute per request: a batch sent is running for the whole test. */
    private static final ModelCatalog SLOW = ModelCatalog.parse("""
            {"models": [{"name": "slow", "input": {"dtype": "FLOAT32", "shape": [3, 32, 32]},
                         "batch_sizes": [1, 2, 4, 8], "latency_ms": {"alpha": 60000, "beta": 0}}]}""", "test");

    /** Clockwork booking up to ten minutes ahead: every SLOW request is sent at once, behind the ones before. */
    private static GroupSchedulerFunction booksAhead(io.kairos.core.model.LatencyEstimator.Settings learn) {
        return new GroupSchedulerFunction(SLOW, new ControlPlane(1, "clockwork", Map.of("lookahead_ms", "600000")), learn);
    }

    private static GroupInput report(DispatchedBatch b, long startMicros, long endMicros) {
        return GroupInput.newBuilder().setGroup(b.getGroup()).setReport(DeviceReport.newBuilder()
                .setGroup(b.getGroup()).setBatchId(b.getBatchId()).setModel(b.getModel()).setDevice(b.getDevice())
                .setBatchSize(b.getRequests().size()).setExecStartMicros(startMicros).setExecEndMicros(endMicros).build()).build();
    }

    private static long predictedEnd(DispatchedBatch b) {
        return b.getPredictedStartMicros() + b.getPredictedLatencyMicros();
    }

    @Test
    void aBatchThatEndedFiveMillisecondsLateShiftsTheNextBatchByFiveMilliseconds() throws Exception {
        var h = harness(booksAhead(null));
        double slo = 3_600_000;
        h.processElement(in(request("a", "slow", slo)), 0);
        h.processElement(in(request("b", "slow", slo)), 0);
        List<DispatchedBatch> sent = h.extractOutputValues();
        assertThat(sent).hasSize(2);
        DispatchedBatch a = sent.get(0), b = sent.get(1);
        assertThat(b.getPredictedStartMicros()).as("b booked behind a").isEqualTo(predictedEnd(a));

        // a really ran 5 ms longer than predicted: b, still booked, now starts 5 ms later, and so does what comes next.
        h.processElement(report(a, a.getPredictedStartMicros(), predictedEnd(a) + 5_000), 0);
        h.getOutput().clear();
        h.processElement(in(request("c", "slow", slo)), 0);
        DispatchedBatch c = h.extractOutputValues().get(0);
        assertThat(c.getPredictedStartMicros()).isEqualTo(predictedEnd(b) + 5_000);
        assertThat(c.getPredictedLatencyMicros()).as("learning off: the catalog's profile").isEqualTo(60_000_000);
    }

    @Test
    void aReportCorrectsTheModelsProfileWhenLearningIsOn() throws Exception {
        var h = harness(booksAhead(io.kairos.core.model.LatencyEstimator.Settings.DEFAULT));
        double slo = 3_600_000;
        h.processElement(in(request("a", "slow", slo)), 0);
        DispatchedBatch a = h.extractOutputValues().get(0);
        assertThat(a.getPredictedLatencyMicros()).isEqualTo(60_000_000);
        h.processElement(report(a, a.getPredictedStartMicros(), predictedEnd(a) + 5_000), 0);
        h.getOutput().clear();
        h.processElement(in(request("b", "slow", slo)), 0);
        DispatchedBatch b = h.extractOutputValues().get(0);
        // One batch of 1 measured 60.005 s: its size is now predicted so, and a's real end is where b starts (if not sooner than now).
        assertThat(b.getPredictedLatencyMicros()).isEqualTo(60_005_000);
        assertThat(b.getPredictedStartMicros()).isEqualTo(Math.max(b.getDispatchedAtMicros(), predictedEnd(a) + 5_000));
    }

    @Test
    void aReportOfABatchTheSchedulerNeverSentChangesNothing() throws Exception {
        var h = harness(booksAhead(null));
        double slo = 3_600_000;
        h.processElement(in(request("a", "slow", slo)), 0);
        DispatchedBatch a = h.extractOutputValues().get(0);
        DispatchedBatch stranger = DispatchedBatch.newBuilder(a).setBatchId("not-sent-here").build();
        h.processElement(report(stranger, a.getPredictedStartMicros(), predictedEnd(a) + 5_000), 0);
        h.getOutput().clear();
        h.processElement(in(request("b", "slow", slo)), 0);
        assertThat(h.extractOutputValues().get(0).getPredictedStartMicros()).isEqualTo(predictedEnd(a));
    }

    @Test
    void flexPreemptsARunningBatchWithACancelToItsDeviceAndTheRequestsRememberIt() throws Exception {
        var h = harness(new GroupSchedulerFunction(SLOW, new ControlPlane(1, "flex", Map.of("lambda", "2"))));
        double slo = 3_600_000; // an hour: room for a batch of 8
        h.processElement(in(request("a", "slow", slo)), 0);
        DispatchedBatch first = h.extractOutputValues().get(0);
        assertThat(ids(first)).containsExactly("a");
        h.getOutput().clear();

        // With "a" counted in, the candidate is 2 = lambda x 1: the running batch is preempted, and
        // the cancel reaches the device before the batch that replaces it.
        h.processElement(in(request("b", "slow", slo)), 0);
        List<DispatchedBatch> sent = h.extractOutputValues();
        assertThat(sent).extracting(DispatchedBatch::getAction, DispatchedBatch::getBatchId, DispatchedBatch::getCancelledRequestIds, GroupSchedulerFunctionHarnessTest::ids)
                .containsExactly(
                        tuple(DeviceAction.CANCEL, first.getBatchId(), List.of("a"), List.of()),
                        tuple(DeviceAction.RUN, sent.get(1).getBatchId(), List.of(), List.of("a", "b")));
        assertThat(sent.get(1).getBatchId()).isNotEqualTo(first.getBatchId());
        assertThat(sent.get(1).getRequests()).extracting(AdmittedRequest::getPreemptedFrom)
                .containsExactly(List.of(first.getBatchId()), List.of());

        // Two more: 4 = 2 x 2 preempts the batch of two; "a" has now been preempted twice.
        h.getOutput().clear();
        h.processElement(in(request("c", "slow", slo)), 0);
        assertThat(h.extractOutputValues()).as("a candidate of 2 (of 3), below 2 x 2: c waits").isEmpty();
        h.processElement(in(request("d", "slow", slo)), 0);
        List<DispatchedBatch> again = h.extractOutputValues();
        assertThat(again).extracting(DispatchedBatch::getAction, DispatchedBatch::getBatchId, DispatchedBatch::getCancelledRequestIds)
                .containsExactly(
                        tuple(DeviceAction.CANCEL, sent.get(1).getBatchId(), List.of("a", "b")),
                        tuple(DeviceAction.RUN, again.get(1).getBatchId(), List.of()));
        assertThat(again.get(1).getRequests()).extracting(r -> r.getRequest().getRequestId(), AdmittedRequest::getPreemptedFrom)
                .containsExactly(
                        tuple("a", List.of(first.getBatchId(), sent.get(1).getBatchId())),
                        tuple("b", List.of(sent.get(1).getBatchId())),
                        tuple("c", List.of()),
                        tuple("d", List.of()));
        assertThat(dropped(h)).isEmpty();
    }

    @Test
    void switchingToClockworkDispatchesWhenThePendingTimerFires() throws Exception {
        var h = harness(function());
        // resnet50 is released after 0.5 s, googlenet after the group's 60 s.
        h.processBroadcastElement(setPolicy(1, "resnet50", "triton", Map.of("max_queue_delay_ms", "500")), 0);
        h.processElement(in(request("r0", LONG_SLO_MS)), 0);
        h.processElement(in(request("g0", "googlenet", LONG_SLO_MS)), 0);
        h.processBroadcastElement(setPolicy(2, "clockwork"), 0);
        assertThat(h.extractOutputValues()).isEmpty();

        // The next timer is r0's release (0.5 s after it arrived). Triton would release r0 only;
        // Clockwork, now in force, dispatches both: r0 on the idle device, g0 behind it (2.7 ms < 5 ms booked).
        fireDueTimers(h);

        assertThat(h.extractOutputValues()).extracting(GroupSchedulerFunctionHarnessTest::ids)
                .containsExactlyInAnyOrder(List.of("r0"), List.of("g0"));
        assertThat(dropped(h)).isEmpty();
    }

    @Test
    void tritonReleasesOnlyTheDueModelWhenTheTimerFires() throws Exception {
        // The same as above without the switch: the contrast that makes the test above mean something.
        var h = harness(function());
        h.processBroadcastElement(setPolicy(1, "resnet50", "triton", Map.of("max_queue_delay_ms", "500")), 0);
        h.processElement(in(request("r0", LONG_SLO_MS)), 0);
        h.processElement(in(request("g0", "googlenet", LONG_SLO_MS)), 0);

        fireDueTimers(h);

        assertThat(h.extractOutputValues()).extracting(GroupSchedulerFunctionHarnessTest::ids).containsExactly(List.of("r0"));
        assertThat(dropped(h)).isEmpty();
    }

    @Test
    void aPolicyDecisionWithABadValueIsRejectedAndTheGroupGoesOnServing() throws Exception {
        var h = harness(function());
        h.processElement(in(request("r0", LONG_SLO_MS)), 0);
        // Once, applied to the plan, this made every later arrival throw and restart the job.
        h.processBroadcastElement(setPolicy(1, "clockwork", Map.of("lookahead_ms", "abc")), 0);
        h.processBroadcastElement(setPolicy(2, "resnet50", "triton", Map.of("max_batch", "-5")), 0);
        for (int i = 1; i < 4; i++) h.processElement(in(request("r" + i, LONG_SLO_MS)), 0);
        // Still Triton with max_batch 4: the fourth arrival releases the batch.
        assertThat(h.extractOutputValues()).singleElement().satisfies(b -> assertThat(ids(b)).containsExactly("r0", "r1", "r2", "r3"));
        assertThat(dropped(h)).isEmpty();
    }

    @Test
    void replayedDecisionIsIgnored() throws Exception {
        var h = harness(function());
        h.processBroadcastElement(setPolicy(2, "triton", TRITON_WAITS), 0);
        h.processBroadcastElement(setPolicy(1, "clockwork"), 0); // older version: no effect
        h.processBroadcastElement(setPolicy(2, "clockwork"), 0); // same version again: no effect
        h.processElement(in(request("r0", LONG_SLO_MS)), 0);
        h.processElement(in(request("r1", LONG_SLO_MS)), 0);
        // Still Triton with a 60 s delay: Clockwork would have dispatched r0 at once.
        assertThat(h.extractOutputValues()).isEmpty();
        // One decision per key in broadcast state: the latest applied.
        assertThat(h.getBroadcastState(ControlPlane.DECISIONS).entries()).singleElement().satisfies(e -> {
            assertThat(e.getKey()).isEqualTo("policy/" + GROUP);
            assertThat(e.getValue().getVersion()).isEqualTo(2);
            assertThat(((SetPolicy) e.getValue().getAction()).getPolicy()).isEqualTo("triton");
        });
    }

    @Test
    void requestWhoseDeadlineBecomesUnreachableIsDroppedWhenItsTimerFires() throws Exception {
        GroupSchedulerFunction f = function();
        var h = harness(f);
        // 1 s SLO: reachable at arrival (it needs only 2.7 ms), unreachable 2.7 ms before its deadline.
        AdmittedRequest r = request("late", 1_000);
        h.processElement(in(r), 0);
        assertThat(dropped(h)).isEmpty();
        assertThat(h.extractOutputValues()).isEmpty();
        assertThat(h.getProcessingTimeService().getActiveTimerTimestamps()).contains(sheddingTimerMs(r));

        // Fired once the wall clock is there, the request can no longer finish in time.
        fireDueTimers(h);

        assertThat(dropped(h)).singleElement().satisfies(res -> {
            assertThat(res.getRequestId()).isEqualTo("late");
            assertThat(res.getStatus()).isEqualTo(ResultStatus.DROPPED);
            assertThat(res.getReason()).contains("deadline unreachable");
            assertThat(res.getTimings().getDeadline()).isEqualTo(r.getDeadlineAtMicros());
            assertThat(res.getTimings().getEnqueued()).isNotNull();
        });
        assertThat(h.extractOutputValues()).isEmpty();
        assertThat(f.pendingCount(GROUP)).isZero();
    }

    @Test
    void underThePreciseWakeOperatorTheRequestIsDroppedAtItsWakeThroughTheMailboxBeforeFlinksTimer() throws Exception {
        // The same lone request, SLO 300 ms: its wake, 2.7 ms before the deadline, comes through the
        // task's mailbox; Flink's timer for its ms stays set (the harness's processing time never moves).
        GroupSchedulerFunction f = function();
        var h = new KeyedBroadcastOperatorTestHarness<>(new PreciseWakeOperator<>(f, List.<MapStateDescriptor<?, ?>>of(ControlPlane.DECISIONS)),
                GroupInput::getGroup, Types.STRING, 1, 1, 0);
        opened.add(h);
        h.open();
        AdmittedRequest r = request("late", 300);
        h.processElement(in(r), 0);
        assertThat(dropped(h)).isEmpty();

        long until = System.nanoTime() + 2_000_000_000L;
        while (dropped(h).isEmpty() && System.nanoTime() < until) {
            var mail = h.getTaskMailbox().tryTake(TaskMailbox.MIN_PRIORITY);
            if (mail.isPresent()) mail.get().run();
            else Thread.sleep(1);
        }
        long droppedAt = WallClock.nowMicros();

        assertThat(dropped(h)).singleElement().satisfies(res -> {
            assertThat(res.getRequestId()).isEqualTo("late");
            assertThat(res.getReason()).contains("deadline unreachable");
        });
        // Not before the wake, and well before its deadline (the wake is 2.7 ms before it).
        assertThat(droppedAt).isGreaterThanOrEqualTo(r.getDeadlineAtMicros() - TAU1_MICROS + 1);
        assertThat(f.pendingCount(GROUP)).isZero();
        assertThat(h.getProcessingTimeService().getActiveTimerTimestamps()).contains(sheddingTimerMs(r));
    }

    @Test
    void queuedRequestsAndDecisionsSurviveASnapshotAndComeOutWhenTheRestoredTimerFires() throws Exception {
        var h1 = harness(function());
        h1.processBroadcastElement(setPolicy(1, "resnet50", "triton", Map.of("max_queue_delay_ms", "500")), 0);
        h1.processElement(in(request("r0", LONG_SLO_MS)), 0);
        h1.processElement(in(request("g0", "googlenet", LONG_SLO_MS)), 0);
        // Decided after they queued: Triton still holds them when the snapshot is taken.
        h1.processBroadcastElement(setPolicy(2, "clockwork"), 0);
        assertThat(h1.extractOutputValues()).isEmpty();
        OperatorSubtaskState snapshot = h1.snapshot(1L, 1L);

        var h2 = restored(snapshot);
        // The timer is keyed state and comes back; the requests wait for their group to be touched.
        assertThat(h2.numProcessingTimeTimers()).isEqualTo(1);
        assertThat(h2.extractOutputValues()).isEmpty();

        fireDueTimers(h2);

        // The plan is rebuilt from broadcast state (Clockwork; Triton would hold g0 for 60 s), the
        // queues from the union list state: both requests leave without a new arrival.
        assertThat(h2.extractOutputValues()).extracting(GroupSchedulerFunctionHarnessTest::ids)
                .containsExactlyInAnyOrder(List.of("r0"), List.of("g0"));
        assertThat(dropped(h2)).isEmpty();
    }

    @Test
    void aWindowedRequestIsHeldBehindATimerAtItsReleaseAndSurvivesASnapshot() throws Exception {
        // Window start 300 ms after the send: the scheduler holds it until 300 ms less resnet50's
        // latency alone (tau(1)), and wakes then (a timer at that instant's ms); nothing goes before.
        var h1 = harness(function());
        h1.processBroadcastElement(setPolicy(1, "clockwork"), 0);
        AdmittedRequest r = request("w", LONG_SLO_MS);
        r.getRequest().setWindowStartMs(300.0);
        h1.processElement(in(r), 0);
        assertThat(h1.extractOutputValues()).isEmpty();
        long release = RequestValidator.windowStartMicros(r.getRequest()) - TAU1_MICROS;
        assertThat(h1.getProcessingTimeService().getActiveTimerTimestamps()).contains(ProcessingTimers.millisFor(release));
        OperatorSubtaskState snapshot = h1.snapshot(1L, 1L);

        var h2 = restored(snapshot);
        fireDueTimers(h2);
        assertThat(h2.extractOutputValues()).extracting(GroupSchedulerFunctionHarnessTest::ids).containsExactly(List.of("w"));
        assertThat(WallClock.nowMicros()).isGreaterThanOrEqualTo(release);
        assertThat(dropped(h2)).isEmpty();
    }

    @Test
    void restoredRequestsAreShedWhenTheRestoredTimerFiresTooLate() throws Exception {
        var h1 = harness(function());
        AdmittedRequest a = request("a", 1_000);
        AdmittedRequest b = request("b", 1_000);
        h1.processElement(in(a), 0);
        h1.processElement(in(b), 0);
        assertThat(h1.extractOutputValues()).isEmpty();
        OperatorSubtaskState snapshot = h1.snapshot(1L, 1L);

        var h2 = restored(snapshot);
        assertThat(h2.numProcessingTimeTimers()).isEqualTo(1);
        assertThat(h2.getProcessingTimeService().getActiveTimerTimestamps()).containsExactly(sheddingTimerMs(a));

        // a is the head (earlier deadline) and is shed at its timer; b, sent a moment later, is shed
        // with it or, if its deadline is a millisecond or more later, at the timer registered then.
        fireDueTimers(h2);
        if (dropped(h2).size() < 2) fireDueTimers(h2);

        assertThat(dropped(h2)).extracting(InferenceResult::getRequestId).containsExactlyInAnyOrder("a", "b");
        assertThat(dropped(h2)).allSatisfy(res -> assertThat(res.getStatus()).isEqualTo(ResultStatus.DROPPED));
        assertThat(h2.extractOutputValues()).isEmpty();
    }
}
