package io.kairos.control.tuner;

import io.kairos.core.device.DeviceSlots;
import io.kairos.schema.DevicePlacement;
import io.kairos.schema.SetPlacement;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The whole loop on a hand-made arrival list. One stage on gpu: s 1, mu 5/s, 2 planned replicas on
 * slots 1 and 2 of a pool cpu, gpu, gpu, gpu; one window of 1 s where the planning trace peaked at
 * 10/s (rho = 10/(2·5) = 1); 100-ms buckets, a 1-s look-back, 15 s of quiet before scaling down.
 */
class TunerTest {
    private static final long MS = 1_000;
    private static final long S = 1_000_000;

    private static Tuner tuner() {
        TunerSettings settings = new TunerSettings(100 * MS, new long[]{S}, S, 15 * S, 250 * MS);
        TunerPlan plan = new TunerPlan("p", List.of(new StageScale("a", "p-a", "ma", "gpu", 1, 5, 1, 2)), new double[]{10}, settings);
        DeviceSlots pool = DeviceSlots.of(List.of("cpu", "gpu", "gpu", "gpu"));
        return new Tuner(plan, new ReplicaPlacement(pool, List.of("gpu"), List.of(List.of(1, 2))), 0);
    }

    private static List<Integer> devices(Object action) {
        return ((SetPlacement) action).getDevices().stream().map(DevicePlacement::getDevice).toList();
    }

    @Test
    void aStepUpTakesFreeDevicesAtOnceAndAQuietSpellGivesThemBackAfterFifteenSeconds() {
        Tuner t = tuner();
        // 0..2 s: one arrival every 100 ms, 10 per 1-s window: as planned, nothing changes.
        for (long at = 0; at < 2 * S; at += 100 * MS) t.arrive(at);
        assertThat(t.tick(2 * S)).isEmpty();
        // 2..3 s: one every 50 ms, 20 in the window of buckets 20..29: k = ceil(20·1/(5·1)) = 4, but the
        // pool has one free gpu (slot 3): three replicas.
        for (long at = 2 * S; at < 3 * S; at += 50 * MS) t.arrive(at);
        Optional<Tuner.Change> up = t.tick(3 * S);
        assertThat(up).isPresent();
        assertThat(up.get().step().replicas()).containsExactly(4);
        assertThat(up.get().replicas()).containsExactly(3);
        assertThat(up.get().actions()).hasSize(1);
        assertThat(((SetPlacement) up.get().actions().get(0)).getGroup()).isEqualTo("p-a");
        assertThat(devices(up.get().actions().get(0))).containsExactly(1, 2, 3);
        // Still short of 4 with no device free: no new change.
        assertThat(t.tick(3_250 * MS)).isEmpty();
        // Nothing arrives after 3 s. At 10 s the look-back is empty (k = 1), but only 7 s have passed.
        assertThat(t.tick(10 * S)).isEmpty();
        // At 18 s, 15 s after the change: down to one replica, the one taken first.
        Optional<Tuner.Change> down = t.tick(18 * S);
        assertThat(down).isPresent();
        assertThat(down.get().step().kind()).isEqualTo(ScaleRule.Kind.DOWN);
        assertThat(devices(down.get().actions().get(0))).containsExactly(1);
        assertThat(t.placement().free("gpu")).containsExactly(2, 3);
        assertThat(t.lastChangeMicros()).isEqualTo(18 * S);
    }
}
