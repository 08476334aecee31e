package io.kairos.control.tuner;

import io.kairos.control.smdp.CostWeights;
import io.kairos.control.smdp.RateDrift;
import io.kairos.control.smdp.TablePlanner;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.device.DeviceSlots;
import io.kairos.schema.SetBatchingTable;
import io.kairos.schema.SetPlacement;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** The SMDP tables follow the rate per device: {@link RateDrift} decides, {@link TablePlanner} solves. */
class BatchingFollowerTest {
    private static final ModelCatalog CATALOG = ModelCatalog.builtIn();
    private static final long S = 1_000_000;

    private static BatchingFollower follower() {
        return new BatchingFollower(CATALOG, new RateDrift(0.2), new TablePlanner(), CostWeights.of(1, 0));
    }

    @Test
    void aTableIsSolvedAgainOnlyWhenTheRatePerDeviceDriftsByMoreThanTheShare() {
        BatchingFollower f = follower();
        f.solvedFor("g", "googlenet", 1_000, 1);
        // 1,150/s on one device is 15 % above the 1,000 solved for: within 20 %, no new table.
        assertThat(f.follow("g", "googlenet", 1_150, 1).plan()).isEmpty();
        // 1,300/s is 30 % above: solved for 1,300/s.
        Optional<TablePlanner.Plan> p = f.follow("g", "googlenet", 1_300, 1).plan();
        assertThat(p).isPresent();
        assertThat(p.get().decision().getArrivalRatePerS()).isEqualTo(1_300);
        assertThat(f.solvedPerDevice("g", "googlenet")).isEqualTo(1_300);
        // The tuner doubles the group's devices at 2,400/s: 1,200 per device, within 20 % of 1,300.
        assertThat(f.follow("g", "googlenet", 2_400, 2).plan()).isEmpty();
        // Back to one device at 2,400/s: 2,400 per device, 85 % above 1,300: a new table (below googlenet's
        // capacity of about 2,959/s per device, rho about 0.81).
        TablePlanner.Plan q = f.follow("g", "googlenet", 2_400, 1).plan().orElseThrow();
        assertThat(q.solution().smdp().model().arrivalRate()).isCloseTo(2.4, within(1e-12));
        // A silent model keeps its table.
        assertThat(f.follow("g", "googlenet", 0, 1).plan()).isEmpty();
    }

    @Test
    void aRateAboveCapacityKeepsTheTableAndSaysWhyOnce() {
        BatchingFollower f = follower();
        f.solvedFor("g", "googlenet", 1_000, 1);
        // googlenet at 32: 0.3051 · 32 + 1.052 = 10.8 ms, about 2,959/s per device.
        BatchingFollower.Result r = f.follow("g", "googlenet", 3_500, 1);
        assertThat(r.plan()).isEmpty();
        assertThat(r.problem()).contains("is at or above the capacity of model 'googlenet'");
        assertThat(f.follow("g", "googlenet", 3_600, 1).problem()).isNull(); // within 20 % of the refused rate: not again
        assertThat(f.solvedPerDevice("g", "googlenet")).isEqualTo(1_000);
    }

    @Test
    void theTunerPublishesTheTableAfterThePlacementItIsSolvedFor() {
        // One stage of googlenet, mu 1,000/s (assumed), 1 planned replica on slot 0 of two; one window of 1 s where the planning
        // trace peaked at 1,000/s. 1,800 arrivals in the second 1..2 s: k = ceil(1,800/1,000) = 2 replicas, and
        // 1,800/s over 2 devices = 900 per device, 10 % off the 1,000 solved for: no table yet.
        TunerSettings settings = new TunerSettings(100_000, new long[]{S}, S, 15 * S, 250_000);
        TunerPlan plan = new TunerPlan("p", List.of(new StageScale("a", "p-a", "googlenet", "default", 1, 1_000, 32, 1)), new double[]{1_000}, settings);
        Tuner t = new Tuner(plan, new ReplicaPlacement(DeviceSlots.uniform("default", 2), List.of("default"), List.of(List.of(0))), 0);
        BatchingFollower f = follower();
        f.solvedFor("p-a", "googlenet", 1_000, 1);
        t.followBatching(f, S);
        t.arrive(1_500_000, 1_800);
        Tuner.Change up = t.tick(2 * S).orElseThrow();
        assertThat(up.actions()).hasSize(1).first().isInstanceOf(SetPlacement.class);
        // At 3 s nothing arrived in the latest second: silent, no table; the quiet time holds the replicas.
        assertThat(t.tick(3 * S)).isEmpty();
        // 3,000 arrivals in 3..4 s: 3,000/s, k = 3 but the pool has 2: still 2 devices, 1,500 per device, 50 % above 1,000: a table.
        t.arrive(3_500_000, 3_000);
        Tuner.Change table = t.tick(4 * S).orElseThrow();
        assertThat(table.step().kind()).isEqualTo(ScaleRule.Kind.NONE);
        assertThat(table.actions()).hasSize(1).first().isInstanceOf(SetBatchingTable.class);
        assertThat(((SetBatchingTable) table.actions().get(0)).getArrivalRatePerS()).isEqualTo(3_000);
    }
}
