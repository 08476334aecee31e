package io.kairos.sim;

import io.kairos.core.device.DeviceSlots;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.result.ResultStatus;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.DecisionOutcome;
import io.kairos.schema.DecisionStatus;
import io.kairos.schema.DevicePlacement;
import io.kairos.schema.SetPlacement;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.kairos.sim.SimulationTest.Fate;
import static io.kairos.sim.SimulationTest.at;
import static io.kairos.sim.SimulationTest.fates;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** The simulator on devices of several hardware types: each runs its type's profile, and the report prices them. */
class SimulationHardwareTypesTest {
    /** R: 10 ms on cpu, 2 ms on gpu-t4. C: 4 ms, on cpu only. cpu costs 0.10 per hour, gpu-t4 0.53. */
    static final ModelCatalog TYPED = ModelCatalog.parse("""
            {"hardware": [{"name": "cpu", "price_per_hour": 0.10}, {"name": "gpu-t4", "price_per_hour": 0.53}],
             "models": [
              {"name": "R", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 10}},
               "hardware_profiles": {"gpu-t4": {"latency_ms": {"table": {"1": 2}}}}},
              {"name": "C", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 4}}}
            ]}""", "typed-simulation-test");

    private static Simulation.Builder twoTypes() {
        return Simulation.builder(TYPED).devices(DeviceSlots.parse("cpu:1,gpu-t4:1", TYPED)).policy("fifo")
                .load(ArrivalSource.replay(List.of(at(0, "R", 100), at(0, "R", 100), at(0, "C", 100)))).duration(1_000_000);
    }

    @Test
    void theGpuSlotRunsItsBatchInTheGpuTimeAndCNeverGoesThere() {
        // All three at 0. FIFO: request 0 (R) to the first idle device, slot 0 (cpu), 10 ms;
        // request 1 (R) to slot 1 (gpu-t4), booked and run at the gpu's 2 ms: it ends at 2 ms, as
        // predicted. Request 2 (C) has no gpu-t4 profile: the idle gpu is not for it, it waits
        // for the cpu and runs from 10 to 14 ms.
        assertThat(fates(twoTypes().build())).containsExactlyInAnyOrder(
                new Fate("1", ResultStatus.OK, 2_000, 1),
                new Fate("0", ResultStatus.OK, 10_000, 1),
                new Fate("2", ResultStatus.OK, 14_000, 1));
    }

    @Test
    void theReportGivesTheDevicesCost() {
        SimulationReport r = twoTypes().build().run();
        // 0.10 + 0.53 = 0.63 per hour, over a window of 1 s: 0.63 / 3600; 3 good requests.
        assertThat(r.costPerHour()).isCloseTo(0.63, within(1e-12));
        assertThat(r.cost()).isCloseTo(0.63 / 3600, within(1e-15));
        assertThat(r.costPer1000Good()).isCloseTo(0.63 / 3600 * 1000 / 3, within(1e-12));
        List<String> columns = SimulationReport.CSV_COLUMNS;
        assertThat(r.csvValues().get(columns.indexOf("cost_per_hour"))).isEqualTo("0.630000");
        assertThat(r.csvValues().get(columns.indexOf("cost"))).isEqualTo("0.000175000");
        assertThat(r.toString()).contains("devices 0.6300 per hour, 0.0001750 for the run");
        // A catalog without prices: free, and the line says nothing of money.
        SimulationReport free = Simulation.builder(SimulationTest.CATALOG).devices(2).policy("fifo")
                .load(ArrivalSource.replay(List.of(at(0, "R", 100)))).duration(1_000_000).build().run();
        assertThat(free.costPerHour()).isZero();
        assertThat(free.toString()).doesNotContain("per hour");
    }

    @Test
    void aPlacementOfAModelOnATypeItHasNoProfileForIsRejected() {
        ControlDecision put = ControlDecision.newBuilder().setVersion(1).setIssuedAtMicros(0).setIssuedBy("planner")
                .setAction(SetPlacement.newBuilder().setGroup("default")
                        .setDevices(List.of(DevicePlacement.newBuilder().setDevice(1).setModels(List.of("C")).build())).build()).build();
        List<DecisionOutcome> outcomes = new ArrayList<>();
        twoTypes().decisions(List.of(new TimedDecision(1_000, put))).build().run(new FateListener() {
            @Override
            public void onFate(io.kairos.core.request.Request request, ResultStatus status, long endMicros, int batchSize) {}

            @Override
            public void onDecision(TimedDecision decision, DecisionOutcome outcome) {
                outcomes.add(outcome);
            }
        });
        assertThat(outcomes).singleElement().satisfies(o -> {
            assertThat(o.getStatus()).isEqualTo(DecisionStatus.REJECTED);
            assertThat(o.getReason()).isEqualTo(
                    "model 'C' cannot go on device 1: the device is of hardware type 'gpu-t4', on which the model has no profile (it has profiles on [cpu])");
        });
    }

    @Test
    void devicesOfATypeTheCatalogLacksAreRefused() {
        assertThatThrownBy(() -> Simulation.builder(TYPED).devices(DeviceSlots.uniform("tpu", 2)))
                .hasMessage("devices 'tpu:2': hardware type 'tpu' is not in the model catalog (it has [cpu, gpu-t4])");
        // A plan made without a catalog, run on one that lacks its types.
        io.kairos.core.plan.ServingPlan plan = new io.kairos.core.plan.ServingPlan(DeviceSlots.uniform("tpu", 1), Long.MAX_VALUE, "fifo",
                io.kairos.core.scheduling.PolicyParams.NONE, null);
        assertThatThrownBy(() -> Simulation.builder(TYPED).plan(plan).load(ArrivalSource.replay(List.of(at(0, "R", 100)))).duration(1_000).build())
                .hasMessage("device 0 of the plan is of hardware type 'tpu', which the simulation's model catalog lacks (it has [cpu, gpu-t4])");
    }
}
