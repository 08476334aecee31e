package io.kairos.wire.plan;

import io.kairos.core.plan.ServingPlan;
import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.SetPolicy;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A policy decision is typed and validated when it is applied: a bad one leaves the plan exactly as it was. */
class ServingPlanPolicyTest {

    private ServingPlan plan;

    @BeforeEach
    void plan() {
        plan = new ServingPlan(2, "clockwork", PolicyParams.of(Map.of("lookahead_ms", "5")));
        plan.assign("resnet50", "vision");
        plan.place("vision", Map.of(0, Set.of("resnet50")));
        plan.setPolicy("vision", null, "triton", Map.of("max_batch", "8"));
        plan.setPolicy("vision", "resnet50", "triton", Map.of("max_queue_delay_ms", "2"));
    }

    /** Everything a decision could change, to compare before and after. */
    private record Snapshot(long version, ServingPlan.GroupPolicy vision, ServingPlan.GroupPolicy other,
                            List<Integer> visionDevices, List<Set<String>> visionModels, String groupOfResnet) {}

    private Snapshot snapshot() {
        List<DeviceView> devices = plan.devicesOf("vision");
        return new Snapshot(plan.version(), plan.policyOf("vision"), plan.policyOf("other"),
                devices.stream().map(DeviceView::slot).toList(), devices.stream().map(DeviceView::models).toList(), plan.groupOf("resnet50"));
    }

    private static ControlDecision decision(long version, String group, String model, String policy, Map<String, String> params) {
        return ControlDecision.newBuilder().setVersion(version).setIssuedAtMicros(1).setIssuedBy("test")
                .setAction(SetPolicy.newBuilder().setGroup(group).setModel(model).setPolicy(policy).setParams(params).build()).build();
    }

    @Test
    void aBadGroupValueIsRejectedAndThePlanIsUnchanged() {
        Snapshot before = snapshot();
        assertThatThrownBy(() -> plan.setPolicy("vision", null, "clockwork", Map.of("lookahead_ms", "abc")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("serving group 'vision': clockwork parameter 'lookahead_ms' must be a number of milliseconds, at least 0, got 'abc'");
        assertThat(snapshot()).isEqualTo(before);
    }

    @Test
    void aBadModelValueIsRejectedAndThePlanIsUnchanged() {
        Snapshot before = snapshot();
        assertThatThrownBy(() -> plan.setPolicy("vision", "resnet50", "triton", Map.of("max_batch", "-5")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("serving group 'vision', model 'resnet50': triton parameter 'max_batch' must be a whole number, at least 1, got '-5'");
        assertThat(snapshot()).isEqualTo(before);
        assertThat(plan.policyOf("vision").params().get("resnet50", "max_queue_delay_ms")).isEqualTo("2");
    }

    @Test
    void anUnknownKeyIsRejectedAndThePlanIsUnchanged() {
        Snapshot before = snapshot();
        assertThatThrownBy(() -> plan.setPolicy("other", null, "flex", Map.of("lamda", "2")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("serving group 'other': flex has no parameter 'lamda' (set to '2'); it knows lambda, max_pending, placement, shed, shed_early, target_ongoing, window_hold, window_margin_ms");
        assertThat(snapshot()).isEqualTo(before);
    }

    /** A placement is a policy parameter: a decision selects it per model, and a bad one is rejected with the reason. */
    @Test
    void aPlacementDecisionPerModelIsAppliedAndABadOneRejected() {
        Decisions.apply(plan, decision(8, "vision", "resnet50", "triton", Map.of("placement", "colocation-queuing")));
        assertThat(plan.policyOf("vision").params().get("resnet50", "placement")).isEqualTo("colocation-queuing");
        Snapshot before = snapshot();
        assertThatThrownBy(() -> Decisions.apply(plan, decision(9, "vision", "resnet50", "triton", Map.of("placement", "nearest"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("serving group 'vision', model 'resnet50': triton parameter 'placement' must be one of default, colocation, colocation-queuing, registry, auto, got 'nearest'");
        assertThat(snapshot()).isEqualTo(before);
    }

    @Test
    void aBadDecisionThroughDecisionsLeavesThePlanAsItWas() {
        Snapshot before = snapshot();
        assertThatThrownBy(() -> Decisions.apply(plan, decision(7, "vision", null, "triton", Map.of("max_batch", "abc"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("serving group 'vision'").hasMessageContaining("max_batch").hasMessageContaining("'abc'");
        Snapshot after = snapshot();
        assertThat(after).isEqualTo(before);
        // A good one then applies.
        assertThat(Decisions.apply(plan, decision(8, "vision", null, "triton", Map.of("max_batch", "4")))).isTrue();
        assertThat(plan.policyOf("vision").params().get("mlp", "max_batch")).isEqualTo("4");
        assertThat(plan.version()).isEqualTo(before.version() + 1);
    }

    @Test
    void aBadDefaultIsRefusedWhenThePlanIsMade() {
        assertThatThrownBy(() -> new ServingPlan(1, "triton", PolicyParams.of(Map.of("max_batch", "abc"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("triton parameter 'max_batch' must be a whole number, at least 1, got 'abc'");
    }

    @Test
    void aCopyChangesApart() {
        ServingPlan copy = plan.copy();
        copy.assign("resnet50", "default");
        copy.setPolicy("vision", null, "fifo", Map.of());
        assertThat(plan.groupOf("resnet50")).isEqualTo("vision");
        assertThat(plan.policyOf("vision").policy()).isEqualTo("triton");
        assertThat(copy.policyOf("vision").policy()).isEqualTo("fifo");
        assertThat(copy.devicesOf("vision")).extracting(DeviceView::slot).containsExactly(0);
    }
}
