package io.kairos.wire.plan;

import io.kairos.core.device.DeviceSlots;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.plan.ServingGroups;
import io.kairos.core.plan.ServingPlan;
import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.DecisionStatus;
import io.kairos.schema.DevicePlacement;
import io.kairos.schema.SetPlacement;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;

/** A plan on device slots of hardware types: a model goes only where it has a profile. */
class HardwareTypePlacementTest {
    static final ModelCatalog CATALOG = ModelCatalog.parse("""
            {"hardware": [{"name": "cpu", "price_per_hour": 0.1}, {"name": "gpu-t4", "price_per_hour": 0.53}],
             "models": [
              {"name": "R", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 10}},
               "hardware_profiles": {"gpu-t4": {"latency_ms": {"table": {"1": 2}}}}},
              {"name": "C", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 4}}}
            ]}""", "typed-plan-test");

    private final ServingPlan plan = new ServingPlan(DeviceSlots.parse("cpu:2,gpu-t4:1", CATALOG), Long.MAX_VALUE, "fifo", PolicyParams.NONE, CATALOG);

    private static ControlDecision placement(String group, int device, String... models) {
        return ControlDecision.newBuilder().setVersion(1).setIssuedAtMicros(1).setIssuedBy("planner").setAction(SetPlacement.newBuilder().setGroup(group)
                .setDevices(List.of(DevicePlacement.newBuilder().setDevice(device).setModels(List.of(models)).build())).build()).build();
    }

    @Test
    void thePlanKnowsEachDevicesTypeAndItsViewsCarryIt() {
        assertThat(plan.deviceCount()).isEqualTo(3);
        assertThat(plan.hardwareTypeOf(2)).isEqualTo("gpu-t4");
        assertThat(plan.deviceSlots()).hasToString("cpu:2,gpu-t4:1");
        assertThat(plan.devicesOf("default")).extracting(DeviceView::slot, DeviceView::hardwareType)
                .containsExactly(tuple(0, "cpu"), tuple(1, "cpu"), tuple(2, "gpu-t4"));
        assertThat(plan.copy().hardwareTypeOf(2)).isEqualTo("gpu-t4");
        // A count of devices means the catalog's first type; without a catalog the type is not known.
        assertThat(new ServingPlan(2, Long.MAX_VALUE, "fifo", PolicyParams.NONE, CATALOG).hardwareTypeOf(1)).isEqualTo("cpu");
        assertThat(new ServingPlan(2, "fifo", PolicyParams.NONE).hardwareTypeOf(1)).isNull();
    }

    @Test
    void aPlacementOnADeviceOfATypeTheModelHasNoProfileForIsRejectedNamingModelDeviceAndType() {
        assertThatThrownBy(() -> Decisions.apply(plan, placement("default", 2, "R", "C")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("model 'C' cannot go on device 2: the device is of hardware type 'gpu-t4', on which the model has no profile (it has profiles on [cpu])");
        assertThat(plan.version()).as("unchanged").isZero();
        // Through the ledger, as the job decides it: REJECTED with that reason.
        DecisionLedger ledger = new DecisionLedger(plan);
        var outcome = ledger.decide(placement("default", 2, "C"), 5);
        assertThat(outcome.getStatus()).isEqualTo(DecisionStatus.REJECTED);
        assertThat(outcome.getReason()).contains("model 'C'", "device 2", "'gpu-t4'");
        // R has a gpu-t4 profile: applied.
        assertThat(Decisions.apply(plan, placement("default", 2, "R"))).isTrue();
        assertThat(plan.devicesOf("default")).extracting(DeviceView::slot, DeviceView::models).containsExactly(tuple(2, Set.of("R")));
    }

    @Test
    void aSlotOfATypeTheCatalogLacksIsRefused() {
        assertThatThrownBy(() -> new ServingPlan(DeviceSlots.uniform("tpu", 1), Long.MAX_VALUE, "fifo", PolicyParams.NONE, CATALOG))
                .hasMessageContaining("device 0 is of hardware type 'tpu', which the model catalog lacks (it has [cpu, gpu-t4])");
    }

    @Test
    void theGroupsSchedulerSeesTheTypesOfItsDevices() {
        ServingGroups groups = new ServingGroups(CATALOG, false, null);
        var g = groups.scheduler("default", plan).scheduler();
        assertThat(g.hardwareTypes()).containsExactly("cpu", "gpu-t4");
        assertThat(g.devices().get(2).holds("C")).isFalse();
        assertThat(g.devices().get(2).holds("R")).isTrue();
        Map<Integer, Set<String>> placed = Map.of(2, Set.of("R"));
        plan.place("default", placed);
        groups.update(plan);
        assertThat(g.hardwareTypes()).containsExactly("gpu-t4");
    }
}
