package io.kairos.flink;

import io.kairos.core.model.ModelCatalog;
import io.kairos.schema.BatchTelemetry;
import io.kairos.schema.DType;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.ResultStatus;
import io.kairos.schema.Tensor;
import io.kairos.schema.internal.AdmittedRequest;
import io.kairos.schema.internal.BatchOutcome;
import io.kairos.schema.internal.DispatchedBatch;
import io.kairos.schema.internal.StageOutcome;
import io.kairos.wire.AvroCodec;
import io.kairos.wire.request.RequestValidator;
import org.apache.flink.streaming.api.operators.ProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

/**
 * The metrics {@link EmitResults} registers, read through a metric registry that records every
 * registration (what a Prometheus reporter would be handed): counts of OK, LATE and FAILED results
 * and the SLO attainment gauge; each batch's energy estimate in its telemetry and per model; and a
 * device output that cannot be written failing its request only.
 */
class EmitResultsMetricsTest {

    private RecordedMetrics metrics;
    private OneInputStreamOperatorTestHarness<BatchOutcome, ?> harness;

    @BeforeEach
    void open() throws Exception {
        metrics = new RecordedMetrics("results per request");
        harness = new OneInputStreamOperatorTestHarness<>(new ProcessOperator<>(new EmitResults(ModelCatalog.builtIn())), metrics.environment());
        harness.open();
    }

    @AfterEach
    void close() throws Exception {
        harness.close();
        metrics.close();
    }

    private long count(String name) {
        return metrics.count(name);
    }

    private double attainment() {
        return metrics.gauge("sloAttainment");
    }

    /** A batch of {@code n} requests with deadline 1,000 us that ended at {@code endMicros}. */
    private static BatchOutcome batch(int n, long endMicros, String error) {
        return batch("mlp", n, endMicros, error);
    }

