package io.kairos.core.scheduling;

import io.kairos.core.model.InputSpec;
import io.kairos.core.model.LatencyProfile;
import io.kairos.core.model.ModelSpec;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class DeviceViewTest {
    private static final long MB = 1 << 20;
    private static final LatencyProfile ONE_MS = new LatencyProfile(new int[]{1}, new long[]{1_000});

    private static ModelSpec model(String name, long memoryBytes, long loadMicros) {
        return new ModelSpec(name, new InputSpec("FLOAT32", new long[]{1}), ONE_MS, memoryBytes, loadMicros);
    }

    private final ModelSpec x = model("X", 6 * MB, 5_000);
    private final ModelSpec y = model("Y", 6 * MB, 3_000);
    private final ModelSpec w = model("W", 6 * MB, 4_000);

    @Test
    void aModelIsColdUntilABatchOfItIsBookedThenWarm() {
        DeviceView d = new DeviceView(0, null, 10 * MB);
        assertThat(d.loadMicros(x)).isEqualTo(5_000);
        d.hold(x);
        assertThat(d.loadMicros(x)).isZero();
        assertThat(d.loadedModels()).containsExactly("X");
    }

    @Test
    void holdingAModelThatDoesNotFitEvictsTheLeastRecentlyUsedOne() {
        // 10 MB holds one 6 MB model: Y evicts X, and X is cold again.
        DeviceView small = new DeviceView(0, null, 10 * MB);
        small.hold(x);
        small.hold(y);
        assertThat(small.loadedModels()).containsExactly("Y");
        assertThat(small.loadMicros(x)).isEqualTo(5_000);
        assertThat(small.loadMicros(y)).isZero();

        // 12 MB holds two: X used after Y makes Y the least recently used, so W evicts Y, not X.
        DeviceView big = new DeviceView(1, null, 12 * MB);
        big.hold(x);
        big.hold(y);
        big.hold(x);
        big.hold(w);
        assertThat(big.loadedModels()).containsExactly("X", "W");
        assertThat(big.loadMicros(y)).isEqualTo(3_000);
    }

    @Test
    void aModelWithoutLoadCostIsAlwaysWarmAndNeverTakesRoom() {
        DeviceView d = new DeviceView(0, null, 10 * MB);
        ModelSpec free = model("F", 0, 0);
        assertThat(d.loadMicros(free)).isZero();
        d.hold(x);
        d.hold(free);
        assertThat(d.loadedModels()).containsExactly("X");
    }

    @Test
    void aModelLargerThanTheBudgetIsNotTrackedAndStaysCold() {
        DeviceView d = new DeviceView(0, null, 4 * MB);
        d.hold(x);
        assertThat(d.loadedModels()).isEmpty();
        assertThat(d.loadMicros(x)).isEqualTo(5_000);
    }

    @Test
    void aViewThatReplacesAnotherKeepsItsLoadedModelsAndFreeTime() {
        DeviceView before = new DeviceView(3, null, 12 * MB);
        before.hold(y);
        before.hold(x);
        before.book(100, 2_000);
        DeviceView after = new DeviceView(3, java.util.Set.of("X", "Y"), 12 * MB);
        after.inherit(before);
        assertThat(after.loadedModels()).containsExactly("Y", "X");
        assertThat(after.loadMicros(x)).isZero();
        assertThat(after.freeAtMicros()).isEqualTo(2_100);
        // The LRU order came along: W now evicts Y, the one used least recently before the change.
        after.hold(w);
        assertThat(after.loadedModels()).containsExactly("X", "W");
    }
}
