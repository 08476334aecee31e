package io.kairos.flink;

import io.kairos.core.scheduling.DeviceView;
import io.kairos.schema.AssignGroup;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.DecisionOutcome;
import io.kairos.schema.DecisionStatus;
import io.kairos.schema.DevicePlacement;
import io.kairos.schema.SetPlacement;
import io.kairos.schema.SetPolicy;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.operators.ProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

class AcceptDecisionsHarnessTest {
    private final List<OneInputStreamOperatorTestHarness<ControlDecision, ControlDecision>> opened = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (var h : opened) h.close();
    }

    private static AcceptDecisions function() {
        return new AcceptDecisions(new ControlPlane(2, "clockwork", Map.of()));
    }

    private OneInputStreamOperatorTestHarness<ControlDecision, ControlDecision> harness(AcceptDecisions f, OperatorSubtaskState restore) throws Exception {
        var h = new OneInputStreamOperatorTestHarness<>(new ProcessOperator<>(f));
        opened.add(h);
        if (restore != null) h.initializeState(restore);
        h.open();
        return h;
    }

    private static ControlDecision decision(String writer, long version, Object action) {
        return ControlDecision.newBuilder().setVersion(version).setIssuedAtMicros(1).setIssuedBy(writer).setAction(action).build();
    }

    private static ControlDecision policy(String writer, long version, String group, String policy, Map<String, String> params) {
        return decision(writer, version, SetPolicy.newBuilder().setGroup(group).setPolicy(policy).setParams(params).build());
    }

    private static ControlDecision assign(String writer, long version, String model, String group) {
        return decision(writer, version, AssignGroup.newBuilder().setModel(model).setGroup(group).build());
    }

    private static ControlDecision place(String writer, long version, String group, int device, String... models) {
        return decision(writer, version, SetPlacement.newBuilder().setGroup(group)
                .setDevices(List.of(DevicePlacement.newBuilder().setDevice(device).setModels(List.of(models)).build())).build());
    }

    private static List<DecisionOutcome> outcomes(OneInputStreamOperatorTestHarness<?, ?> h) {
        var side = h.getSideOutput(AcceptDecisions.OUTCOMES);
        return side == null ? List.of() : side.stream().map(StreamRecord::getValue).toList();
    }

    @Test
    void onlyAppliedDecisionsGoOnAndEveryOneHasAnOutcome() throws Exception {
        AcceptDecisions f = function();
        var h = harness(f, null);
        h.processElement(policy("planner", 7, "g", "triton", Map.of()), 0);
        h.processElement(policy("tuner", 1, "g", "fastest", Map.of()), 0);   // no such policy
        h.processElement(place("planner", 8, "g", 5, "resnet50"), 0);         // no device 5
        h.processElement(policy("planner", 7, "g", "flex", Map.of()), 0);     // the planner's version 7 again
        h.processElement(assign("tuner", 2, "resnet50", "g"), 0);

        assertThat(h.extractOutputValues()).extracting(ControlDecision::getIssuedBy, ControlDecision::getVersion)
                .containsExactly(tuple("planner", 7L), tuple("tuner", 2L));
        assertThat(outcomes(h)).extracting(DecisionOutcome::getWriter, DecisionOutcome::getVersion, DecisionOutcome::getKey, DecisionOutcome::getStatus)
                .containsExactly(
                        tuple("planner", 7L, "policy/g", DecisionStatus.APPLIED),
                        tuple("tuner", 1L, "policy/g", DecisionStatus.REJECTED),
                        tuple("planner", 8L, "placement/g", DecisionStatus.REJECTED),
                        tuple("planner", 7L, "policy/g", DecisionStatus.DUPLICATE),
                        tuple("tuner", 2L, "assign/resnet50", DecisionStatus.APPLIED));
        assertThat(outcomes(h).get(1).getReason()).startsWith("unknown scheduling policy 'fastest'");
        assertThat(outcomes(h).get(2).getReason()).isEqualTo("device 5 does not exist: the job has devices 0..1");
        assertThat(f.ledger().plan().policyOf("g").policy()).isEqualTo("triton");
        assertThat(f.ledger().plan().devicesOf("g")).hasSize(2);
    }

    @Test
    void planAndVersionsSurviveARestoreFromACheckpoint() throws Exception {
        var before = harness(function(), null);
        before.processElement(place("planner", 100, "vision", 1, "resnet50"), 0);
        before.processElement(assign("planner", 101, "resnet50", "vision"), 0);
        before.processElement(policy("tuner", 1, "vision", "triton", Map.of("max_batch", "4")), 0);
        before.processElement(policy("tuner", 2, "vision", "flex", Map.of()), 0);
        OperatorSubtaskState snapshot = before.snapshot(1, 1);

        AcceptDecisions f = function();
        var after = harness(f, snapshot);
        assertThat(f.ledger().current()).hasSize(3); // four decisions, three keys
        assertThat(f.ledger().plan().groupOf("resnet50")).isEqualTo("vision");
        assertThat(f.ledger().plan().devicesOf("vision")).extracting(DeviceView::slot, DeviceView::models).containsExactly(tuple(1, Set.of("resnet50")));
        assertThat(f.ledger().plan().policyOf("vision").policy()).isEqualTo("flex");

        // A decision the source reads again after the restore is a duplicate; new ones apply.
        after.processElement(policy("tuner", 2, "vision", "flex", Map.of()), 0);
        after.processElement(assign("planner", 102, "resnet50", "default"), 0);
        assertThat(outcomes(after)).extracting(DecisionOutcome::getStatus).containsExactly(DecisionStatus.DUPLICATE, DecisionStatus.APPLIED);
        assertThat(after.extractOutputValues()).extracting(ControlDecision::getVersion).containsExactly(102L);
    }
}
