package io.kairos.control.smdp;

import io.kairos.core.model.ModelCatalog;
import io.kairos.core.plan.ServingPlan;
import io.kairos.core.scheduling.BatchingTable;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.DecisionStatus;
import io.kairos.schema.SetBatchingTable;
import io.kairos.wire.plan.DecisionLedger;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** The planner behind {@code kairos plan smdp}: the solver's table for a catalog model, and a decision the job applies. */
class TablePlannerTest {
    private static final ModelCatalog CATALOG = ModelCatalog.builtIn();

    @Test
    void theDecisionCarriesTheSolversTableAndTheJobAppliesIt() {
        TablePlanner.Plan plan = new TablePlanner().plan("default", CATALOG.get("googlenet"), 2_000, 1, CostWeights.of(1, 1));
        assertThat(plan.accepted().accepted()).isTrue();
        SmdpSolution s = plan.solution();
        // The same model solved directly: 2 requests/ms, the catalog's padded sizes.
        assertThat(s.smdp().model().arrivalRate()).isEqualTo(2.0);
        SetBatchingTable d = plan.decision();
        assertThat(d.getActions()).hasSize(s.sMax() + 2);
        assertThat(new BatchingTable(d.getActions().stream().mapToInt(Integer::intValue).toArray())).isEqualTo(s.table());
        assertThat(d.getAverageCost()).isEqualTo(s.gain());
        assertThat(d.getArrivalRatePerS()).isEqualTo(2_000);
        assertThat(d.getPowerWeight()).isEqualTo(1);
        assertThat(plan.describe()).contains("model googlenet in serving group default: 2000 requests/s on 1 device(s)").contains("table: 0");

        DecisionLedger ledger = new DecisionLedger(new ServingPlan(1, Long.MAX_VALUE, "smdp", PolicyParams.NONE, CATALOG));
        ControlDecision decision = ControlDecision.newBuilder().setVersion(1).setIssuedAtMicros(1).setIssuedBy("plan").setAction(d).build();
        assertThat(ledger.decide(decision, 2).getStatus()).isEqualTo(DecisionStatus.APPLIED);
        assertThat(ledger.plan().tablesOf("default").get("googlenet")).isEqualTo(s.table());
    }

    @Test
    void devicesShareTheRate() {
        TablePlanner.Plan two = new TablePlanner().plan("g", CATALOG.get("googlenet"), 4_000, 2, CostWeights.of(1, 0));
        assertThat(two.solution().smdp().model().arrivalRate()).isCloseTo(2.0, within(1e-12));
        assertThat(two.decision().getArrivalRatePerS()).isEqualTo(4_000);
    }

    @Test
    void aRateAtCapacityOrAnUnknownEnergyIsRefusedWithTheReason() {
        // googlenet at 32: 0.3051 * 32 + 1.052 = 10.8 ms, about 2,959 requests/s.
        assertThatThrownBy(() -> new TablePlanner().plan("g", CATALOG.get("googlenet"), 3_000, 1, CostWeights.of(1, 1)))
                .hasMessageContaining("3000.00 requests/s on 1 device(s) is at or above the capacity of model 'googlenet'")
                .hasMessageContaining("rho 1.01");
        assertThatThrownBy(() -> new TablePlanner().plan("g", CATALOG.get("resnet50"), 100, 1, CostWeights.of(1, 1)))
                .hasMessage("model 'resnet50' has no energy profile (energy_mj) in the catalog: only a latency objective (w2 = 0) can be solved");
        assertThat(new TablePlanner().plan("g", CATALOG.get("resnet50"), 100, 1, CostWeights.of(1, 0)).accepted().accepted()).isTrue();
    }
}