    private static BatchOutcome batch(String model, int n, long endMicros, String error) {
        List<AdmittedRequest> requests = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            InferenceRequest r = InferenceRequest.newBuilder()
                    .setRequestId("r" + i).setTenant("t").setModel(model)
                    .setInput(Tensor.newBuilder().setDtype(DType.FLOAT32).setShape(List.of(64L)).setData(ByteBuffer.allocate(256)).build())
                    .setSentAtMicros(0).setSloMs(1)
                    .build();
            requests.add(AdmittedRequest.newBuilder().setRequest(r).setDeadlineAtMicros(RequestValidator.deadlineMicros(r))
                    .setIngestedAtMicros(10).setEnqueuedAtMicros(20).setGroup("default").build());
        }
        DispatchedBatch b = DispatchedBatch.newBuilder().setBatchId("b").setGroup("default").setModel(model).setDevice(0)
                .setDispatchedAtMicros(30).setPredictedStartMicros(30).setPredictedLatencyMicros(300).setRequests(requests).build();
        return BatchOutcome.newBuilder().setBatch(b).setExecStartMicros(40).setExecEndMicros(endMicros)
                .setColdStart(false).setError(error).setOutputs(new ArrayList<>()).build();
    }

    @Test
    void aPipelineStagesResultGoesToTheStagesSideOutputWithTheInputItCarries() throws Exception {
        // r0 is a request of its own; r1 a pipeline's entry stage carrying the request's input for
        // a later stage; r2 a pipeline's stage carrying none.
        BatchOutcome outcome = batch(3, 500, null);
        Tensor picture = Tensor.newBuilder().setDtype(DType.FLOAT32).setShape(List.of(1L)).setData(ByteBuffer.allocate(4)).build();
        List<AdmittedRequest> requests = outcome.getBatch().getRequests();
        requests.get(1).getRequest().setPipelineId("cascade");
        requests.get(1).setPipelineInput(picture);
        requests.get(2).getRequest().setPipelineId("chain");
        harness.processElement(new StreamRecord<>(outcome));

        assertThat(harness.extractOutputValues()).extracting(r -> ((InferenceResult) r).getRequestId()).containsExactly("r0");
        List<StageOutcome> stages = new ArrayList<>();
        harness.getSideOutput(EmitResults.STAGES).forEach(r -> stages.add(r.getValue()));
        assertThat(stages).extracting(o -> o.getResult().getRequestId(), StageOutcome::getPipelineInput)
                .containsExactly(tuple("r1", picture), tuple("r2", null));
        assertThat(count("ok")).as("every executed request counts where it ran, a stage's too").isEqualTo(3);
    }

    @Test
    void anOutputThatCannotBeWrittenFailsItsRequestOnly() throws Exception {
        // Three requests done by the deadline; the device's output for the second has no dtype,
        // which Avro cannot write: that request fails, the other two are OK, nothing throws.
        BatchOutcome outcome = batch(3, 500, null);
        Tensor good = Tensor.newBuilder().setDtype(DType.FLOAT32).setShape(List.of(1L)).setData(ByteBuffer.allocate(4)).build();
        outcome.setOutputs(new ArrayList<>(List.of(good, new Tensor(null, List.of(1L), ByteBuffer.allocate(4)), good)));
        harness.processElement(new StreamRecord<>(outcome));

        @SuppressWarnings("unchecked")
        List<InferenceResult> results = (List<InferenceResult>) (List<?>) harness.extractOutputValues();
        assertThat(results).extracting(InferenceResult::getRequestId, InferenceResult::getStatus, InferenceResult::getReason).containsExactly(
                tuple("r0", ResultStatus.OK, null),
                tuple("r1", ResultStatus.FAILED, "device 0 returned an output that cannot be written: its dtype is missing"),
                tuple("r2", ResultStatus.OK, null));
        AvroCodec<InferenceResult> codec = AvroCodec.of(InferenceResult.class);
        assertThat(results).allSatisfy(r -> assertThat(codec.encode(r)).isNotEmpty());
        assertThat(count("ok")).isEqualTo(2);
        assertThat(count("failed")).isEqualTo(1);
    }

    @Test
    void attainmentIsUndefinedBeforeTheFirstResult() {
        assertThat(count("ok")).isZero();
        assertThat(attainment()).isNaN();
    }

    @Test
    void countsEachResultByStatusAndAttainmentIsTheOkShare() throws Exception {
        harness.processElement(new StreamRecord<>(batch(3, 500, null)));        // by the deadline: 3 OK
        harness.processElement(new StreamRecord<>(batch(2, 5_000, null)));      // after it: 2 LATE
        harness.processElement(new StreamRecord<>(batch(1, 500, "device lost"))); // 1 FAILED

        assertThat(harness.extractOutputValues()).hasSize(6);
        assertThat(count("ok")).isEqualTo(3);
        assertThat(count("late")).isEqualTo(2);
        assertThat(count("failed")).isEqualTo(1);
        assertThat(attainment()).isEqualTo(3.0 / 6);
    }

    private List<BatchTelemetry> telemetry() {
        List<BatchTelemetry> out = new ArrayList<>();
        harness.getSideOutput(EmitResults.TELEMETRY).forEach(r -> out.add(r.getValue()));
        return out;
    }

    /**
     * The built-in googlenet: zeta(b) = 19.90 b + 19.60 mJ at sizes 1, 2, 4, 8, 16, 32; a batch of 3
     * runs as 4: 99.2 mJ; a batch of 1: 39.5 mJ. mlp has no energy profile: unknown, no figure.
     */
    @Test
    void eachBatchCarriesItsEnergyEstimateAndEachModelWithAProfileSumsIt() throws Exception {
        harness.processElement(new StreamRecord<>(batch("googlenet", 3, 500, null)));
        harness.processElement(new StreamRecord<>(batch("googlenet", 1, 500, null)));
        harness.processElement(new StreamRecord<>(batch("googlenet", 2, 500, "device lost"))); // failed: no estimate
        harness.processElement(new StreamRecord<>(batch("mlp", 2, 500, null)));

        assertThat(telemetry()).extracting(BatchTelemetry::getModel, BatchTelemetry::getBatchSize, BatchTelemetry::getEnergyMj).containsExactly(
                tuple("googlenet", 3, 19.90 * 4 + 19.60),
                tuple("googlenet", 1, 39.5),
                tuple("googlenet", 2, null),
                tuple("mlp", 2, null));
        assertThat(metrics.gauge("model.googlenet.energyMillijoules")).isCloseTo(138.7, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(metrics.registered()).noneMatch(id -> id.contains("model.mlp"));
        AvroCodec<BatchTelemetry> codec = AvroCodec.of(BatchTelemetry.class);
        assertThat(codec.decode(codec.encode(telemetry().get(0))).getEnergyMj()).isEqualTo(19.90 * 4 + 19.60);
    }

    /**
     * A load's outcome is no batch: no result and no count, a telemetry record with the action and
     * why it was made; a load that failed also goes back to its scheduler, with the reason, and an
     * unload that worked does not.
     */
    @Test
    void aLoadGivesTelemetryWithWhyAndAFailedOneAReportForItsScheduler() throws Exception {
        harness.processElement(new StreamRecord<>(action("l1", io.kairos.schema.internal.DeviceAction.LOAD, "demand", null)));
        harness.processElement(new StreamRecord<>(action("l2", io.kairos.schema.internal.DeviceAction.LOAD, "demand", "device 1 could not load model 'mlp': bad file")));
        harness.processElement(new StreamRecord<>(action("u1", io.kairos.schema.internal.DeviceAction.UNLOAD, "the placement no longer lists it", null)));

        assertThat(harness.extractOutputValues()).isEmpty();
        assertThat(count("ok") + count("failed") + count("late")).isZero();
        List<BatchTelemetry> telemetry = new ArrayList<>();
        harness.getSideOutput(EmitResults.TELEMETRY).forEach(r -> telemetry.add(r.getValue()));
        assertThat(telemetry).extracting(BatchTelemetry::getBatchId, BatchTelemetry::getModelAction, BatchTelemetry::getWhy, BatchTelemetry::getError, BatchTelemetry::getBatchSize)
                .containsExactly(
                        tuple("l1", io.kairos.schema.ModelAction.LOAD, "demand", null, 0),
                        tuple("l2", io.kairos.schema.ModelAction.LOAD, "demand", "device 1 could not load model 'mlp': bad file", 0),
                        tuple("u1", io.kairos.schema.ModelAction.UNLOAD, "the placement no longer lists it", null, 0));
        List<io.kairos.schema.internal.DeviceReport> reports = new ArrayList<>();
        harness.getSideOutput(EmitResults.REPORTS).forEach(r -> reports.add(r.getValue()));
        assertThat(reports).extracting(io.kairos.schema.internal.DeviceReport::getBatchId, io.kairos.schema.internal.DeviceReport::getDevice,
                        io.kairos.schema.internal.DeviceReport::getModel, io.kairos.schema.internal.DeviceReport::getLoadFailed)
                .containsExactly(tuple("l2", 1, "mlp", "device 1 could not load model 'mlp': bad file"));
    }

    private static BatchOutcome action(String id, io.kairos.schema.internal.DeviceAction action, String why, String error) {
        DispatchedBatch b = DispatchedBatch.newBuilder().setBatchId(id).setGroup("default").setModel("mlp").setDevice(1)
                .setDispatchedAtMicros(30).setPredictedStartMicros(30).setPredictedLatencyMicros(0).setRequests(List.of())
                .setAction(action).setWhy(why).build();
        return BatchOutcome.newBuilder().setBatch(b).setExecStartMicros(40).setExecEndMicros(300_040).setError(error).setOutputs(List.of()).build();
    }
}
