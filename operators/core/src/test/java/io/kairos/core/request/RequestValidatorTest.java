package io.kairos.core.request;

import io.kairos.core.model.ModelCatalog;
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
        assertThat(validator.rejectionReason(good().build())).isNull();
        // INT64 [4] = 32 bytes
        assertThat(validator.rejectionReason(good().setModel("ids").setInput(tensor(DType.INT64, List.of(4L), 32)).build())).isNull();
    }

    @Test
    void emptyOrBlankId() {
        assertThat(validator.rejectionReason(good().setRequestId("").build())).contains("request_id");
        assertThat(validator.rejectionReason(good().setRequestId("   ").build())).contains("request_id");
    }

    @Test
    void sloMustBePositiveAndFinite() {
        for (double slo : new double[] {0.0, -1.0, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY}) {
            assertThat(validator.rejectionReason(good().setSloMs(slo).build())).as("slo %s", slo).contains("slo_ms");
        }
        assertThat(validator.rejectionReason(good().setSloMs(0.001).build())).isNull();
    }

    @Test
    void sendTimeMustBePositive() {
        assertThat(validator.rejectionReason(good().setSentAtMicros(0).build())).contains("sent_at_micros");
    }

    @Test
    void unknownModelListsServedModels() {
        assertThat(validator.rejectionReason(good().setModel("gpt").build()))
                .contains("unknown model 'gpt'").contains("m").contains("ids");
    }

    @Test
    void dtypeMismatch() {
        assertThat(validator.rejectionReason(good().setInput(tensor(DType.INT32, List.of(2L, 3L), 24)).build()))
                .contains("dtype").contains("INT32").contains("FLOAT32").contains("'m'");
    }

    @Test
    void shapeMismatch() {
        assertThat(validator.rejectionReason(good().setInput(tensor(DType.FLOAT32, List.of(3L, 2L), 24)).build()))
                .contains("shape").contains("[3, 2]");
        assertThat(validator.rejectionReason(good().setInput(tensor(DType.FLOAT32, List.of(6L), 24)).build()))
                .contains("shape");
        assertThat(validator.rejectionReason(good().setInput(tensor(DType.FLOAT32, List.of(2L, 3L, 1L), 24)).build()))
                .contains("shape");
    }

    @Test
    void wrongByteCount() {
        assertThat(validator.rejectionReason(good().setInput(tensor(DType.FLOAT32, List.of(2L, 3L), 23)).build()))
                .contains("23 bytes").contains("24");
        assertThat(validator.rejectionReason(good().setInput(tensor(DType.FLOAT32, List.of(2L, 3L), 0)).build()))
                .contains("0 bytes");
    }

    @Test
    void deadlineIsSendTimePlusSlo() {
        // 1_000_000 us + 50 ms = 1_050_000 us; 0.0004 ms rounds to 0 us
        assertThat(RequestValidator.deadlineMicros(good().build())).isEqualTo(1_050_000);
        assertThat(RequestValidator.deadlineMicros(good().setSloMs(2.5).build())).isEqualTo(1_002_500);
        assertThat(RequestValidator.deadlineMicros(good().setSloMs(0.0004).build())).isEqualTo(1_000_000);
    }
}
