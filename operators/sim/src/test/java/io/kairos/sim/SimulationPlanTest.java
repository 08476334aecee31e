package io.kairos.sim;

import io.kairos.core.plan.ServingPlan;
import io.kairos.core.result.ResultStatus;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.schema.AssignGroup;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.SetPolicy;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.kairos.sim.SimulationTest.CATALOG;
import static io.kairos.sim.SimulationTest.Fate;
import static io.kairos.sim.SimulationTest.at;
import static io.kairos.sim.SimulationTest.fates;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The simulator runs a whole plan, several groups each on its own devices, and replays timed control decisions. */
class SimulationPlanTest {

    private static ControlDecision decision(long version, Object action) {
        return ControlDecision.newBuilder().setVersion(version).setIssuedAtMicros(0).setIssuedBy("planner").setAction(action).build();
    }

    private static SetPolicy setPolicy(String group, String policy, Map<String, String> params) {
        return SetPolicy.newBuilder().setGroup(group).setModel(null).setPolicy(policy).setParams(params).build();
    }

    private static AssignGroup assign(String model, String group) {
        return AssignGroup.newBuilder().setModel(model).setGroup(group).build();
    }

    /** Group "vision" holds R on device 0, group "default" holds B on device 1; both FIFO. */
    private static ServingPlan twoGroups() {
        ServingPlan plan = new ServingPlan(2, "fifo", PolicyParams.NONE);
        plan.place("vision", Map.of(0, Set.of("R")));
        plan.assign("R", "vision");
        plan.place(ServingPlan.DEFAULT_GROUP, Map.of(1, Set.of("B")));
        return plan;
    }

    @Test
    void eachGroupsRequestsRunOnlyOnItsOwnDevices() {
        // R (2.7 ms) at 0 and 0 goes to vision: device 0 runs r0 0-2700, then r1 2700-5400, although
        // device 1 is idle from 2000: it is the other group's. B (1 ms) at 0 and 500 goes to default:
        // device 1 runs b2 0-1000 and b3 1000-2000, never waiting for R.
        Simulation sim = Simulation.builder(CATALOG).plan(twoGroups())
                .load(ArrivalSource.replay(List.of(at(0, "R", 50), at(0, "R", 50), at(0, "B", 50), at(500, "B", 50))))
                .duration(10_000).build();
        assertThat(fates(sim)).containsExactly(
                new Fate("2", ResultStatus.OK, 1000, 1),
                new Fate("3", ResultStatus.OK, 2000, 1),
                new Fate("0", ResultStatus.OK, 2700, 1),
                new Fate("1", ResultStatus.OK, 5400, 1));
        SimulationReport r = sim.run();
        assertThat(r.devices()).isEqualTo(2);
        assertThat(r.policy()).isEqualTo("fifo");
        assertThat(r.busyMicros()).isEqualTo(5400 + 2000);
    }

    @Test
    void aModelThatNoDeviceOfItsGroupHoldsIsDropped() {
        // B routed to vision, whose only device holds R: dropped at once, as in the job.
        ServingPlan plan = twoGroups();
        plan.assign("B", "vision");
        Simulation sim = Simulation.builder(CATALOG).plan(plan)
                .load(ArrivalSource.replay(List.of(at(0, "B", 50)))).duration(10_000).build();
        assertThat(fates(sim)).containsExactly(new Fate("0", ResultStatus.DROPPED, 0, 0));
    }

