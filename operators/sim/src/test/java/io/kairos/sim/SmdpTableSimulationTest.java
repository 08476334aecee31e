package io.kairos.sim;

import io.kairos.core.plan.ServingPlan;
import io.kairos.core.result.ResultStatus;
import io.kairos.core.scheduling.BatchingTable;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.DecisionOutcome;
import io.kairos.schema.DecisionStatus;
import io.kairos.schema.SetBatchingTable;
import io.kairos.schema.SetPolicy;
import io.kairos.workload.Workload;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.kairos.sim.SimulationTest.CATALOG;
import static org.assertj.core.api.Assertions.assertThat;

/** A batching table delivered by timed decisions reaches the simulated group's smdp policy, as it does the job's. */
class SmdpTableSimulationTest {

    private static ControlDecision decision(long version, Object action) {
        return ControlDecision.newBuilder().setVersion(version).setIssuedAtMicros(0).setIssuedBy("solver").setAction(action).build();
    }

    @Test
    void afterTheDecisionsTheBatchesAreTheTables() {
        List<Integer> staticFour = new ArrayList<>();
        for (int a : BatchingTable.staticBatch(4, 16).actions()) staticFour.add(a);
        SetBatchingTable table = SetBatchingTable.newBuilder().setGroup(ServingPlan.DEFAULT_GROUP).setModel("R").setActions(staticFour)
                .setArrivalRatePerS(400).setLatencyWeight(1).setPowerWeight(0).build();
        SetPolicy smdp = SetPolicy.newBuilder().setGroup(ServingPlan.DEFAULT_GROUP).setPolicy("smdp").build();
        Simulation sim = Simulation.builder(CATALOG).plan(new ServingPlan(1, Long.MAX_VALUE, "kairos", PolicyParams.NONE, CATALOG))
                .decisions(List.of(new TimedDecision(100_000, decision(1, table)), new TimedDecision(100_000, decision(2, smdp))))
                .workload(Workload.parse("R:400:1000")).duration(1_000_000).seed(3).build();
        List<long[]> served = new ArrayList<>(); // arrival, batch size
        List<DecisionStatus> outcomes = new ArrayList<>();
        sim.run(new FateListener() {
            @Override
            public void onFate(io.kairos.core.request.Request r, ResultStatus status, long end, int batchSize) {
                assertThat(status).isEqualTo(ResultStatus.OK);
                served.add(new long[]{r.arrivalMicros(), batchSize});
            }

            @Override
            public void onDecision(TimedDecision d, DecisionOutcome outcome) {
                outcomes.add(outcome.getStatus());
            }
        });
        assertThat(outcomes).containsExactly(DecisionStatus.APPLIED, DecisionStatus.APPLIED);
        // Before: kairos serves at once, mostly alone (R takes 2.7 ms, one arrives every 2.5 ms on average).
        assertThat(served.stream().filter(s -> s[0] < 90_000).mapToLong(s -> s[1])).contains(1L);
        // After: only batches of 4 while the load goes on (what is left at the end waits for the guard).
        List<Long> after = served.stream().filter(s -> s[0] > 110_000 && s[0] < 900_000).map(s -> s[1]).toList();
        assertThat(after).hasSizeGreaterThan(250).containsOnly(4L);
    }
}
