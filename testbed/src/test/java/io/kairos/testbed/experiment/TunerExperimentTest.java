package io.kairos.testbed.experiment;

import io.kairos.control.tuner.ReplicaPlacement;
import io.kairos.core.device.DeviceSlots;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.SetPlacement;
import io.kairos.sim.Controller;
import io.kairos.workload.ArrivalTrace;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** The tuner experiment's loads, and the autoscalers it emulates, on cases worked out by hand. */
class TunerExperimentTest {
    private static final long S = 1_000_000;

    @Test
    void aRampRisesHoldsAndFallsAndTheOscillationSwingsBetween150And250() {
        // 5/s² takes 20 s from 150 to 250: from 120 s to 140 s, then 150 s at 250 (to 290 s), 20 s down.
        TunerExperiment.Scenario ramp = new TunerExperiment.Scenario("ramp", 5);
        assertThat(ramp.rate(60)).isEqualTo(150);
        assertThat(ramp.rate(130)).isEqualTo(200);
        assertThat(ramp.rate(200)).isEqualTo(250);
        assertThat(ramp.rate(300)).isEqualTo(200);
        assertThat(ramp.rate(400)).isEqualTo(150);
        assertThat(ramp.hold()).containsExactly(140, 290);
        // A sine of period 120 s from 120 s: 150 at its start, 250 half a period later.
        TunerExperiment.Scenario osc = new TunerExperiment.Scenario("oscillating", 0);
        assertThat(osc.rate(120)).isCloseTo(150, within(1e-9));
        assertThat(osc.rate(180)).isCloseTo(250, within(1e-9));
        assertThat(osc.rate(210)).isCloseTo(200, within(1e-9));
        // The thinned trace has the rate asked for: 150/s for the first 120 s, 250/s over the hold.
        ArrivalTrace t = TunerExperiment.trace(ramp, 480, 1);
        long first = 0;
        long held = 0;
        for (int i = 0; i < t.size(); i++) {
            if (t.at(i) < 120 * S) first++;
            else if (t.at(i) >= 140 * S && t.at(i) < 290 * S) held++;
        }
        assertThat(first / 120.0).isCloseTo(150, within(5.0));
        assertThat(held / 150.0).isCloseTo(250, within(5.0));
    }

    /** What the autoscaler sees: a fixed number of ongoing requests. */
    private static final class Ongoing implements Controller.Load {
        int n;

        @Override
        public int queued(String group) {
            return n;
        }

        @Override
        public int running(String group) {
            return 0;
        }

        @Override
        public int devices(String group) {
            return 0;
        }
    }

    private static int devices(List<ControlDecision> d) {
        return ((SetPlacement) d.get(0).getAction()).getDevices().size();
    }

    private static ReplicaPlacement oneOfSixteen() {
        return new ReplicaPlacement(DeviceSlots.uniform("gpu", 16), List.of("gpu"), List.of(List.of(0)));
    }

    @Test
    void rayServeScalesOnlyOnceItsDelayHasPassedAtEverySample() {
        // 10 ongoing requests, a target of 2: 5 replicas wanted from the first sample. The upscale delay
        // is 30 s of samples asking for more: the 30th sample, at 29 s, scales to 5.
        Ongoing load = new Ongoing();
        load.n = 10;
        StageAutoscaler ray = new StageAutoscaler.RayServe("g", "m", oneOfSixteen(), 0);
        for (long t = 0; t < 29; t++) assertThat(ray.act(t * S, load)).isEmpty();
        List<ControlDecision> up = ray.act(29 * S, load);
        assertThat(devices(up)).isEqualTo(5);
        assertThat(up.get(0).getIssuedBy()).isEqualTo("ray-serve");
        assertThat(up.get(0).getKey()).isEqualTo("placement/g");
        // Idle from 30 s: the 30-s average falls below 2 per replica only after a while, and the
        // downscale delay is 600 s of such samples: nothing for 10 minutes.
        load.n = 0;
        for (long t = 30; t < 600; t++) assertThat(ray.act(t * S, load)).isEmpty();
    }

    @Test
    void knativePanicsOnABurstHoldsForTheStableWindowThenHalvesEveryTick() {
        // 14 ongoing, 2 per replica at 70 %: 1.4 per replica, 10 wanted by the 6-s panic window, at least
        // twice the 1 replica there is: it panics and scales to 10 at once.
        Ongoing load = new Ongoing();
        load.n = 14;
        StageAutoscaler kpa = new StageAutoscaler.Knative("g", "m", oneOfSixteen(), 0);
        assertThat(devices(kpa.act(0, load))).isEqualTo(10);
        // Idle from 1 s: in panic it never scales down, until 60 s after the panic began (evaluated every 2 s).
        load.n = 0;
        for (long t = 1; t < 60; t++) assertThat(kpa.act(t * S, load)).isEmpty();
        // At 60 s it leaves the panic: the stable window (samples of 1..60 s, all 0) wants none, but it
        // at most halves: 10 -> 5, then 3 at 62 s, 2 at 64 s, 1 at 66 s.
        assertThat(devices(kpa.act(60 * S, load))).isEqualTo(5);
        assertThat(kpa.act(61 * S, load)).isEmpty();
        assertThat(devices(kpa.act(62 * S, load))).isEqualTo(3);
        assertThat(devices(kpa.act(64 * S, load))).isEqualTo(2);
        assertThat(devices(kpa.act(66 * S, load))).isEqualTo(1);
    }

    /** An autoscaler's setting is the cheapest of those within the SLO's 1 % of misses, else the one that misses least. */
    @Test
    void theAutoscalersSettingIsTheCheapestWithinTheSloElseTheOneMissingLeast() {
        ResultTable grid = new ResultTable(List.of("scenario", "system", "miss_rate", "device_seconds", "setting"));
        grid.add(List.of("ramp", "Ray Serve", "0.02", "100", "a"));   // cheapest, but over 1 %
        grid.add(List.of("ramp", "Ray Serve", "0.009", "300", "b"));
        grid.add(List.of("ramp", "Ray Serve", "0.01", "250", "c"));   // within 1 %, cheaper than b
        grid.add(List.of("ramp", "Knative KPA", "0.05", "100", "d"));
        grid.add(List.of("ramp", "Knative KPA", "0.03", "400", "e"));  // none within: the fewest misses
        assertThat(TunerExperiment.choose(grid, "Ray Serve", 0.01)).isEqualTo("c");
        assertThat(TunerExperiment.choose(grid, "Knative KPA", 0.01)).isEqualTo("e");
        // The grids hold each system's defaults, and the delays Ray Serve's defaults never reach on a 10-minute trace.
        assertThat(StageAutoscaler.Ray.grid()).hasSize(12).contains(StageAutoscaler.Ray.DEFAULT, new StageAutoscaler.Ray(1, 10, 60));
        assertThat(StageAutoscaler.Kpa.grid()).hasSize(12).contains(StageAutoscaler.Kpa.DEFAULT, new StageAutoscaler.Kpa(4, 30, 6));
        assertThat(StageAutoscaler.Ray.DEFAULT.label()).isEqualTo("target_ongoing_requests=2 upscale_delay_s=30 downscale_delay_s=600");
    }
}
