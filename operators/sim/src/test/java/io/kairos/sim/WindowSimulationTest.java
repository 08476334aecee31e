package io.kairos.sim;

import io.kairos.core.device.ExecutionNoise;
import io.kairos.core.result.ResultStatus;
import io.kairos.workload.Arrival;
import io.kairos.workload.Workload;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.kairos.sim.SimulationTest.CATALOG;
import static io.kairos.sim.SimulationTest.fates;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Window SLOs in the simulator: held by the scheduler, met within the window, early through noise. */
class WindowSimulationTest {

    @Test
    void aWindowRequestIsHeldAndEndsAtItsWindowStartWhileOneWithoutAWindowGoesAtOnce() {
        // R takes tau(1) = 2.7 ms. "0" arrives at 0 with window [10 ms, 50 ms]: held until
        // 10,000 - 2,700 = 7,300, then run alone 7,300-10,000: OK, at the window start itself.
        // "1" arrives at 1,000, SLO 50 ms, no window: run at once, 1,000-3,700, as always.
        Simulation sim = Simulation.builder(CATALOG).devices(1).policy("clockwork")
                .load(ArrivalSource.replay(List.of(new Arrival(0, "t", "R", 50, 10), new Arrival(1_000, "t", "R", 50))))
                .duration(100_000).build();
        assertThat(fates(sim)).containsExactly(
                new SimulationTest.Fate("1", ResultStatus.OK, 3_700, 1),
                new SimulationTest.Fate("0", ResultStatus.OK, 10_000, 1));
    }

    @Test
    void aBatchFasterThanItsProfileEndsEarlyAMissWithItsOwnStatus() {
        // Every batch runs 500 us under its profile: "0" is released at 7,300 and ends at
        // 7,300 + 2,200 = 9,500, before its window start at 10,000: EARLY, counted apart.
        Simulation sim = Simulation.builder(CATALOG).devices(1).policy("clockwork")
                .noise((profiled, random) -> profiled - 500)
                .load(ArrivalSource.replay(List.of(new Arrival(0, "t", "R", 50, 10))))
                .duration(100_000).build();
        assertThat(fates(sim)).containsExactly(new SimulationTest.Fate("0", ResultStatus.EARLY, 9_500, 1));
        SimulationReport r = sim.run();
        assertThat(r.early()).isEqualTo(1);
        assertThat(r.ok()).isZero();
        assertThat(r.sloAttainment()).isZero();
    }

    @Test
    void theWorkloadSpecTakesAWindowInTheSloField() {
        Workload w = Workload.parse("R:100:100-1000,B:50:20:acme");
        assertThat(w.loads().get(0).windowStartMs()).isEqualTo(100);
        assertThat(w.loads().get(0).sloMs()).isEqualTo(1000);
        assertThat(w.loads().get(1).windowStartMs()).isZero();
        assertThat(w.toString()).isEqualTo("R:100:100-1000,B:50:20:acme");
        assertThat(w.arrivalsWithin(1, 1_000_000)).isNotEmpty()
                .allSatisfy(a -> assertThat(a.windowStartMs()).isEqualTo(a.model().equals("R") ? 100 : 0));
        assertThatThrownBy(() -> Workload.parse("R:100:1000-100"))
                .hasMessage("workload spec part 'R:100:1000-100': window start must be above 0 and at most the SLO (100 ms), got 1000");
        assertThatThrownBy(() -> Workload.parse("R:100:x-100"))
                .hasMessage("workload spec part 'R:100:x-100': window start 'x' is not a number");
    }
}
