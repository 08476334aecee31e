package io.kairos.wire.request;

import io.kairos.core.model.ModelCatalog;
import io.kairos.core.request.AdmissionLimits;
import io.kairos.core.request.Request;
import io.kairos.schema.DType;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.Tensor;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class RequestValidatorTest {

    // m takes FLOAT32 [2, 3]: 6 elements * 4 bytes = 24 bytes.
    private static final ModelCatalog CATALOG = ModelCatalog.parse("""
            {"models": [
              {"name": "m", "input": {"dtype": "FLOAT32", "shape": [2, 3]}, "latency_ms": {"alpha": 1, "beta": 1}},
              {"name": "ids", "input": {"dtype": "INT64", "shape": [4]}, "latency_ms": {"alpha": 1, "beta": 1}}
            ]}""", "test");

    private final RequestValidator validator = new RequestValidator(CATALOG);
    private static final long NOW = 1_000_000; // the job's clock: the good request's send time

    private String reason(InferenceRequest r) {
        return validator.rejectionReason(r, NOW);
    }

    private static Tensor tensor(DType dtype, List<Long> shape, int bytes) {
        return Tensor.newBuilder().setDtype(dtype).setShape(shape).setData(ByteBuffer.allocate(bytes)).build();
    }

    private static InferenceRequest.Builder good() {
        return InferenceRequest.newBuilder()
                .setRequestId("r1")
                .setTenant("t")
                .setModel("m")
                .setInput(tensor(DType.FLOAT32, List.of(2L, 3L), 24))
                .setSentAtMicros(1_000_000)
                .setSloMs(50.0);
    }

    @Test
    void goodRequestHasNoReason() {
        assertThat(reason(good().build())).isNull();
        // INT64 [4] = 32 bytes
        assertThat(reason(good().setModel("ids").setInput(tensor(DType.INT64, List.of(4L), 32)).build())).isNull();
    }

    @Test
    void emptyOrBlankId() {
        assertThat(reason(good().setRequestId("").build())).contains("request_id");
        assertThat(reason(good().setRequestId("   ").build())).contains("request_id");
    }

    @Test
    void sloMustBePositiveAndFinite() {
        for (double slo : new double[] {0.0, -1.0, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY}) {
            assertThat(reason(good().setSloMs(slo).build())).as("slo %s", slo).contains("slo_ms");
        }
        assertThat(reason(good().setSloMs(0.001).build())).isNull();
    }

    @Test
    void sendTimeMustBePositive() {
        assertThat(reason(good().setSentAtMicros(0).build())).contains("sent_at_micros");
    }

    @Test
    void unknownModelListsServedModels() {
        assertThat(reason(good().setModel("gpt").build()))
                .contains("unknown model 'gpt'").contains("m").contains("ids");
    }

    @Test
    void dtypeMismatch() {
        assertThat(reason(good().setInput(tensor(DType.INT32, List.of(2L, 3L), 24)).build()))
                .contains("dtype").contains("INT32").contains("FLOAT32").contains("'m'");
    }

    @Test
    void shapeMismatch() {
        assertThat(reason(good().setInput(tensor(DType.FLOAT32, List.of(3L, 2L), 24)).build()))
                .contains("shape").contains("[3, 2]");
        assertThat(reason(good().setInput(tensor(DType.FLOAT32, List.of(6L), 24)).build()))
                .contains("shape");
        assertThat(reason(good().setInput(tensor(DType.FLOAT32, List.of(2L, 3L, 1L), 24)).build()))
                .contains("shape");
    }

    @Test
    void wrongByteCount() {
        assertThat(reason(good().setInput(tensor(DType.FLOAT32, List.of(2L, 3L), 23)).build()))
                .contains("23 bytes").contains("24");
        assertThat(reason(good().setInput(tensor(DType.FLOAT32, List.of(2L, 3L), 0)).build()))
                .contains("0 bytes");
    }

    @Test
    void aUint8TensorFeedsAFloat32InputWithOneByteAnElement() {
        // m takes FLOAT32[2, 3]: 6 elements, 6 bytes as UINT8 (the device widens them), 24 as FLOAT32.
        assertThat(reason(good().setInput(tensor(DType.UINT8, List.of(2L, 3L), 6)).build())).isNull();
        assertThat(reason(good().setInput(tensor(DType.UINT8, List.of(2L, 3L), 24)).build()))
                .contains("24 bytes").contains("UINT8[2, 3] needs 6");
        assertThat(reason(good().setInput(tensor(DType.UINT8, List.of(3L, 2L), 6)).build())).contains("shape");
        // FLOAT16: two bytes an element.
        assertThat(reason(good().setInput(tensor(DType.FLOAT16, List.of(2L, 3L), 12)).build())).isNull();
        assertThat(reason(good().setInput(tensor(DType.FLOAT16, List.of(2L, 3L), 24)).build())).contains("FLOAT16[2, 3] needs 12");
    }

    @Test
    void aDtypeNoDeviceConvertsIsRejectedWithWhatIsAccepted() {
        assertThat(reason(good().setInput(tensor(DType.INT8, List.of(2L, 3L), 6)).build()))
                .contains("INT8").contains("accepted: FLOAT32, UINT8, FLOAT16, converted on the device");
        assertThat(reason(good().setInput(tensor(DType.FLOAT64, List.of(2L, 3L), 48)).build())).contains("FLOAT64");
        // ids takes INT64, and nothing else: no conversion to integers.
        assertThat(reason(good().setModel("ids").setInput(tensor(DType.UINT8, List.of(4L), 4)).build()))
                .contains("UINT8").contains("INT64").doesNotContain("accepted");
    }

    @Test
    void aWindowStartFromZeroToTheDeadlineIsAdmittedAndOtherwiseRejectedNamingTheField() {
        // SLO 50 ms: window starts 0, 20 and 50 ms are in [0, slo_ms].
        for (double w : new double[] {0.0, 20.0, 50.0}) assertThat(reason(good().setWindowStartMs(w).build())).as("window %s", w).isNull();
        assertThat(reason(good().setWindowStartMs(50.5).build())).isEqualTo("window_start_ms 50.5 is after the deadline: over slo_ms 50.0");
        assertThat(reason(good().setWindowStartMs(-1.0).build())).isEqualTo("window_start_ms must be a number of milliseconds from 0 to slo_ms, got -1.0");
        assertThat(reason(good().setWindowStartMs(Double.NaN).build())).startsWith("window_start_ms must be");
        assertThat(reason(good().setWindowStartMs(Double.POSITIVE_INFINITY).build())).startsWith("window_start_ms must be");
        assertThat(reason(good().setWindowStartMs(10.0).setPipelineId("p").build())).startsWith("window_start_ms is not supported with pipeline_id");
    }

    @Test
    void windowStartIsSendTimePlusItsMilliseconds() {
        // 1_000_000 us + 20 ms = 1_020_000 us; none: NO_WINDOW.
        assertThat(RequestValidator.windowStartMicros(good().setWindowStartMs(20.0).build())).isEqualTo(1_020_000);
        assertThat(RequestValidator.windowStartMicros(good().build())).isEqualTo(Request.NO_WINDOW);
    }

    @Test
    void deadlineIsSendTimePlusSlo() {
        // 1_000_000 us + 50 ms = 1_050_000 us; 0.0004 ms rounds to 0 us
        assertThat(RequestValidator.deadlineMicros(good().build())).isEqualTo(1_050_000);
        assertThat(RequestValidator.deadlineMicros(good().setSloMs(2.5).build())).isEqualTo(1_002_500);
        assertThat(RequestValidator.deadlineMicros(good().setSloMs(0.0004).build())).isEqualTo(1_000_000);
    }

    @Test
    void idsAndNamesAreBoundedInBytesAndTheReasonNamesFieldAndLimit() {
        assertThat(reason(good().setRequestId("x".repeat(256)).setTenant("t".repeat(256)).build())).isNull();
        assertThat(reason(good().setRequestId("x".repeat(257)).build())).isEqualTo("request_id is 257 bytes, over the limit of 256 bytes");
        // 86 three-byte characters: 258 bytes, though only 86 chars
        assertThat(reason(good().setRequestId("\u20ac".repeat(86)).build())).isEqualTo("request_id is 258 bytes, over the limit of 256 bytes");
        assertThat(reason(good().setRequestId("x".repeat(600_000)).build())).isEqualTo("request_id is 600000 bytes, over the limit of 256 bytes");
        assertThat(reason(good().setTenant("t".repeat(300)).build())).isEqualTo("tenant is 300 bytes, over the limit of 256 bytes");
        assertThat(reason(good().setModel("m".repeat(600_000)).build())).isEqualTo("model is 600000 bytes, over the limit of 256 bytes");
        assertThat(reason(good().setPipelineId("p".repeat(257)).build())).isEqualTo("pipeline_id is 257 bytes, over the limit of 256 bytes");
        assertThat(reason(good().setStage(-1).build())).isEqualTo("stage must not be negative, got -1");

        RequestValidator wide = new RequestValidator(CATALOG, new AdmissionLimits(1024, 16, 3_600_000, 0));
        assertThat(wide.rejectionReason(good().setRequestId("x".repeat(1024)).build(), NOW)).isNull();
        assertThat(wide.rejectionReason(good().setTenant("t".repeat(17)).build(), NOW)).isEqualTo("tenant is 17 bytes, over the limit of 16 bytes");
    }

    @Test
    void sloIsBoundedByTheConfiguredMaximum() {
        assertThat(reason(good().setSloMs(3_600_000).build())).isNull();
        assertThat(reason(good().setSloMs(3_600_001).build())).isEqualTo("slo_ms 3600001.0 is over the limit of 3600000 ms");
        assertThat(reason(good().setSloMs(1e300).build())).isEqualTo("slo_ms 1.0E300 is over the limit of 3600000 ms");
        assertThat(reason(good().setSloMs(Double.NaN).build())).isEqualTo("slo_ms must be a positive number of milliseconds, got NaN");
        RequestValidator shortSlos = new RequestValidator(CATALOG, new AdmissionLimits(256, 256, 2.5, 0));
        assertThat(shortSlos.rejectionReason(good().setSloMs(3).build(), NOW)).isEqualTo("slo_ms 3.0 is over the limit of 2.5 ms");
    }

    @Test
    void sendTimeMayBeAheadOfTheClockByTheAllowedSkewOnly() {
        long hour = 3_600_000_000L;
        assertThat(reason(good().setSentAtMicros(NOW + hour).build())).isNull();
        assertThat(reason(good().setSentAtMicros(NOW + hour + 1).build()))
                .isEqualTo("sent_at_micros 3601000001 is 3600000001 us ahead of the job's clock, over the allowed clock skew of 3600000000 us");
        assertThat(reason(good().setSentAtMicros(Long.MAX_VALUE).build()))
                .isEqualTo("sent_at_micros 9223372036854775807 is 9223372036853775807 us ahead of the job's clock, over the allowed clock skew of 3600000000 us");
        // Long ago is not a skew: such a request is dropped for its passed deadline, not rejected.
        assertThat(validator.rejectionReason(good().build(), Long.MAX_VALUE)).isNull();
    }

    @Test
    void aDeadlineSaturatesInsteadOfOverflowing() {
        assertThat(RequestValidator.deadlineMicros(good().setSentAtMicros(Long.MAX_VALUE).build())).isEqualTo(Long.MAX_VALUE);
        assertThat(RequestValidator.deadlineMicros(good().setSloMs(1e300).build())).isEqualTo(Long.MAX_VALUE);
        assertThat(RequestValidator.deadlineMicros(good().setSentAtMicros(Long.MAX_VALUE).setSloMs(1e300).build())).isEqualTo(Long.MAX_VALUE);
        assertThat(RequestValidator.deadlineMicros(good().setSentAtMicros(Long.MIN_VALUE).setSloMs(-1e300).build())).isEqualTo(Long.MIN_VALUE);
        assertThat(RequestValidator.deadlineMicros(good().setSloMs(Double.NaN).build())).isEqualTo(1_000_000);
    }

    @Test
    void aLongShapeIsShownByItsFirstDimensions() {
        List<Long> shape = new java.util.ArrayList<>();
        for (long i = 1; i <= 100_000; i++) shape.add(i);
        assertThat(reason(good().setInput(tensor(DType.FLOAT32, shape, 24)).build()))
                .isEqualTo("input shape [1, 2, 3, 4, 5, 6, 7, 8, ... (100000 dimensions)] does not match model 'm', which takes FLOAT32[2, 3]");
    }

    @Test
    void limitsOutsideTheirRangeAreRefused() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new AdmissionLimits(0, 256, 1, 0)).hasMessage("the id limit must be 1 to 65536 bytes, got 0");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new AdmissionLimits(256, 256, Double.NaN, 0)).hasMessageStartingWith("the SLO limit must be more than 0");
    }
}
