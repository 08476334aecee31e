package io.kairos.wire.metrics;

import io.kairos.core.metrics.ResultSummary;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.StageTimes;
import org.junit.jupiter.api.Test;

import static io.kairos.core.result.ResultStatus.OK;
import static org.assertj.core.api.Assertions.assertThat;

/** A result read from the wire counts as its fields say. */
class ResultRecordsTest {
    private static final long T0 = 10_000_000;

    @Test
    void readsInferenceResults() {
        ResultSummary s = new ResultSummary();
        ResultRecords.addTo(s, InferenceResult.newBuilder().setRequestId("r1").setTenant("t").setModel("mlp").setStatus(io.kairos.schema.ResultStatus.OK).setBatchSize(4)
                .setTimings(StageTimes.newBuilder().setSent(T0).setDeadline(T0 + 5000).setEmitted(T0 + 1234).build()).build());

        assertThat(s.model("mlp").count(OK)).isEqualTo(1);
        assertThat(s.model("mlp").p50Micros()).isEqualTo(1234);
        assertThat(s.model("mlp").meanBatchSize()).isEqualTo(4.0);
    }
}
