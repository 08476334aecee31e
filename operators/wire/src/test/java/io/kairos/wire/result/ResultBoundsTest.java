package io.kairos.wire.result;

import io.kairos.core.request.AdmissionLimits;
import io.kairos.core.request.Utf8;
import io.kairos.schema.DType;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.ResultStatus;
import io.kairos.schema.Tensor;
import io.kairos.schema.internal.AdmittedRequest;
import io.kairos.schema.internal.BatchOutcome;
import io.kairos.schema.internal.DispatchedBatch;
import io.kairos.wire.AvroCodec;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ResultBoundsTest {
    private static final long NOW = 1_700_000_000_000_000L;
    private static final AvroCodec<InferenceResult> CODEC = AvroCodec.of(InferenceResult.class);
    private final ResultBounds bounds = ResultBounds.DEFAULT; // 1 MiB less 16 KiB, fields of 256 bytes

    private static InferenceRequest request(String id, String model) {
        return InferenceRequest.newBuilder().setRequestId(id).setTenant("t").setModel(model)
                .setInput(Tensor.newBuilder().setDtype(DType.FLOAT32).setShape(List.of(64L)).setData(ByteBuffer.allocate(256)).build())
                .setSentAtMicros(NOW).setSloMs(100).build();
    }

    /** What the producer is handed: the key (the request id) and the value. */
    private static long recordBytes(InferenceResult r) {
        return CODEC.encode(r).length + r.getRequestId().getBytes(StandardCharsets.UTF_8).length;
    }

    @Test
    void aResultThatFitsIsLeftAsItIs() {
        InferenceResult r = Results.rejected("o", request("r1", "nope"), "unknown model 'nope'", NOW, NOW);
        assertThat(bounds.fit(r)).isSameAs(r);
    }

    @Test
    void aRejectedRequestWithAHugeIdKeepsItsFirstBytesAndSaysSo() {
        InferenceResult r = Results.rejected("o", request("x".repeat(600_000), "mlp"), "request_id is 600000 bytes, over the limit of 256 bytes", NOW, NOW);
        assertThat(recordBytes(r)).isGreaterThan(1_048_576); // what once failed the job

        InferenceResult fitted = bounds.fit(r);
        assertThat(fitted.getRequestId()).isEqualTo("x".repeat(256));
        assertThat(fitted.getStatus()).isEqualTo(ResultStatus.REJECTED);
        assertThat(fitted.getReason()).isEqualTo("request_id is 600000 bytes, over the limit of 256 bytes; request_id truncated to its first 256 of 600000 bytes");
        assertThat(recordBytes(fitted)).isLessThan(bounds.maxRecordBytes());
    }

    @Test
    void aHugeUnknownModelIsCutInTheModelAndInTheReason() {
        String model = "m".repeat(600_000);
        InferenceResult r = Results.rejected("o", request("r", model), "unknown model '" + model + "'; served models: [mlp]", NOW, NOW);
        InferenceResult fitted = bounds.fit(r);
        assertThat(fitted.getModel()).isEqualTo("m".repeat(256));
        assertThat(fitted.getReason()).isEqualTo("unknown model '" + "m".repeat(8 * 1024 - 15) + " [reason truncated]; model truncated to its first 256 of 600000 bytes");
        assertThat(recordBytes(fitted)).isLessThan(bounds.maxRecordBytes());
    }

    @Test
    void truncationNeverSplitsACharacter() {
        String id = "a" + "\u20ac".repeat(200_000); // 1 + 600,000 bytes
        InferenceResult fitted = bounds.fit(Results.rejected("o", request(id, "mlp"), "too long", NOW, NOW));
        assertThat(fitted.getRequestId()).isEqualTo("a" + "\u20ac".repeat(85)); // 256 bytes
        assertThat(Utf8.length(fitted.getRequestId())).isEqualTo(256);
        assertThat(fitted.getReason()).isEqualTo("too long; request_id truncated to its first 256 of 600001 bytes");
    }

    @Test
    void anOutputTooLargeForTheProducerTurnsTheResultFailed() {
        AdmittedRequest a = AdmittedRequest.newBuilder().setRequest(request("big", "mlp")).setDeadlineAtMicros(NOW + 100_000).setIngestedAtMicros(NOW).build();
        Tensor huge = Tensor.newBuilder().setDtype(DType.FLOAT32).setShape(List.of(300_000L)).setData(ByteBuffer.allocate(1_200_000)).build();
        DispatchedBatch batch = DispatchedBatch.newBuilder().setBatchId("b").setGroup("g").setModel("mlp").setDevice(0)
                .setDispatchedAtMicros(NOW).setPredictedStartMicros(NOW).setPredictedLatencyMicros(10).setRequests(List.of(a)).build();
        BatchOutcome outcome = BatchOutcome.newBuilder().setBatch(batch).setExecStartMicros(NOW).setExecEndMicros(NOW + 10)
                .setOutputs(List.of(huge)).build();
        InferenceResult r = Results.executed(outcome, 0, NOW + 20);
        assertThat(r.getStatus()).isEqualTo(ResultStatus.OK);

        InferenceResult fitted = bounds.fit(r);
        assertThat(fitted.getStatus()).isEqualTo(ResultStatus.FAILED);
        assertThat(fitted.getOutput()).isNull();
        assertThat(fitted.getReason()).isEqualTo("output of 1200000 bytes makes the result larger than the limit of 1032192 bytes (the results producer's max.request.size less 16384)");
        assertThat(fitted.getRequestId()).isEqualTo("big");
        assertThat(fitted.getDevice()).isZero();

        // An output that fits goes out untouched.
        Tensor fine = Tensor.newBuilder().setDtype(DType.FLOAT32).setShape(List.of(200_000L)).setData(ByteBuffer.allocate(800_000)).build();
        outcome.setOutputs(List.of(fine));
        InferenceResult ok = Results.executed(outcome, 0, NOW + 20);
        assertThat(bounds.fit(ok)).isSameAs(ok);
        assertThat(recordBytes(ok)).isLessThan(bounds.maxRecordBytes());
    }

    @Test
    void theLimitMustLeaveRoomForTheFieldsAndAReason() {
        assertThat(ResultBounds.forProducer(1_048_576, AdmissionLimits.DEFAULTS).maxRecordBytes()).isEqualTo(1_032_192);
        assertThatThrownBy(() -> new ResultBounds(10_000, 256)).hasMessage("a result of at most 10000 bytes cannot hold fields of 256 bytes and a reason; it needs 10752");
    }
}
