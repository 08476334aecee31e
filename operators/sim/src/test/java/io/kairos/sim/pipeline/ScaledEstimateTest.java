package io.kairos.sim.pipeline;

import io.kairos.core.device.DeviceSlots;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.DevicePlacement;
import io.kairos.schema.SetPlacement;
import io.kairos.sim.Controller;
import io.kairos.sim.TimedDecision;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static io.kairos.sim.pipeline.PipelineEstimatorTest.CATALOG;
import static io.kairos.sim.pipeline.PipelineEstimatorTest.CHAIN;
import static io.kairos.sim.pipeline.PipelineEstimatorTest.bursts;
import static io.kairos.sim.pipeline.PipelineEstimatorTest.config;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Runs where a stage's replicas change: decisions fixed beforehand, and a controller in the loop. */
class ScaledEstimateTest {
    private static final DeviceSlots POOL = DeviceSlots.of(List.of("cpu", "gpu", "gpu", "gpu"));
    private static final PipelineConfig TWO_GPUS = config(CHAIN, Map.of("first", new StageConfig("gpu", 1, 2), "second", new StageConfig("cpu", 1, 1)));

    static ControlDecision placement(String group, String model, long version, int... slots) {
        List<DevicePlacement> devices = new ArrayList<>();
        for (int slot : slots) devices.add(DevicePlacement.newBuilder().setDevice(slot).setModels(List.of(model)).build());
        return ControlDecision.newBuilder().setVersion(version).setIssuedAtMicros(0).setIssuedBy("test")
                .setAction(SetPlacement.newBuilder().setGroup(group).setDevices(devices).build()).build();
    }

    @Test
    void aRunWithoutChangesGivesTheStaticRunsLatencies() {
        // 'first' on gpu slots 1 and 2, 'second' on the cpu: the bursts of three of the hand-worked
        // static case, 6, 8 and 10 ms end to end.
        PipelineEstimator e = new PipelineEstimator(CATALOG, CHAIN, bursts(100, 3, 10), 1);
        PipelineEstimator.ScaledEstimate scaled = e.estimateScaled(TWO_GPUS, 10_000, POOL, Map.of(
                "first", new PipelineEstimator.StageScaling("g-first", List.of(1, 2), List.of(), null)));
        assertThat(scaled.estimate().latenciesMicros()).containsExactly(e.estimateAll(TWO_GPUS, 10_000).latenciesMicros());
        assertThat(scaled.applied().get("first")).isEmpty();
    }

    @Test
    void aControllerSeesTheGroupAndItsDecisionTakesEffectAtOnce() {
        // A controller every 100 ms: at 500 ms it leaves 'first' one gpu (slot 1). Bursts before 500 ms
        // take 6, 8 and 10 ms as above; from the burst at 500 ms on, one replica at 4 ms a request takes
        // 12 ms for three, longer than the 10 ms between bursts: the queue grows, latencies pass 10 ms.
        List<Integer> devicesSeen = new ArrayList<>();
        Controller shrink = new Controller() {
            long next = 0;

            @Override
            public long nextMicros() {
                return next;
            }

            @Override
            public List<ControlDecision> act(long now, Load load) {
                devicesSeen.add(load.devices("g-first"));
                next = now + 100_000;
                return now == 500_000 ? List.of(placement("g-first", "a", 1, 1)) : List.of();
            }
        };
        PipelineEstimator e = new PipelineEstimator(CATALOG, CHAIN, bursts(100, 3, 10), 1);
        PipelineEstimator.ScaledEstimate scaled = e.estimateScaled(TWO_GPUS, 10_000, POOL, Map.of(
                "first", new PipelineEstimator.StageScaling("g-first", List.of(1, 2), List.of(), () -> shrink)));
        assertThat(devicesSeen.subList(0, 6)).containsExactly(2, 2, 2, 2, 2, 2); // 0..500 ms, asked before deciding
        assertThat(devicesSeen.subList(6, devicesSeen.size())).containsOnly(1);
        assertThat(scaled.applied().get("first")).extracting(TimedDecision::atMicros).containsExactly(500_000L);
        int[] lat = scaled.estimate().latenciesMicros();
        assertThat(Arrays.stream(lat, 0, 150).distinct().sorted().toArray()).containsExactly(6_000, 8_000, 10_000);
        assertThat(Arrays.stream(lat, 150, 300).max().getAsInt()).isGreaterThan(10_000);
    }

    @Test
    void timedDecisionsAreReplayedAndABadOneChangesNothing() {
        // At 500 ms a placement on slot 9, which the pool of four lacks: rejected as the job rejects it, the
        // group keeps slots 1 and 2, and the latencies are the static run's.
        PipelineEstimator e = new PipelineEstimator(CATALOG, CHAIN, bursts(100, 3, 10), 1);
        PipelineEstimator.ScaledEstimate scaled = e.estimateScaled(TWO_GPUS, 10_000, POOL, Map.of(
                "first", new PipelineEstimator.StageScaling("g-first", List.of(1, 2),
                        List.of(new TimedDecision(500_000, placement("g-first", "a", 1, 9))), null)));
        assertThat(scaled.applied().get("first")).isEmpty();
        assertThat(scaled.estimate().latenciesMicros()).containsExactly(e.estimateAll(TWO_GPUS, 10_000).latenciesMicros());
    }

    @Test
    void aControllerThatStandsStillIsRefused() {
        Controller stuck = new Controller() {
            @Override
            public long nextMicros() {
                return 0;
            }

            @Override
            public List<ControlDecision> act(long now, Load load) {
                return List.of();
            }
        };
        PipelineEstimator e = new PipelineEstimator(CATALOG, CHAIN, bursts(10, 3, 10), 1);
        assertThatThrownBy(() -> e.estimateScaled(TWO_GPUS, 10_000, POOL, Map.of(
                "first", new PipelineEstimator.StageScaling("g-first", List.of(1, 2), List.of(), () -> stuck))))
                .hasMessage("the controller asks to act again at 0 us, not after 0 us");
    }
}