    @Test
    void decisionsMoveAModelToAnotherGroupAndChangeAPolicyMidRun() {
        // Groups a (device 0: R) and b (device 1: R and B), FIFO; R goes to a, B to b.
        ServingPlan plan = new ServingPlan(2, "fifo", PolicyParams.NONE);
        plan.place("a", Map.of(0, Set.of("R")));
        plan.place("b", Map.of(1, Set.of("R", "B")));
        plan.assign("R", "a");
        plan.assign("B", "b");
        List<TimedDecision> decisions = List.of(
                new TimedDecision(10_000, decision(1, assign("R", "b"))),
                new TimedDecision(15_000, decision(2, setPolicy("b", "triton", Map.of("max_batch", "abc")))),
                new TimedDecision(20_000, decision(3, setPolicy("b", "static", Map.of("batch", "2")))));
        // r0 at 0: group a, device 0, 0-2700.
        // 10 ms: R moves to b (decisions come before the arrivals of their instant): r1 at 10 ms runs
        //   on device 1, 10000-12700; b2 (B at 11 ms) waits for it there: 12700-13700. Had r1 stayed
        //   in a, b2 would have run 11000-12000.
        // 15 ms: triton with max_batch=abc is refused; b stays FIFO: b3 at 16 ms runs 16000-17000.
        // 20 ms: b becomes static, batches of 2: r4 at 20 ms waits for r5 at 21 ms; both run
        //   21000-24500 (3.5 ms at batch 2).
        Simulation sim = Simulation.builder(CATALOG).plan(plan).decisions(decisions)
                .load(ArrivalSource.replay(List.of(at(0, "R", 10), at(10_000, "R", 10), at(11_000, "B", 10),
                        at(16_000, "B", 10), at(20_000, "R", 10), at(21_000, "R", 10))))
                .duration(30_000).build();
        List<String> told = new ArrayList<>();
        List<Fate> fates = new ArrayList<>();
        sim.run(new FateListener() {
            @Override
            public void onFate(io.kairos.core.request.Request r, ResultStatus status, long end, int batch) {
                fates.add(new Fate(r.id(), status, end, batch));
            }

            @Override
            public void onDecision(TimedDecision d, io.kairos.schema.DecisionOutcome outcome) {
                told.add(d.atMicros() + " " + outcome.getStatus() + (outcome.getReason() == null ? "" : " " + outcome.getReason()));
            }
        });
        assertThat(fates).containsExactly(
                new Fate("0", ResultStatus.OK, 2_700, 1),
                new Fate("1", ResultStatus.OK, 12_700, 1),
                new Fate("2", ResultStatus.OK, 13_700, 1),
                new Fate("3", ResultStatus.OK, 17_000, 1),
                new Fate("4", ResultStatus.OK, 24_500, 2),
                new Fate("5", ResultStatus.OK, 24_500, 2));
        assertThat(told).containsExactly(
                "10000 APPLIED",
                "15000 REJECTED serving group 'b': triton parameter 'max_batch' must be a whole number, at least 1, got 'abc'",
                "20000 APPLIED");
        // The simulation's own plan is untouched by a run: a second run gives the same.
        assertThat(fates(sim)).isEqualTo(fates);
    }

    @Test
    void aDeviceInTwoGroupsIsRefused() {
        // Both groups without a placement would share every device.
        ServingPlan plan = new ServingPlan(1, "fifo", PolicyParams.NONE);
        plan.assign("B", "other");
        Simulation sim = Simulation.builder(CATALOG).plan(plan)
                .load(ArrivalSource.replay(List.of(at(0, "R", 50), at(0, "B", 50)))).duration(10_000).build();
        assertThatThrownBy(sim::run).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("device 0 is in serving groups 'default' and 'other'");
    }

    @Test
    void aPlanExcludesDevicesAndPolicy() {
        assertThatThrownBy(() -> Simulation.builder(CATALOG).plan(twoGroups()).devices(2)
                .load(ArrivalSource.replay(List.of())).duration(1_000).build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("not both");
    }

    @Test
    void aBadPolicyParameterFailsWhenTheSimulationIsDescribed() {
        assertThatThrownBy(() -> Simulation.builder(CATALOG).policy("clockwork", Map.of("lookahead_ms", "abc")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("clockwork parameter 'lookahead_ms' must be a number of milliseconds, at least 0, got 'abc'");
    }
}
