package io.kairos.tools;

import io.kairos.schema.InferenceResult;
import io.kairos.schema.ResultStatus;
import io.kairos.schema.StageTimes;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ResultCsvTest {

    @Test
    void rowHasEveryColumnEmptyWhereAStageWasNotReachedAndQuotesTheReason() {
        InferenceResult dropped = InferenceResult.newBuilder().setRequestId("r-1").setTenant("acme").setModel("mlp")
                .setStatus(ResultStatus.DROPPED).setSloMs(10).setReason("deadline 10 ms, queue \"full\", shed")
                .setTimings(StageTimes.newBuilder().setSent(1_000).setDeadline(11_000).setIngested(1_200L).setEmitted(2_500).build())
                .build();

        String row = ResultCsv.row(dropped, 2_700);

        assertThat(row).isEqualTo("r-1,acme,mlp,DROPPED,10.0,0,,false,1000,11000,1200,,,,,2500,2700,1500,"
                + "\"deadline 10 ms, queue \"\"full\"\", shed\"");
        assertThat(ResultCsv.HEADER.split(",")).hasSize(19);
    }
}
