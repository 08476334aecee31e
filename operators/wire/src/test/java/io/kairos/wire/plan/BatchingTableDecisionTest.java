package io.kairos.wire.plan;

import io.kairos.core.model.LatencyEstimator;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.plan.ServingGroups;
import io.kairos.core.plan.ServingPlan;
import io.kairos.core.scheduling.BatchingTable;
import io.kairos.core.scheduling.GroupScheduler;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.core.scheduling.policy.SmdpPolicy;
import io.kairos.schema.AssignGroup;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.DecisionOutcome;
import io.kairos.schema.DecisionStatus;
import io.kairos.schema.SetBatchingTable;
import io.kairos.schema.SetPolicy;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** A batching table as a control decision: its key, every check with the reason its producer reads, and its way to the group's policy. */
class BatchingTableDecisionTest {
    private static final ModelCatalog CATALOG = ModelCatalog.builtIn(); // googlenet: batches up to 32; resnet50: up to 16

    private final ServingPlan plan = new ServingPlan(2, Long.MAX_VALUE, "kairos", PolicyParams.NONE, CATALOG);
    private final DecisionLedger ledger = new DecisionLedger(plan);
    private long version;

    private static SetBatchingTable table(String group, String model, Integer... actions) {
        return SetBatchingTable.newBuilder().setGroup(group).setModel(model).setActions(Arrays.asList(actions))
                .setArrivalRatePerS(1000).setLatencyWeight(1).setPowerWeight(1).setAverageCost(12.5).build();
    }

    private DecisionOutcome decide(Object action) {
        ControlDecision d = ControlDecision.newBuilder().setVersion(++version).setIssuedAtMicros(1).setIssuedBy("solver").setAction(action).build();
        return ledger.decide(d, 2);
    }

    private static List<Integer> staticTable(int b, int sMax) {
        List<Integer> a = new ArrayList<>();
        for (int x : BatchingTable.staticBatch(b, sMax).actions()) a.add(x);
        return a;
    }

    @Test
    void theKeyNamesGroupAndModel() {
        assertThat(DecisionKey.of(table("g", "googlenet", 0, 1, 1))).isEqualTo("batching/g/googlenet");
    }

    @Test
    void anAppliedTableIsTheGroupsAndReachesItsSmdpPolicy() {
        DecisionOutcome o = decide(table("default", "googlenet", 0, 0, 2, 2));
        assertThat(o.getStatus()).isEqualTo(DecisionStatus.APPLIED);
        assertThat(o.getKey()).isEqualTo("batching/default/googlenet");
        BatchingTable expected = new BatchingTable(new int[]{0, 0, 2, 2});
        assertThat(plan.tablesOf("default")).containsExactly(Map.entry("googlenet", expected));

        // The group runs kairos: the table waits in the plan; set smdp and the group's policy holds it.
        ServingGroups groups = new ServingGroups(CATALOG, false, LatencyEstimator.Settings.DEFAULT);
        GroupScheduler g = groups.scheduler("default", plan).scheduler();
        assertThat(g.policy().name()).isEqualTo("kairos");
        assertThat(decide(SetPolicy.newBuilder().setGroup("default").setPolicy("smdp").build()).getStatus()).isEqualTo(DecisionStatus.APPLIED);
        groups.update(plan);
        assertThat(((SmdpPolicy) g.policy()).table("googlenet")).isEqualTo(expected);
        // A new table replaces it in the running group.
        decide(table("default", "googlenet", 0, 1, 1));
        groups.update(plan);
        assertThat(((SmdpPolicy) g.policy()).table("googlenet")).isEqualTo(new BatchingTable(new int[]{0, 1, 1}));
    }

    @Test
    void aRestoredLedgerHoldsTheTableAfterTheRoutingItIsCheckedAgainst() {
        decide(AssignGroup.newBuilder().setModel("googlenet").setGroup("vision").build());
        decide(table("vision", "googlenet", 0, 0, 2, 2));
        List<String> problems = new ArrayList<>();
        DecisionLedger restored = DecisionLedger.restore(new ServingPlan(2, Long.MAX_VALUE, "kairos", PolicyParams.NONE, CATALOG),
                ledger.current(), ledger.versions(), problems::add);
        assertThat(problems).isEmpty();
        assertThat(restored.plan().tablesOf("vision")).containsKey("googlenet");
    }

    @Test
    void eachBadTableIsRejectedWithItsReasonAndThePlanUnchanged() {
        String where = "batching table of model 'googlenet' in serving group 'default': ";
        assertRejected(table("default", "nosuch", 0, 1, 1),
                "batching table of model 'nosuch' in serving group 'default': the job serves no model 'nosuch'; it serves " + CATALOG.names());
        assertRejected(table("vision", "googlenet", 0, 1, 1),
                "batching table of model 'googlenet' in serving group 'vision': the model's requests go to serving group 'default' (assign it there first)");
        assertRejected(table("default", "googlenet", 0),
                where + "actions needs an entry for every state 0..s_max and one for the overflow state, got 1");
        assertRejected(table("default", "googlenet", 0, 2, 2), where + "state 1: batch of 2 with 1 requests in the system");
        assertRejected(table("default", "googlenet", 0, -1, 1), where + "state 1: batch of -1 with 1 requests in the system");
        assertRejected(table("default", "googlenet", 1, 1, 1), where + "state 0: batch of 1 with 0 requests in the system");
        List<Integer> tooBig = staticTable(33, 40);
        assertRejected(SetBatchingTable.newBuilder(table("default", "googlenet")).setActions(tooBig).build(),
                where + "state 33: batch of 33, above the model's largest batch size 32");
        assertRejected(SetBatchingTable.newBuilder(table("default", "googlenet", 0, 1, 1)).setArrivalRatePerS(0).build(),
                where + "arrival_rate_per_s must be a positive number, got 0.0");
        assertRejected(SetBatchingTable.newBuilder(table("default", "googlenet", 0, 1, 1)).setPowerWeight(-1).build(),
                where + "the weights must be non-negative numbers, got latency_weight 1.0 and power_weight -1.0");
        assertRejected(SetBatchingTable.newBuilder(table("default", "googlenet", 0, 1, 1)).setLatencyWeight(Double.NaN).build(),
                where + "the weights must be non-negative numbers, got latency_weight NaN and power_weight 1.0");
        assertRejected(table("", "googlenet", 0, 1, 1), "the group name is empty");
        assertRejected(table("default", "a/b", 0, 1, 1), "model name 'a/b' contains '/'");
    }

    private void assertRejected(SetBatchingTable action, String reason) {
        long before = plan.version();
        Map<String, BatchingTable> tables = plan.tablesOf(action.getGroup().isEmpty() ? "x" : action.getGroup());
        DecisionOutcome o = decide(action);
        assertThat(o.getStatus()).isEqualTo(DecisionStatus.REJECTED);
        assertThat(o.getReason()).isEqualTo(reason);
        assertThat(plan.version()).isEqualTo(before);
        assertThat(plan.tablesOf(action.getGroup().isEmpty() ? "x" : action.getGroup())).isEqualTo(tables);
    }
}
