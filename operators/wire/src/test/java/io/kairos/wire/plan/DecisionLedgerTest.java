package io.kairos.wire.plan;

import io.kairos.core.plan.ServingPlan;
import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.schema.AssignGroup;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.DecisionOutcome;
import io.kairos.schema.DecisionStatus;
import io.kairos.schema.DevicePlacement;
import io.kairos.schema.SetPlacement;
import io.kairos.schema.SetPolicy;
import io.kairos.schema.internal.WriterVersion;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;

class DecisionLedgerTest {

    private static ServingPlan emptyPlan() {
        return new ServingPlan(2, "clockwork", PolicyParams.of(Map.of("lookahead_ms", "5")));
    }

    private final DecisionLedger ledger = new DecisionLedger(emptyPlan());

    private static ControlDecision decision(String writer, long version, Object action) {
        return ControlDecision.newBuilder().setVersion(version).setIssuedAtMicros(100 + version).setIssuedBy(writer).setAction(action).build();
    }

    private static AssignGroup assign(String model, String group) {
        return AssignGroup.newBuilder().setModel(model).setGroup(group).build();
    }

    private static SetPolicy policy(String group, String model, String policy, Map<String, String> params) {
        return SetPolicy.newBuilder().setGroup(group).setModel(model).setPolicy(policy).setParams(params).build();
    }

    private static SetPlacement placement(String group, int device, String... models) {
        return SetPlacement.newBuilder().setGroup(group)
                .setDevices(List.of(DevicePlacement.newBuilder().setDevice(device).setModels(List.of(models)).build())).build();
    }

    private DecisionStatus decide(String writer, long version, Object action) {
        return ledger.decide(decision(writer, version, action), 7).getStatus();
    }

    @Test
    void keysNameTheActionsTypeAndTarget() {
        assertThat(DecisionKey.of(policy("g", null, "triton", Map.of()))).isEqualTo("policy/g");
        assertThat(DecisionKey.of(policy("g", "resnet50", "triton", Map.of()))).isEqualTo("policy/g/resnet50");
        assertThat(DecisionKey.of(placement("g", 0, "a"))).isEqualTo("placement/g");
        assertThat(DecisionKey.of(assign("resnet50", "g"))).isEqualTo("assign/resnet50");
        // A '/' in a name would let two targets share a key: policy/a/b is group a, model b.
        assertThatThrownBy(() -> DecisionKey.of(policy("a/b", null, "triton", Map.of()))).hasMessage("group name 'a/b' contains '/'");
        assertThatThrownBy(() -> DecisionKey.of(assign("", "g"))).hasMessage("the model name is empty");
        assertThatThrownBy(() -> DecisionKey.of(assign("m", "x/y"))).hasMessage("group name 'x/y' contains '/'");
        assertThatThrownBy(() -> DecisionKey.of("not an action")).hasMessageContaining("no known action");
    }

    @Test
    void versionsArePerWriterAndKeySoNoWriterShadowsAnother() {
        // The planner counts high, the tuner starts at 1: with one global counter the tuner's
        // decisions would all be dropped.
        assertThat(decide("planner", 500, assign("m", "g1"))).isEqualTo(DecisionStatus.APPLIED);
        assertThat(decide("tuner", 1, assign("m", "g2"))).isEqualTo(DecisionStatus.APPLIED);
        assertThat(ledger.plan().groupOf("m")).isEqualTo("g2");

        // The planner's replay, and an older planner version, change nothing: the tuner's stays.
        assertThat(decide("planner", 500, assign("m", "g1"))).isEqualTo(DecisionStatus.DUPLICATE);
        assertThat(decide("planner", 499, assign("m", "g3"))).isEqualTo(DecisionStatus.DUPLICATE);
        assertThat(ledger.plan().groupOf("m")).isEqualTo("g2");

        // Versions are per key too: the planner's version 1 for another model is new.
        assertThat(decide("planner", 1, assign("other", "g4"))).isEqualTo(DecisionStatus.APPLIED);
        // And the planner's next version for m wins over the tuner's.
        assertThat(decide("planner", 501, assign("m", "g5"))).isEqualTo(DecisionStatus.APPLIED);
        assertThat(ledger.plan().groupOf("m")).isEqualTo("g5");
        assertThat(ledger.plan().groupOf("other")).isEqualTo("g4");
    }

