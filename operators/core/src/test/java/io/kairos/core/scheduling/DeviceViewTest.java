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

    /**
     * The view replays the device's cache under either eviction rule: over 5,000 batches of 12
     * models of 1, 8 and 32 MiB drawn with skewed popularity on 64 MiB, each batch the view predicts
     * cold (a load booked in front of it) is a batch the device's own time model loads for, and no
     * other.
     */
    @Test
    void theViewPredictsEveryColdStartOfTheDeviceUnderEitherEvictionRule() {
        StringBuilder json = new StringBuilder("{\"models\": [");
        long[] sizes = {1, 8, 32};
        for (int i = 0; i < 12; i++) {
            json.append(i == 0 ? "" : ",").append(String.format(java.util.Locale.ROOT,
                    "{\"name\": \"m%d\", \"input\": {\"dtype\": \"FLOAT32\", \"shape\": [1]}, \"latency_ms\": {\"table\": {\"1\": 1}}, \"memory_bytes\": %d, \"load_ms\": %d}",
                    i, sizes[i % 3] * MB, 1 + i % 3));
        }
        io.kairos.core.model.ModelCatalog catalog = io.kairos.core.model.ModelCatalog.parse(json.append("]}").toString(), "test");
        for (io.kairos.core.device.Eviction rule : io.kairos.core.device.Eviction.values()) {
            DeviceView view = new DeviceView(0, null, 64 * MB, null, rule);
            io.kairos.core.device.ExecutionModel device = new io.kairos.core.device.ExecutionModel(catalog, catalog.firstHardwareType().name(), 1,
                    io.kairos.core.device.ExecutionNoise.none(), 64 * MB, rule, new java.util.SplittableRandom(1));
            java.util.SplittableRandom draw = new java.util.SplittableRandom(7);
            // Model i with weight 1 / (i + 1): a few used often, most rarely.
            double[] cumulative = new double[12];
            for (int i = 0; i < 12; i++) cumulative[i] = (i == 0 ? 0 : cumulative[i - 1]) + 1.0 / (i + 1);
            int cold = 0;
            for (int b = 0; b < 5_000; b++) {
                double u = draw.nextDouble() * cumulative[11];
                int m = 0;
                while (m < 11 && u > cumulative[m]) m++;
                ModelSpec spec = catalog.get("m" + m);
                boolean predicted = view.loadMicros(spec) > 0;
                view.hold(spec);
                boolean actual = device.run(spec.name(), 1).coldStart();
                assertThat(predicted).as("%s batch %d of %s", rule, b, spec.name()).isEqualTo(actual);
                if (actual) cold++;
            }
            assertThat(cold).as(rule.id()).isBetween(100, 4_000);
            assertThat(view.loadedModels()).isEqualTo(device.loadedModels());
        }
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

    private static Dispatch batch(DeviceView d, long now, long latency) {
        Dispatch b = new Dispatch("X", new io.kairos.core.request.Request[0], d.slot(), d.startAtMicros(now), latency);
        d.book(b, now);
        return b;
    }

    @Test
    void aBatchThatEndsLateShiftsTheWorkBookedBehindIt() {
        DeviceView d = new DeviceView(0, null);
        Dispatch a = batch(d, 0, 1_000);     // 0-1000
        Dispatch b = batch(d, 100, 2_000);   // sent at 100, behind a: 1000-3000
        assertThat(b.predictedStartMicros()).isEqualTo(1_000);
        d.observe(a, 0, 1_500);              // a ended 500 late
        assertThat(d.predictedStartMicros(b)).isEqualTo(1_500);
        assertThat(d.freeAtMicros()).isEqualTo(3_500);
        assertThat(d.predictedStartMicros(a)).as("reported: no longer booked").isEqualTo(-1);
    }

    @Test
    void aBatchThatEndsEarlyPullsTheWorkBehindItForwardButNotBeforeItWasSent() {
        DeviceView d = new DeviceView(0, null);
        Dispatch a = batch(d, 0, 1_000);     // 0-1000
        Dispatch b = batch(d, 100, 2_000);   // 1000-3000, sent at 100
        Dispatch c = batch(d, 700, 500);     // 3000-3500, sent at 700
        d.observe(a, 0, 600);                // a ended at 600: b starts then; c right behind b
        assertThat(d.predictedStartMicros(b)).isEqualTo(600);
        assertThat(d.predictedStartMicros(c)).isEqualTo(2_600);
        assertThat(d.freeAtMicros()).isEqualTo(3_100);
        d.observe(b, 600, 800);              // b took 200: c could start at 800 but was sent at 700, fine: 800
        assertThat(d.predictedStartMicros(c)).isEqualTo(800);
        assertThat(d.freeAtMicros()).isEqualTo(1_300);

        // A batch sent to an idle device starts when sent, however early the one before it ended.
        DeviceView idle = new DeviceView(1, null);
        Dispatch first = batch(idle, 0, 1_000);           // 0-1000
        Dispatch later = batch(idle, 1_200, 1_000);       // sent at 1200 to an idle device: 1200-2200
        idle.observe(first, 0, 900);
        assertThat(idle.predictedStartMicros(later)).isEqualTo(1_200);
        assertThat(idle.freeAtMicros()).isEqualTo(2_200);
    }

    @Test
    void aReportOfABatchBookedBeforeOthersTakesThemAllOffAndTheLastReportSetsTheFreeTime() {
        DeviceView d = new DeviceView(0, null);
        Dispatch a = batch(d, 0, 1_000);
        Dispatch b = batch(d, 0, 1_000);
        d.observe(b, 1_000, 2_400);          // b's report: a is done too
        assertThat(d.predictedStartMicros(a)).isEqualTo(-1);
        assertThat(d.freeAtMicros()).isEqualTo(2_400);
        assertThat(d.preemptibleAt(2_000)).as("b has ended").isNull();
    }

    @Test
    void aReportOfABatchTheViewForgotReBasesEverythingStillBooked() {
        DeviceView d = new DeviceView(0, null);
        Dispatch a = batch(d, 0, 1_000);     // 0-1000
        Dispatch b = batch(d, 1_500, 1_000); // at 1500 the view forgets a (predicted done); b 1500-2500
        d.observe(a, 0, 2_000);              // a really ended at 2000: b cannot have started before
        assertThat(d.predictedStartMicros(b)).isEqualTo(2_000);
        assertThat(d.freeAtMicros()).isEqualTo(3_000);
        // The re-based end is what preemption looks at.
        assertThat(d.preemptibleAt(2_800)).isSameAs(b);
        assertThat(d.unbookLast(2_800)).isSameAs(b);
        assertThat(d.freeAtMicros()).isEqualTo(2_800);
    }
}
