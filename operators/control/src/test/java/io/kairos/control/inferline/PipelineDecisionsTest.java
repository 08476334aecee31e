package io.kairos.control.inferline;

import io.kairos.core.device.DeviceSlots;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.pipeline.PipelineSpec;
import io.kairos.core.plan.ServingPlan;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.schema.AssignGroup;
import io.kairos.schema.DevicePlacement;
import io.kairos.schema.SetPipeline;
import io.kairos.schema.SetPlacement;
import io.kairos.schema.SetPolicy;
import io.kairos.sim.pipeline.PipelineConfig;
import io.kairos.sim.pipeline.StageConfig;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;

/**
 * Which slots a planned pipeline's stages take in a running job, worked by hand: devices
 * {@code cpu:2,gpu:3} (slots 0 and 1 cpu, 2 to 4 gpu); pipeline {@code p}, stage {@code s1}
 * (model a) on two gpu replicas, then {@code s2} (model b) on one cpu replica; model c runs on cpu
 * only and stays with the default group.
 */
class PipelineDecisionsTest {
    private static final ModelCatalog CATALOG = ModelCatalog.parse("""
            {"hardware": [{"name": "cpu", "price_per_hour": 1}, {"name": "gpu", "price_per_hour": 3}],
             "models": [
              {"name": "a", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 9, "2": 12}},
               "hardware_profiles": {"gpu": {"latency_ms": {"table": {"1": 4, "2": 5}}}}},
              {"name": "b", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 2, "2": 3}},
               "hardware_profiles": {"gpu": {"latency_ms": {"table": {"1": 1, "2": 2}}}}},
              {"name": "c", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 2, "2": 3}}}
            ]}""", "decisions-test");
    private static final DeviceSlots SLOTS = DeviceSlots.parse("cpu:2,gpu:3", CATALOG);
    private static final PipelineSpec P = PipelineSpec.parse("""
            {"pipeline": "p", "slo_p99_ms": 50, "stages": [{"name": "s1", "model": "a"}, {"name": "s2", "model": "b"}],
             "edges": [{"from": "s1", "to": "s2", "probability": 1}]}""", "p");
    private static final PipelineConfig CONFIG = PipelineConfig.of(P, CATALOG,
            Map.of("s1", new StageConfig("gpu", 2, 2), "s2", new StageConfig("cpu", 1, 1)));

    private static ServingPlan fresh() {
        return new ServingPlan(SLOTS, Long.MAX_VALUE, "clockwork", PolicyParams.NONE, CATALOG);
    }

    private static List<List<Integer>> slots(ServingPlan current) {
        return PipelineDecisions.devices(P, CONFIG, SLOTS, current).stream().map(PipelineDecisions.StageDevices::slots).toList();
    }

    @Test
    void inAJobThatPlacedNothingTheDefaultGroupGivesUpTheSlotsTheStagesTake() {
        // s1 takes the first two gpu slots, 2 and 3; s2 the first cpu slot, 0. The default group
        // (unplaced: every slot, every model) keeps 1 and 4, with the models still routed to it
        // that run there: c on cpu slot 1; on gpu slot 4 none (a and b go to the stages, c has no gpu profile).
        assertThat(slots(fresh())).containsExactly(List.of(2, 3), List.of(0));
        List<Object> actions = PipelineDecisions.actions(P, CONFIG, SLOTS, 50_000, fresh());
        SetPlacement shrunk = (SetPlacement) actions.get(0);
        assertThat(shrunk.getGroup()).isEqualTo(ServingPlan.DEFAULT_GROUP);
        assertThat(shrunk.getDevices()).extracting(DevicePlacement::getDevice, DevicePlacement::getModels)
                .containsExactly(tuple(1, List.of("c")), tuple(4, List.of()));
        assertThat(actions.subList(1, actions.size())).extracting(a -> a.getClass().getSimpleName())
                .containsExactly("SetPlacement", "SetPolicy", "AssignGroup", "SetPlacement", "SetPolicy", "AssignGroup", "SetPipeline");
        assertThat(((SetPlacement) actions.get(1)).getDevices()).extracting(DevicePlacement::getDevice).containsExactly(2, 3);
        assertThat(((AssignGroup) actions.get(3)).getGroup()).isEqualTo("p-s1");
        assertThat(((SetPolicy) actions.get(5)).getGroup()).isEqualTo("p-s2");
        assertThat(((SetPipeline) actions.get(7)).getSloP99Ms()).isEqualTo(50.0);
    }

    @Test
    void slotsAnotherGroupHoldsAreSkippedAndTooFewFreeOnesAreRefusedNamingTheGroup() {
        ServingPlan one = fresh();
        one.place("other", Map.of(2, Set.of("b")));
        assertThat(slots(one)).as("gpu slot 2 is other's: s1 takes 3 and 4").containsExactly(List.of(3, 4), List.of(0));

        ServingPlan two = fresh();
        two.place("other", Map.of(2, Set.of("b"), 3, Set.of("b")));
        assertThatThrownBy(() -> slots(two)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the job has 3 device(s) of type gpu (--devices " + SLOTS + "), of which 2 held by serving group(s) [other]; the plan needs 2");
    }

    @Test
    void thePipelinesOwnGroupsAndThePlacedDefaultGroupGiveTheirSlotsUp() {
        // An earlier plan of p put s1 on 3 and 4 and shrank the default group to 0, 1 and 2.
        ServingPlan earlier = fresh();
        earlier.place("p-s1", Map.of(3, Set.of("a"), 4, Set.of("a")));
        earlier.place(ServingPlan.DEFAULT_GROUP, Map.of(0, Set.of("b", "c"), 1, Set.of("c"), 2, Set.of("b")));
        assertThat(slots(earlier)).containsExactly(List.of(2, 3), List.of(0));
        // The default group keeps slot 1 with what it held; it loses 0 and 2, and b, which goes to s2.
        SetPlacement shrunk = (SetPlacement) PipelineDecisions.actions(P, CONFIG, SLOTS, 50_000, earlier).get(0);
        assertThat(shrunk.getDevices()).extracting(DevicePlacement::getDevice, DevicePlacement::getModels).containsExactly(tuple(1, List.of("c")));
    }

    @Test
    void withoutTheJobsPlanTheStagesShareTheirSlotsWithTheDefaultGroup() {
        assertThat(PipelineDecisions.devices(P, CONFIG, SLOTS).stream().map(PipelineDecisions.StageDevices::slots).toList())
                .containsExactly(List.of(2, 3), List.of(0));
        assertThat(PipelineDecisions.actions(P, CONFIG, SLOTS, 50_000).get(0)).isInstanceOf(SetPlacement.class)
                .extracting(a -> ((SetPlacement) a).getGroup()).isEqualTo("p-s1");
    }
}