    @Test
    void outcomeSaysWhoWhatAndWhy() {
        DecisionOutcome applied = ledger.decide(decision("tuner", 3, assign("m", "g")), 1_000);
        assertThat(applied).isEqualTo(DecisionOutcome.newBuilder().setWriter("tuner").setVersion(3).setKey("assign/m")
                .setStatus(DecisionStatus.APPLIED).setReason(null).setIssuedAtMicros(103).setDecidedAtMicros(1_000).build());

        DecisionOutcome duplicate = ledger.decide(decision("tuner", 2, assign("m", "h")), 2_000);
        assertThat(duplicate.getStatus()).isEqualTo(DecisionStatus.DUPLICATE);
        assertThat(duplicate.getReason()).isEqualTo("writer 'tuner' already had version 3 decided for assign/m");
        assertThat(duplicate.getKey()).isEqualTo("assign/m");
        assertThat(duplicate.getDecidedAtMicros()).isEqualTo(2_000);
    }

    @Test
    void rejectedDecisionLeavesThePlanAndIsNotReportedTwice() {
        assertThat(decide("tuner", 1, policy("g", null, "triton", Map.of("max_batch", "8")))).isEqualTo(DecisionStatus.APPLIED);
        long before = ledger.plan().version();

        DecisionOutcome rejected = ledger.decide(decision("tuner", 2, policy("g", null, "fastest", Map.of())), 5);
        assertThat(rejected.getStatus()).isEqualTo(DecisionStatus.REJECTED);
        assertThat(rejected.getKey()).isEqualTo("policy/g");
        assertThat(rejected.getReason()).startsWith("unknown scheduling policy 'fastest'");
        assertThat(ledger.plan().policyOf("g").policy()).isEqualTo("triton");
        assertThat(ledger.plan().version()).isEqualTo(before);
        assertThat(ledger.current()).extracting(ControlDecision::getVersion).containsExactly(1L);

        // The same record read again (a replay) is a duplicate; the writer's next version is decided.
        assertThat(decide("tuner", 2, policy("g", null, "fastest", Map.of()))).isEqualTo(DecisionStatus.DUPLICATE);
        assertThat(decide("tuner", 3, policy("g", null, "flex", Map.of()))).isEqualTo(DecisionStatus.APPLIED);
        assertThat(ledger.plan().policyOf("g").policy()).isEqualTo("flex");
    }

    @Test
    void placementOnADeviceTheJobLacksIsRejectedWithTheReason() {
        DecisionOutcome o = ledger.decide(decision("planner", 1, placement("g", 2, "a")), 5);
        assertThat(o.getStatus()).isEqualTo(DecisionStatus.REJECTED);
        assertThat(o.getReason()).isEqualTo("device 2 does not exist: the job has devices 0..1");
        assertThat(ledger.plan().devicesOf("g")).hasSize(2);
    }

    @Test
    void decisionWrittenUnderAnotherKeyOrWithoutWriterIsRejected() {
        ControlDecision wrongKey = decision("planner", 1, assign("m", "g"));
        wrongKey.setKey("assign/n");
        DecisionOutcome o = ledger.decide(wrongKey, 5);
        assertThat(o.getStatus()).isEqualTo(DecisionStatus.REJECTED);
        assertThat(o.getKey()).isEqualTo("assign/n");
        assertThat(o.getReason()).isEqualTo("written under key 'assign/n', but the key of its action is 'assign/m'");
        assertThat(ledger.plan().groupOf("m")).isEqualTo("default");

        ControlDecision rightKey = decision("planner", 1, assign("m", "g"));
        rightKey.setKey("assign/m");
        assertThat(ledger.decide(rightKey, 6).getStatus()).as("the version was not used up by the misfiled one").isEqualTo(DecisionStatus.APPLIED);

        DecisionOutcome anonymous = ledger.decide(decision("", 1, assign("x", "g")), 7);
        assertThat(anonymous.getStatus()).isEqualTo(DecisionStatus.REJECTED);
        assertThat(anonymous.getReason()).contains("no writer");

        DecisionOutcome badName = ledger.decide(decision("planner", 9, policy("a/b", null, "flex", Map.of())), 8);
        assertThat(badName.getStatus()).isEqualTo(DecisionStatus.REJECTED);
        assertThat(badName.getKey()).isEmpty();
        assertThat(badName.getReason()).isEqualTo("group name 'a/b' contains '/'");
    }

