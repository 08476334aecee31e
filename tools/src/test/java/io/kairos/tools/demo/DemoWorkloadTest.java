package io.kairos.tools.demo;

import io.kairos.core.metrics.ResultSummary;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.result.ResultStatus;
import io.kairos.sim.Simulation;
import io.kairos.workload.Workload;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The demo of a batching system shows batching: its default load, on its default devices and with
 * its default policy, run on the simulator (the job's own scheduler and policy, on a virtual
 * clock), forms batches of bert-tiny and still meets the SLOs.
 */
class DemoWorkloadTest {

    @Test
    void theDefaultLoadFormsBatchesAndMeetsItsSlos() {
        ResultSummary summary = new ResultSummary();
        Simulation.builder(ModelCatalog.builtIn())
                .devices(DemoCommand.DEFAULT_DEVICES)
                .policy(DemoCommand.DEFAULT_POLICY)
                .workload(Workload.parse(DemoCommand.SIMULATED_WORKLOAD))
                .duration(20_000_000).warmup(5_000_000)
                .seed(1).build()
                .run((request, status, end, batch) -> summary.add(request.model(), status, request.arrivalMicros(), end, batch));

        assertThat(summary.model("bert-tiny").meanBatchSize()).as("bert-tiny's mean batch").isGreaterThan(2.0);
        for (String model : summary.models()) {
            assertThat(summary.model(model).sloAttainment()).as("%s's SLO attainment", model).isGreaterThanOrEqualTo(0.99);
        }
    }

    @Test
    void theSummarySaysTheMeanBatchOfEveryModelThatRan() {
        ResultSummary summary = new ResultSummary();
        summary.add("mlp", ResultStatus.OK, 0, 1_000, 1);
        summary.add("bert-tiny", ResultStatus.OK, 0, 1_000, 4);
        summary.add("bert-tiny", ResultStatus.LATE, 0, 9_000, 2);
        summary.add("resnet50", ResultStatus.DROPPED, 0, 1_000, 0);

        assertThat(DemoCommand.meanBatches(summary)).isEqualTo("mean batch: bert-tiny 3.00, mlp 1.00");
    }
}
