package io.kairos.control.herd;

import io.kairos.core.plan.ServingPlan;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.DevicePlacement;
import io.kairos.schema.SetPlacement;
import io.kairos.wire.plan.DecisionKey;
import io.kairos.wire.plan.DecisionLedger;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class HerdDecisionsTest {
    static final List<String> SERVED = List.of("m1", "m2", "m3", "big");

    static HerdPlan plan(List<List<Integer>> devices, List<List<String>> models, List<Integer> leftover) {
        List<HerdPlan.Group> groups = new java.util.ArrayList<>();
        for (int j = 0; j < devices.size(); j++) {
            List<HerdPlan.Share> shares = models.get(j).stream().map(m -> new HerdPlan.Share("s-" + m, m, 1, 1, 1, 1)).toList();
            groups.add(new HerdPlan.Group("herd-" + (j + 1), devices.get(j), models.get(j), shares));
        }
        return new HerdPlan(groups, "OPTIMAL", 1, 0, null, leftover);
    }

    static DecisionLedger ledger(List<Object> applied) {
        return ledger(applied, Long.MAX_VALUE);
    }

    static DecisionLedger ledger(List<Object> applied, long deviceMemoryBytes) {
        DecisionLedger ledger = new DecisionLedger(new ServingPlan(4, deviceMemoryBytes, "clockwork", PolicyParams.NONE, HerdSolverTest.CATALOG));
        long version = 1;
        for (Object action : applied) {
            ledger.decide(ControlDecision.newBuilder().setVersion(version++).setIssuedAtMicros(0).setIssuedBy("someone").setKey(DecisionKey.of(action))
                    .setAction(action).build(), 1);
        }
        return ledger;
    }

    static List<String> keys(List<Object> actions) {
        return actions.stream().map(DecisionKey::of).toList();
    }

    @Test
    void onTheDefaultPlanTheDefaultGroupGivesUpItsDevicesFirst() {
        // Default plan: group default holds devices 0-3 (every model). Plan: herd-1 on 0-2 {m1, m2}, herd-2 on 3 {m3}.
        List<Object> actions = HerdDecisions.actions(plan(List.of(List.of(0, 1, 2), List.of(3)), List.of(List.of("m1", "m2"), List.of("m3")), List.of()),
                ledger(List.of()), "kairos", SERVED);
        assertThat(keys(actions)).containsExactly("placement/default", "placement/herd-1", "policy/herd-1", "assign/m1", "assign/m2",
                "placement/herd-2", "policy/herd-2", "assign/m3");
        SetPlacement toDefault = (SetPlacement) actions.get(0);
        assertThat(toDefault.getDevices()).isEmpty();
    }

    @Test
    void aGroupOfAnEarlierPlanShrinksBeforeAnotherGrowsOntoItsDevices() {
        // Before: herd-1 on 0-1, herd-2 on 2-3. After: herd-1 on 0, herd-2 on 1-3. herd-1 keeps device 0
        // (shrink first), then herd-2 takes 1-3 with its models.
        SetPlacement h1 = HerdDecisions.placement("herd-1", new java.util.TreeSet<>(List.of(0, 1)), new java.util.TreeSet<>(List.of("m1")));
        SetPlacement h2 = HerdDecisions.placement("herd-2", new java.util.TreeSet<>(List.of(2, 3)), new java.util.TreeSet<>(List.of("m2")));
        SetPlacement none = SetPlacement.newBuilder().setGroup("default").setDevices(List.of()).build();
        List<Object> actions = HerdDecisions.actions(plan(List.of(List.of(0), List.of(1, 2, 3)), List.of(List.of("m1"), List.of("m2")), List.of()),
                ledger(List.of(none, h1, h2)), "kairos", SERVED);
        assertThat(keys(actions)).containsExactly("placement/herd-1", "placement/herd-1", "policy/herd-1", "assign/m1",
                "placement/herd-2", "policy/herd-2", "assign/m2");
        assertThat(((SetPlacement) actions.get(0)).getDevices()).extracting(DevicePlacement::getDevice).containsExactly(0);
        assertThat(((SetPlacement) actions.get(4)).getDevices()).extracting(DevicePlacement::getDevice).containsExactly(1, 2, 3);
    }

    @Test
    void aModelThatChangesGroupStaysOnItsOldGroupsDevicesUntilItIsRouted() {
        // Before: herd-1 on 0-1 serves m1 and m2, herd-2 on 2-3 serves m3. After: herd-1 {m1} on 0-1,
        // herd-2 {m2, m3} on 2-3. No group shrinks. herd-1 keeps m2 beside m1 (16 GiB of 8 GiB
        // models, unbounded devices) until assign/m2 has routed m2 to herd-2; then it lets m2 go.
        SetPlacement none = SetPlacement.newBuilder().setGroup("default").setDevices(List.of()).build();
        SetPlacement h1 = HerdDecisions.placement("herd-1", new java.util.TreeSet<>(List.of(0, 1)), new java.util.TreeSet<>(List.of("m1", "m2")));
        SetPlacement h2 = HerdDecisions.placement("herd-2", new java.util.TreeSet<>(List.of(2, 3)), new java.util.TreeSet<>(List.of("m3")));
        List<Object> before = List.of(none, h1, h2, assign("m1", "herd-1"), assign("m2", "herd-1"), assign("m3", "herd-2"));
        HerdPlan after = plan(List.of(List.of(0, 1), List.of(2, 3)), List.of(List.of("m1"), List.of("m2", "m3")), List.of());
        List<Object> actions = HerdDecisions.actions(after, ledger(before), "kairos", SERVED);
        assertThat(keys(actions)).containsExactly("placement/herd-1", "policy/herd-1", "assign/m1",
                "placement/herd-2", "policy/herd-2", "assign/m2", "assign/m3", "placement/herd-1");
        assertThat(((SetPlacement) actions.get(0)).getDevices()).allSatisfy(d -> assertThat(d.getModels()).containsExactly("m1", "m2"));
        assertThat(((SetPlacement) actions.get(7)).getDevices()).allSatisfy(d -> assertThat(d.getModels()).containsExactly("m1"));

        // On 12 GiB devices m1 and m2 do not fit together: herd-1 lets m2 go at once (its queued
        // requests move when assign/m2 comes), and nothing follows the assignments.
        List<Object> tight = HerdDecisions.actions(after, ledger(before, 12L << 30), "kairos", SERVED);
        assertThat(keys(tight)).containsExactly("placement/herd-1", "policy/herd-1", "assign/m1",
                "placement/herd-2", "policy/herd-2", "assign/m2", "assign/m3");
        assertThat(((SetPlacement) tight.get(0)).getDevices()).allSatisfy(d -> assertThat(d.getModels()).containsExactly("m1"));
    }

    static io.kairos.schema.AssignGroup assign(String model, String group) {
        return io.kairos.schema.AssignGroup.newBuilder().setModel(model).setGroup(group).build();
    }

    @Test
    void aDeviceOfAGroupHerdDoesNotManageIsNotTaken() {
        SetPlacement pipeline = HerdDecisions.placement("chain-first", new java.util.TreeSet<>(List.of(3)), new java.util.TreeSet<>(List.of("big")));
        assertThatThrownBy(() -> HerdDecisions.actions(plan(List.of(List.of(0, 1, 2, 3)), List.of(List.of("m1")), List.of()),
                ledger(List.of(pipeline)), "kairos", SERVED))
                .hasMessage("device 3 is held by serving group 'chain-first' (placement/chain-first), which Herd does not manage; the plan would put it "
                        + "in 'herd-1' too, and a device serves one group: free it first, or plan on fewer devices");
    }
}
