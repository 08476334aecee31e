package io.kairos.flink;

import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.time.ManualClock;
import io.kairos.schema.AssignGroup;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.DecisionOutcome;
import io.kairos.schema.DecisionStatus;
import io.kairos.schema.DevicePlacement;
import io.kairos.schema.SetPlacement;
import io.kairos.schema.SetPolicy;
import io.kairos.schema.internal.ControlRestore;
import io.kairos.wire.plan.DecisionKey;
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

    private final ManualClock clock = new ManualClock(1_000_000);

    private AcceptDecisions function() {
        return new AcceptDecisions(new ControlPlane(2, "clockwork", Map.of()), clock);
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

    private static List<ControlRestore> restores(OneInputStreamOperatorTestHarness<?, ?> h) {
        var side = h.getSideOutput(AcceptDecisions.RESTORES);
        return side == null ? List.of() : side.stream().map(StreamRecord::getValue).toList();
    }

    /** {@code d} as read from the control topic: with the record key it was written under. */
    private static ControlDecision keyed(ControlDecision d, String recordKey) {
        return ControlDecision.newBuilder(d).setKey(recordKey).build();
    }

    private static ControlDecision keyed(ControlDecision d) {
        return keyed(d, DecisionKey.of(d));
    }

    /**
     * Reads back what the function wrote to the control topic, as the job's source would (a
     * tombstone is skipped, a decision comes with its record key), until it writes nothing more;
     * returns how many records it read back.
     */
    private static int readBackRestores(OneInputStreamOperatorTestHarness<ControlDecision, ControlDecision> h) throws Exception {
        int read = 0;
        for (int round = 0; read < restores(h).size(); round++) {
            assertThat(round).as("restores written in answer to restores: a loop").isLessThan(10);
            for (ControlRestore r : restores(h).subList(read, restores(h).size())) {
                read++;
                if (r.getDecision() != null) h.processElement(keyed(r.getDecision(), r.getKey()), 0);
            }
        }
        return read;
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

    @Test
    void aRejectionRestoresTheKeysAppliedDecisionAndReadingItBackDoesNothing() throws Exception {
        AcceptDecisions f = function();
        var h = harness(f, null);
        ControlDecision good = keyed(policy("planner", 7, "g", "triton", Map.of("max_batch", "4")));
        h.processElement(good, 0);
        clock.set(2_000_000);
        h.processElement(keyed(policy("tuner", 1, "g", "triton", Map.of("max_batch", "abc"))), 0);

        assertThat(outcomes(h)).extracting(DecisionOutcome::getStatus, DecisionOutcome::getDecidedAtMicros)
                .containsExactly(tuple(DecisionStatus.APPLIED, 1_000_000L), tuple(DecisionStatus.REJECTED, 2_000_000L));
        // Under the same key, the applied decision as it was read: same writer, version and action.
        assertThat(restores(h)).extracting(ControlRestore::getKey, ControlRestore::getDecision).containsExactly(tuple("policy/g", good));

        assertThat(readBackRestores(h)).isEqualTo(1);
        assertThat(outcomes(h)).extracting(DecisionOutcome::getWriter, DecisionOutcome::getVersion, DecisionOutcome::getStatus)
                .last().isEqualTo(tuple("planner", 7L, DecisionStatus.DUPLICATE));
        assertThat(h.extractOutputValues()).containsExactly(good);
        assertThat(f.ledger().plan().policyOf("g").policy()).isEqualTo("triton");
    }

    @Test
    void aRejectedFirstDecisionOfAKeyLeavesATombstone() throws Exception {
        var h = harness(function(), null);
        h.processElement(keyed(place("planner", 1, "g", 5, "resnet50")), 0); // no device 5
        assertThat(outcomes(h)).extracting(DecisionOutcome::getStatus).containsExactly(DecisionStatus.REJECTED);
        assertThat(restores(h)).extracting(ControlRestore::getKey, ControlRestore::getDecision).containsExactly(tuple("placement/g", null));
        assertThat(readBackRestores(h)).isEqualTo(1); // a tombstone: nothing to read
        assertThat(outcomes(h)).hasSize(1);
    }

    @Test
    void aDecisionFiledUnderAnotherKeyRestoresThatKey() throws Exception {
        var h = harness(function(), null);
        ControlDecision resnet = keyed(assign("planner", 1, "resnet50", "g"));
        h.processElement(resnet, 0);
        h.processElement(keyed(assign("raw", 1, "mlp", "g"), "assign/resnet50"), 0);
        h.processElement(keyed(assign("raw", 2, "mlp", "g"), "assign/nothing-here"), 0);
        assertThat(outcomes(h)).extracting(DecisionOutcome::getStatus)
                .containsExactly(DecisionStatus.APPLIED, DecisionStatus.REJECTED, DecisionStatus.REJECTED);
        // Compaction goes by the record key: that is the key whose last record must be the job's.
        assertThat(restores(h)).extracting(ControlRestore::getKey, ControlRestore::getDecision)
                .containsExactly(tuple("assign/resnet50", resnet), tuple("assign/nothing-here", null));
        assertThat(readBackRestores(h)).isEqualTo(2);
    }

    @Test
    void anIdenticalDuplicateRestoresNothing() throws Exception {
        var h = harness(function(), null);
        ControlDecision good = keyed(assign("planner", 3, "resnet50", "g"));
        h.processElement(good, 0);
        h.processElement(keyed(assign("planner", 3, "resnet50", "g")), 0); // the same record, read twice
        assertThat(outcomes(h)).extracting(DecisionOutcome::getStatus).containsExactly(DecisionStatus.APPLIED, DecisionStatus.DUPLICATE);
        assertThat(restores(h)).isEmpty();
    }

    @Test
    void aDuplicateWithOtherContentRestoresTheAppliedDecision() throws Exception {
        AcceptDecisions f = function();
        var h = harness(f, null);
        ControlDecision good = keyed(assign("planner", 3, "resnet50", "g"));
        h.processElement(good, 0);
        h.processElement(keyed(assign("planner", 3, "resnet50", "default")), 0); // version 3 reused
        h.processElement(keyed(assign("planner", 2, "resnet50", "other")), 0);   // an older version, after
        assertThat(outcomes(h)).extracting(DecisionOutcome::getStatus)
                .containsExactly(DecisionStatus.APPLIED, DecisionStatus.DUPLICATE, DecisionStatus.DUPLICATE);
        assertThat(restores(h)).extracting(ControlRestore::getKey, ControlRestore::getDecision)
                .containsExactly(tuple("assign/resnet50", good), tuple("assign/resnet50", good));
        assertThat(readBackRestores(h)).isEqualTo(2);
        assertThat(restores(h)).hasSize(2);
        assertThat(f.ledger().plan().groupOf("resnet50")).isEqualTo("g");
    }

    @Test
    void aKeyChangedBeforeItsRestoreIsReadBackIsRestoredOnceMore() throws Exception {
        AcceptDecisions f = function();
        var h = harness(f, null);
        ControlDecision first = keyed(assign("planner", 1, "resnet50", "g"));
        ControlDecision second = keyed(assign("tuner", 1, "resnet50", "default"));
        h.processElement(first, 0);
        h.processElement(keyed(assign("tuner", 0, "resnet50", ""), "assign/resnet50"), 0); // no key: rejected
        // The tuner's decision was in the log before the restore the rejection caused.
        h.processElement(second, 0);
        assertThat(restores(h)).extracting(ControlRestore::getDecision).containsExactly(first);
        // Read back, the restore of the first decision is a duplicate that is no longer the key's
        // decision: the second is written back, and reading that back writes nothing.
        assertThat(readBackRestores(h)).isEqualTo(2);
        assertThat(restores(h)).extracting(ControlRestore::getDecision).containsExactly(first, second);
        assertThat(f.ledger().plan().groupOf("resnet50")).isEqualTo("default");
    }

    @Test
    void aRestoreWrittenTwiceAfterARestoreFromACheckpointIsHarmless() throws Exception {
        var before = harness(function(), null);
        ControlDecision good = keyed(policy("planner", 7, "g", "triton", Map.of()));
        ControlDecision bad = keyed(policy("tuner", 1, "g", "fastest", Map.of()));
        before.processElement(good, 0);
        OperatorSubtaskState snapshot = before.snapshot(1, 1);
        before.processElement(bad, 0);
        assertThat(restores(before)).extracting(ControlRestore::getDecision).containsExactly(good);
        // The job fails before its next checkpoint, with the restore written: the log now holds
        // good, bad, restore. Restored, it reads bad again (and writes the restore again), then
        // both restores.
        AcceptDecisions f = function();
        var after = harness(f, snapshot);
        after.processElement(bad, 0);
        after.processElement(keyed(good), 0);
        assertThat(restores(after)).extracting(ControlRestore::getDecision).containsExactly(good);
        assertThat(readBackRestores(after)).isEqualTo(1);
        assertThat(outcomes(after)).extracting(DecisionOutcome::getStatus)
                .containsExactly(DecisionStatus.REJECTED, DecisionStatus.DUPLICATE, DecisionStatus.DUPLICATE);
        assertThat(after.extractOutputValues()).isEmpty();
        assertThat(f.ledger().plan().policyOf("g").policy()).isEqualTo("triton");
    }
}
