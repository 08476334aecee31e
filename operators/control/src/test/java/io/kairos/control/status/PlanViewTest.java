package io.kairos.control.status;

import io.kairos.core.plan.ServingPlan;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.schema.DecisionStatus;
import io.kairos.schema.SetBatchingTable;
import io.kairos.wire.plan.DecisionLedger;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static io.kairos.control.status.Records.assign;
import static io.kairos.control.status.Records.decision;
import static io.kairos.control.status.Records.placement;
import static io.kairos.control.status.Records.policy;
import static org.assertj.core.api.Assertions.assertThat;

class PlanViewTest {
    private final DecisionLedger ledger = new DecisionLedger(new ServingPlan(2, "clockwork", PolicyParams.of(Map.of("lookahead_ms", "5"))));

    private void decide(String writer, long version, Object action, DecisionStatus expected) {
        assertThat(ledger.decide(decision(writer, version, action), 1).getStatus()).isEqualTo(expected);
    }

    @Test
    void theDefaultPlanIsOneGroupWithEveryDeviceServingEveryModel() {
        PlanView view = PlanView.of(ledger);

        assertThat(view.groups()).containsExactly(new PlanView.Group("default", "clockwork", Map.of("lookahead_ms", "5"), Map.of(),
                List.of(new PlanView.Device(0, true, List.of()), new PlanView.Device(1, true, List.of())), Map.of()));
        assertThat(view.routing()).isEmpty();
        assertThat(view.version()).isZero();
        assertThat(view.lines()).containsExactly(
                "group default: policy clockwork {lookahead_ms=5}",
                "  device 0: every model",
                "  device 1: every model",
                "routing: every other model -> default");
    }

    @Test
    void devicesOfKnownTypesAreShownWithTheirType() {
        ServingPlan typed = new ServingPlan(io.kairos.core.device.DeviceSlots.of(List.of("cpu", "gpu-t4")), Long.MAX_VALUE, "fifo", PolicyParams.NONE, null);
        PlanView view = PlanView.of(new DecisionLedger(typed));
        assertThat(view.groups().get(0).devices()).containsExactly(new PlanView.Device(0, true, List.of(), "cpu"), new PlanView.Device(1, true, List.of(), "gpu-t4"));
        assertThat(view.lines()).contains("  device 0 (cpu): every model", "  device 1 (gpu-t4): every model");
        assertThat(StatusPage.html(new ServingStatus(new ServingStatus.Topics("c", "o", "r", "t"), typed, 0, 10, 5).snapshot(0)))
                .contains("<td class=\"n\">1 (gpu-t4)</td>");
    }

    /**
     * A stage shrunk from devices 0 and 1 to device 0, with the default group placed on none: device
     * 1 holds nothing and is shown released, in the text and on the page.
     */
    @Test
    void aDeviceThatHoldsNothingIsShownReleased() {
        decide("planner", 1, placement("default"), DecisionStatus.APPLIED);
        decide("planner", 2, placement("p-a", 0, List.of("mlp"), 1, List.of("mlp")), DecisionStatus.APPLIED);
        assertThat(PlanView.of(ledger).released()).isEmpty();
        decide("tuner", 1, placement("p-a", 0, List.of("mlp")), DecisionStatus.APPLIED);

        PlanView view = PlanView.of(ledger);
        assertThat(view.released()).containsExactly(new PlanView.Device(1, false, List.of()));
        assertThat(view.lines()).contains("released (holding nothing, no cost): device 1");
        assertThat(StatusPage.releasedLine(view)).isEqualTo("Released devices (holding nothing, no cost): 1.");
    }

    @Test
    void showsWhatTheAppliedDecisionsMadeAndNothingOfARejectedOne() {
        decide("planner", 1, policy("default", null, "triton", Map.of("max_queue_delay_ms", "2", "max_batch", "8")), DecisionStatus.APPLIED);
        decide("planner", 2, policy("default", "resnet50", "triton", Map.of("max_batch", "2")), DecisionStatus.APPLIED);
        decide("planner", 3, placement("vision", 1, List.of("resnet50", "googlenet")), DecisionStatus.APPLIED);
        decide("planner", 4, assign("resnet50", "vision"), DecisionStatus.APPLIED);
        decide("user", 1, placement("vision", 7, List.of("mlp")), DecisionStatus.REJECTED);
        decide("user", 2, assign("mlp", "batch"), DecisionStatus.APPLIED);

        PlanView view = PlanView.of(ledger);

        assertThat(view.groups()).extracting(PlanView.Group::name).containsExactly("batch", "default", "vision");
        PlanView.Group vision = view.groups().get(2);
        assertThat(vision.devices()).containsExactly(new PlanView.Device(1, false, List.of("googlenet", "resnet50")));
        assertThat(vision.policy()).isEqualTo("clockwork");
        assertThat(view.groups().get(1).modelParams()).isEqualTo(Map.of("resnet50", Map.of("max_batch", "2")));
        assertThat(view.routing()).containsExactly(Map.entry("mlp", "batch"), Map.entry("resnet50", "vision"));
        assertThat(view.version()).isEqualTo(5);
        assertThat(view.lines()).containsExactly(
                "group batch: policy clockwork {lookahead_ms=5}",
                "  device 0: every model",
                "  device 1: every model",
                "group default: policy triton {max_batch=8, max_queue_delay_ms=2}, resnet50 {max_batch=2}",
                "  device 0: every model",
                "  device 1: every model",
                "group vision: policy clockwork {lookahead_ms=5}",
                "  device 1: googlenet, resnet50",
                "routing: mlp -> batch; resnet50 -> vision; every other model -> default");
    }

