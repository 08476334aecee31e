package io.kairos.wire.plan;

import io.kairos.core.plan.ServingPlan;
import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.schema.AssignGroup;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.DevicePlacement;
import io.kairos.schema.SetPlacement;
import io.kairos.schema.SetPolicy;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;

class DecisionsTest {

    private final ServingPlan plan = new ServingPlan(2, "clockwork", PolicyParams.of(Map.of("lookahead_ms", "5")));

    private static ControlDecision decision(long version, Object action) {
        return ControlDecision.newBuilder().setVersion(version).setIssuedAtMicros(1).setIssuedBy("test").setAction(action).build();
    }

    private static SetPolicy setPolicy(String group, String model, String policy, Map<String, String> params) {
        return SetPolicy.newBuilder().setGroup(group).setModel(model).setPolicy(policy).setParams(params).build();
    }

    private static SetPlacement placement(String group, int device, String... models) {
        return SetPlacement.newBuilder().setGroup(group)
                .setDevices(List.of(DevicePlacement.newBuilder().setDevice(device).setModels(List.of(models)).build()))
                .build();
    }

    private static AssignGroup assign(String model, String group) {
        return AssignGroup.newBuilder().setModel(model).setGroup(group).build();
    }

    @Test
    void defaultPlanHasOneGroupWithEveryDeviceHoldingEveryModel() {
        assertThat(plan.version()).isZero();
        assertThat(plan.groupOf("anything")).isEqualTo(ServingPlan.DEFAULT_GROUP);
        assertThat(plan.devicesOf("default")).extracting(DeviceView::slot, DeviceView::models)
                .containsExactly(tuple(0, null), tuple(1, null));
        assertThat(plan.policyOf("default").policy()).isEqualTo("clockwork");
        assertThat(plan.policyOf("default").params().get(null, "lookahead_ms")).isEqualTo("5");
    }

    @Test
    void everyChangeMovesThePlansVersionOn() {
        assertThat(Decisions.apply(plan, decision(3, assign("m", "g1")))).isTrue();
        assertThat(plan.version()).isEqualTo(1);
        // Decisions apply whatever their version: telling replays apart is the ledger's job.
        assertThat(Decisions.apply(plan, decision(3, assign("m", "g2")))).isTrue();
        assertThat(plan.groupOf("m")).isEqualTo("g2");
        assertThat(plan.version()).isEqualTo(2);
    }

    @Test
    void setPolicyForTheGroupReplacesPolicyAndGroupParams() {
        Decisions.apply(plan, decision(1, setPolicy("g", null, "triton", Map.of("max_batch", "8"))));
        ServingPlan.GroupPolicy p = plan.policyOf("g");
        assertThat(p.policy()).isEqualTo("triton");
        assertThat(p.params().get(null, "max_batch")).isEqualTo("8");
        assertThat(p.params().get(null, "lookahead_ms")).as("group params are replaced, not merged").isNull();
        // Other groups keep the default.
        assertThat(plan.policyOf("other").policy()).isEqualTo("clockwork");
    }

    @Test
    void setPolicyForAModelOverridesParamsOnlyAndKeepsTheGroupsPolicy() {
        Decisions.apply(plan, decision(1, setPolicy("g", null, "triton", Map.of("max_batch", "8", "max_queue_delay_ms", "2"))));
        Decisions.apply(plan, decision(2, setPolicy("g", "resnet50", "clockwork", Map.of("max_batch", "2"))));
        ServingPlan.GroupPolicy p = plan.policyOf("g");
        assertThat(p.policy()).isEqualTo("triton");
        assertThat(p.params().get("resnet50", "max_batch")).isEqualTo("2");
        assertThat(p.params().get("mlp", "max_batch")).isEqualTo("8");
        assertThat(p.params().get("resnet50", "max_queue_delay_ms")).isEqualTo("2"); // falls back to the group

        // A later group-level change of the same policy keeps the model override.
        Decisions.apply(plan, decision(3, setPolicy("g", null, "triton", Map.of("max_batch", "16"))));
        p = plan.policyOf("g");
        assertThat(p.params().get("resnet50", "max_batch")).isEqualTo("2");
        assertThat(p.params().get("mlp", "max_batch")).isEqualTo("16");

        // A change of policy drops it: the override was the old policy's parameter.
        Decisions.apply(plan, decision(4, setPolicy("g", null, "clockwork", Map.of("lookahead_ms", "2"))));
        p = plan.policyOf("g");
        assertThat(p.policy()).isEqualTo("clockwork");
        assertThat(p.params().get("resnet50", "max_batch")).isNull();
        assertThat(p.params().perModel()).isEmpty();
    }

    @Test
    void unknownPolicyThrowsAndLeavesThePlanUnchanged() {
        assertThatThrownBy(() -> Decisions.apply(plan, decision(1, setPolicy("g", null, "fastest", Map.of()))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fastest").hasMessageContaining("clockwork").hasMessageContaining("triton");
        assertThat(plan.policyOf("g").policy()).isEqualTo("clockwork");
        assertThat(plan.version()).isZero();
    }

    @Test
    void setPlacementReplacesTheGroupsDevices() {
        SetPlacement two = SetPlacement.newBuilder().setGroup("g").setDevices(List.of(
                DevicePlacement.newBuilder().setDevice(1).setModels(List.of("a", "b")).build(),
                DevicePlacement.newBuilder().setDevice(0).setModels(List.of("a")).build())).build();
        assertThat(Decisions.apply(plan, decision(1, two))).isTrue();
        // In slot order, whatever the decision's order: ties between idle devices must not depend on it.
        assertThat(plan.devicesOf("g")).extracting(DeviceView::slot, DeviceView::models)
                .containsExactly(tuple(0, Set.of("a")), tuple(1, Set.of("a", "b")));

        Decisions.apply(plan, decision(2, placement("g", 0, "c")));
        assertThat(plan.devicesOf("g")).extracting(DeviceView::slot, DeviceView::models).containsExactly(tuple(0, Set.of("c")));
        // Other groups keep every device.
        assertThat(plan.devicesOf("default")).hasSize(2);
    }

    @Test
    void placementOnAMissingDeviceThrowsAndLeavesThePlacement() {
        Decisions.apply(plan, decision(1, placement("g", 1, "a")));
        assertThatThrownBy(() -> Decisions.apply(plan, decision(2, placement("g", 2, "a"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("device 2");
        assertThatThrownBy(() -> Decisions.apply(plan, decision(3, placement("g", -1, "a"))))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(plan.devicesOf("g")).extracting(DeviceView::slot, DeviceView::models).containsExactly(tuple(1, Set.of("a")));
        assertThat(plan.version()).isEqualTo(1);
    }

    @Test
    void assignGroupRoutesAModel() {
        assertThat(plan.groupOf("resnet50")).isEqualTo("default");
        Decisions.apply(plan, decision(1, assign("resnet50", "vision")));
        assertThat(plan.groupOf("resnet50")).isEqualTo("vision");
        assertThat(plan.groupOf("mlp")).isEqualTo("default");
    }
}