    @Test
    void stateIsTheLatestDecisionPerKeyWhateverTheLogsLength() {
        for (int v = 1; v <= 100; v++) {
            decide("tuner", v, assign("m", "g" + v));
            decide("planner", v, policy("g", null, v % 2 == 0 ? "flex" : "triton", Map.of()));
        }
        assertThat(ledger.current()).extracting(DecisionKey::of, ControlDecision::getIssuedBy, ControlDecision::getVersion)
                .containsExactly(tuple("policy/g", "planner", 100L), tuple("assign/m", "tuner", 100L));
        assertThat(ledger.versions()).extracting(WriterVersion::getKey, WriterVersion::getWriter, WriterVersion::getVersion)
                .containsExactly(tuple("assign/m", "tuner", 100L), tuple("policy/g", "planner", 100L));
    }

    @Test
    void restoredLedgerHoldsTheSamePlanAndRemembersVersions() {
        decide("planner", 10, placement("vision", 1, "resnet50", "googlenet"));
        decide("planner", 11, assign("resnet50", "vision"));
        decide("tuner", 1, policy("vision", null, "triton", Map.of("max_batch", "8")));
        decide("tuner", 2, policy("vision", "resnet50", "triton", Map.of("max_batch", "2")));
        decide("tuner", 3, policy("vision", null, "triton", Map.of("max_queue_delay_ms", "3")));
        decide("planner", 12, assign("resnet50", "default"));
        decide("planner", 13, assign("resnet50", "vision"));

        List<String> problems = new ArrayList<>();
        DecisionLedger restored = DecisionLedger.restore(emptyPlan(), ledger.current(), ledger.versions(), problems::add);

        assertThat(problems).isEmpty();
        ServingPlan plan = restored.plan();
        assertThat(plan.groupOf("resnet50")).isEqualTo("vision");
        assertThat(plan.devicesOf("vision")).extracting(DeviceView::slot, DeviceView::models)
                .containsExactly(tuple(1, Set.of("resnet50", "googlenet")));
        // The group's latest policy, with the model's override that came between the two group decisions.
        assertThat(plan.policyOf("vision").policy()).isEqualTo("triton");
        assertThat(plan.policyOf("vision").params().get(null, "max_queue_delay_ms")).isEqualTo("3");
        assertThat(plan.policyOf("vision").params().get(null, "max_batch")).isNull();
        assertThat(plan.policyOf("vision").params().get("resnet50", "max_batch")).isEqualTo("2");
        assertThat(restored.current()).isEqualTo(ledger.current());
        // Four keys: seven decisions made them, four are kept.
        assertThat(restored.current()).hasSize(4);

        // Versions survive: a replay after the restore is still a duplicate.
        assertThat(restored.decide(decision("planner", 13, assign("resnet50", "default")), 1).getStatus()).isEqualTo(DecisionStatus.DUPLICATE);
        assertThat(restored.decide(decision("tuner", 2, assign("resnet50", "default")), 1).getStatus())
                .as("tuner's version 2 was for another key").isEqualTo(DecisionStatus.APPLIED);
    }

    @Test
    void aChangeOfPolicyDropsTheModelOverridesOfTheOldOneFromThePlanAndTheLedger() {
        decide("tuner", 1, policy("vision", null, "triton", Map.of("max_batch", "8")));
        decide("tuner", 2, policy("vision", "resnet50", "triton", Map.of("max_batch", "2")));
        decide("tuner", 3, policy("vision", null, "clockwork", Map.of("lookahead_ms", "3")));

        assertThat(ledger.plan().policyOf("vision").params().get("resnet50", "max_batch")).isNull();
        // The override was the old policy's: it is no longer part of the plan, so a restore must not replay it.
        assertThat(ledger.current()).extracting(DecisionKey::of).containsExactly("policy/vision");
        List<String> problems = new ArrayList<>();
        DecisionLedger restored = DecisionLedger.restore(emptyPlan(), ledger.current(), ledger.versions(), problems::add);
        assertThat(problems).isEmpty();
        assertThat(restored.plan().policyOf("vision")).isEqualTo(ledger.plan().policyOf("vision"));
    }

    @Test
    void rebuildLeavesOutWhatNoLongerAppliesAndSaysSo() {
        decide("planner", 1, placement("g", 1, "a"));
        decide("planner", 2, assign("a", "g"));
        List<String> problems = new ArrayList<>();
        ServingPlan oneDevice = new ServingPlan(1, "clockwork", PolicyParams.NONE);

        List<ControlDecision> applied = DecisionLedger.rebuild(oneDevice, ledger.current(), problems::add);

        assertThat(applied).extracting(DecisionKey::of).containsExactly("assign/a");
        assertThat(problems).containsExactly("decision planner/1 (placement/g) no longer applies: device 1 does not exist: the job has devices 0..0");
        assertThat(oneDevice.groupOf("a")).isEqualTo("g");
    }
}