    @Test
    void aChangeOfPolicyDropsTheModelsOverridesFromTheView() {
        decide("planner", 1, policy("default", null, "triton", Map.of("max_batch", "8")), DecisionStatus.APPLIED);
        decide("planner", 2, policy("default", "resnet50", "triton", Map.of("max_batch", "2")), DecisionStatus.APPLIED);
        assertThat(PlanView.of(ledger).groups().get(0).modelParams()).containsOnlyKeys("resnet50");

        decide("planner", 3, policy("default", null, "edf", Map.of()), DecisionStatus.APPLIED);

        PlanView.Group group = PlanView.of(ledger).groups().get(0);
        assertThat(group.policy()).isEqualTo("edf");
        assertThat(group.params()).isEmpty();
        assertThat(group.modelParams()).isEmpty();
    }

    @Test
    void aBatchingTableShowsUnderItsGroupWithWhatItWasSolvedFor() {
        // Static 2 over s_max 3: wait with 0 or 1 queued, serve 2 from 2 on.
        SetBatchingTable table = SetBatchingTable.newBuilder().setGroup("default").setModel("resnet50").setActions(List.of(0, 0, 2, 2, 2))
                .setArrivalRatePerS(250).setLatencyWeight(1).setPowerWeight(0.5).setAverageCost(3.25).build();
        decide("solver", 1, table, DecisionStatus.APPLIED);
        PlanView view = PlanView.of(ledger);
        assertThat(view.groups().get(0).tables()).containsOnlyKeys("resnet50");
        assertThat(view.lines()).contains("  batching table of resnet50: 0-1:wait 2-3:2 S_o:2 (solved for 250 requests/s, w1 1, w2 0.5, average cost 3.25)");
        assertThat(ActionText.of(table)).isEqualTo("batching table for resnet50 in group default: 5 states, solved for 250 requests/s, w1 1, w2 0.5");
    }

    @Test
    void aNetworkShowsUnderItsGroupByNameDigestAndSizeNeverItsBytes() throws Exception {
        byte[] bytes;
        try (var in = io.kairos.core.scheduling.learned.NetworkAgent.class.getClassLoader()
                .getResourceAsStream(io.kairos.core.scheduling.learned.NetworkAgent.COMMITTED)) {
            bytes = in.readAllBytes();
        }
        io.kairos.schema.SetPolicyNetwork network = io.kairos.schema.SetPolicyNetwork.newBuilder().setGroup("vision").setNetworkName("thesis.krln")
                .setNetwork(java.nio.ByteBuffer.wrap(bytes)).build();
        decide("trainer", 1, network, DecisionStatus.APPLIED);
        PlanView view = PlanView.of(ledger);
        String digest = new io.kairos.core.scheduling.PublishedNetwork("thesis.krln", bytes).digest();
        assertThat(view.groups()).extracting(PlanView.Group::name).containsExactly("default", "vision");
        assertThat(view.groups().get(1).network()).isEqualTo("thesis.krln (sha256 " + digest + ", " + bytes.length + " bytes)");
        assertThat(view.lines()).contains("  rl network: thesis.krln (sha256 " + digest + ", " + bytes.length + " bytes)");
        assertThat(ActionText.of(network)).isEqualTo("rl network thesis.krln (" + bytes.length + " bytes) for group vision");
    }

    @Test
    void actionsReadAsWhatTheyAsk() {
        assertThat(ActionText.of(policy("default", null, "triton", Map.of("max_batch", "8", "max_queue_delay_ms", "2"))))
                .isEqualTo("policy triton {max_batch=8, max_queue_delay_ms=2} for group default");
        assertThat(ActionText.of(policy("default", "resnet50", "triton", Map.of("max_batch", "2"))))
                .isEqualTo("parameters {max_batch=2} for resnet50 in group default (policy triton)");
        assertThat(ActionText.of(placement("vision", 0, List.of("resnet50", "googlenet"), 1, List.of("mlp"))))
                .isEqualTo("place group vision: device 0 = googlenet, resnet50; device 1 = mlp");
        assertThat(ActionText.of(assign("mlp", "vision"))).isEqualTo("route mlp to group vision");
    }

    @Test
    void showsThePipelinesWithTheirStagesAndEdges() {
        io.kairos.core.pipeline.PipelineSpec cascade = io.kairos.core.pipeline.PipelineSpec.parse("""
                {"pipeline": "cascade", "slo_p99_ms": 80.5,
                 "stages": [{"name": "fast", "model": "m1"}, {"name": "slow", "model": "m2", "budget_ms": 40}, {"name": "tag", "model": "m3"}],
                 "edges": [{"from": "fast", "to": "slow", "probability": 0.3, "when": {"output_max_below": 0.8}},
                           {"from": "fast", "to": "tag", "probability": 0.25, "when": {"output_argmax_in": [7, 2]}}]}""", "c");
        decide("user", 1, io.kairos.wire.plan.PipelineActions.action(cascade), DecisionStatus.APPLIED);

        PlanView view = PlanView.of(ledger);

        assertThat(view.pipelines()).containsExactly(new PlanView.Pipeline("cascade", 80.5, "fast",
                List.of("fast (m1)", "slow (m2, budget 40 ms)", "tag (m3)"),
                List.of("fast -> slow (p 0.3, when the output's max is below 0.8)", "fast -> tag (p 0.25, when the output's argmax is in [2, 7])")));
        assertThat(view.lines()).endsWith("pipeline cascade: SLO p99 80.5 ms; stages fast (m1), slow (m2, budget 40 ms), tag (m3); edges "
                + "fast -> slow (p 0.3, when the output's max is below 0.8), fast -> tag (p 0.25, when the output's argmax is in [2, 7])");
    }
}
