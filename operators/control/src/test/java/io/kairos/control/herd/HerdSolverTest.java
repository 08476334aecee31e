package io.kairos.control.herd;

import io.kairos.core.model.ModelCatalog;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class HerdSolverTest {
    static final long GIB = 1024L * 1024 * 1024;

    /** Three models of 8 GiB each: two fit a 16 GiB device, three do not. One batch size, 1 ms. */
    static final ModelCatalog CATALOG = ModelCatalog.parse("""
            {"models": [
              {"name": "m1", "input": {"dtype": "FLOAT32", "shape": [1]}, "batch_sizes": [1], "latency_ms": {"table": {"1": 1}}, "memory_bytes": 8589934592},
              {"name": "m2", "input": {"dtype": "FLOAT32", "shape": [1]}, "batch_sizes": [1], "latency_ms": {"table": {"1": 1}}, "memory_bytes": 8589934592},
              {"name": "m3", "input": {"dtype": "FLOAT32", "shape": [1]}, "batch_sizes": [1], "latency_ms": {"table": {"1": 1}}, "memory_bytes": 8589934592},
              {"name": "big", "input": {"dtype": "FLOAT32", "shape": [1]}, "batch_sizes": [1], "latency_ms": {"table": {"1": 1}}, "memory_bytes": 10737418240}
            ]}""", "herd-test");

    /** Every stream's T_i is 100 requests/s, so n_i = rate / 100. */
    static HerdProblem problem(List<RequestStream> streams, int devices, int maxGroup, long memory) {
        return HerdProblem.of(streams, CATALOG, devices, maxGroup, memory, s -> 100.0);
    }

    static final HerdSolver SOLVER = new HerdSolver(new HerdSolver.Settings(Duration.ofSeconds(20), "CP_SAT", 1));

    @Test
    void threeStreamsOnFourDevices() {
        // n: a = 200/100 = 2, b = 100/100 = 1, c = 50/100 = 0.5. Two models fit a device (16 GiB),
        // three do not; G = 3, N = 4. bt of a group is size / (its largest n):
        //   {a,b} {c}:     sizes 3 + 1 -> min(3/2, 1/0.5) = 1.5       (4 + 0 is no group for c; G = 3)
        //   {a,c} {b}:     3 + 1 -> min(1.5, 1) = 1;   2 + 2 -> min(1, 2) = 1
        //   {a} {b,c}:     3 + 1 -> min(1.5, 1) = 1;   2 + 2 -> 1
        //   {a} {b} {c}:   2 + 1 + 1 -> min(1, 1, 2) = 1
        // The optimum is {a,b} on 3 devices, {c} on 1: bt(a) = 1.5, bt(b) = 3, bt(c) = 2.
        HerdPlan plan = SOLVER.solve(problem(List.of(
                RequestStream.of("a", "m1", 200, 50, 1, null),
                RequestStream.of("b", "m2", 100, 50, 1, null),
                RequestStream.of("c", "m3", 50, 50, 1, null)), 4, 3, 16 * GIB));

        assertThat(plan.feasible()).isTrue();
        assertThat(plan.status()).isEqualTo("OPTIMAL");
        assertThat(plan.groups()).extracting(HerdPlan.Group::name, HerdPlan.Group::models, HerdPlan.Group::devices).containsExactly(
                org.assertj.core.groups.Tuple.tuple("herd-1", List.of("m1", "m2"), List.of(0, 1, 2)),
                org.assertj.core.groups.Tuple.tuple("herd-2", List.of("m3"), List.of(3)));
        assertThat(bt(plan)).containsExactlyInAnyOrderEntriesOf(Map.of("a", 1.5, "b", 3.0, "c", 2.0));
        assertThat(plan.minBurstTolerance()).isEqualTo(1.5);
        assertThat(plan.gap()).isCloseTo(0, org.assertj.core.data.Offset.offset(1e-3));
        assertThat(plan.leftover()).isEmpty();
    }

    @Test
    void aModelsStreamsAddTheirNeeds() {
        // n: a = 100/100 = 1 and b = 1, both of m1: m1 needs 1 + 1 = 2 (its streams share its queue);
        // c = 250/100 = 2.5 of m2. m1 and m2 (8 GiB each) do not fit a 12 GiB device together: two
        // groups, sizes s1 + s2 <= N = 4, each <= G = 3. bt = size / the model's need:
        //   m2 on 2, m1 on 2 -> min(2/2.5, 2/2) = 0.8
        //   m2 on 3, m1 on 1 -> min(1.2, 0.5) = 0.5;  m2 on 1, m1 on 3 -> min(0.4, 1.5) = 0.4
        // so 2 and 2, t = 0.8. (With a model's need its largest stream's, 1, m2 on 3 and m1 on 1
        // would win, min(1.2, 1) = 1, leaving m1's two streams 1 device for 2 devices of load.)
        HerdPlan plan = SOLVER.solve(problem(List.of(
                RequestStream.of("a", "m1", 100, 50, 1, null),
                RequestStream.of("b", "m1", 100, 50, 1, null),
                RequestStream.of("c", "m2", 250, 50, 1, null)), 4, 3, 12 * GIB));
        assertThat(plan.status()).isEqualTo("OPTIMAL");
        assertThat(plan.groups()).extracting(HerdPlan.Group::name, HerdPlan.Group::models, HerdPlan.Group::devices).containsExactly(
                org.assertj.core.groups.Tuple.tuple("herd-1", List.of("m2"), List.of(0, 1)),
                org.assertj.core.groups.Tuple.tuple("herd-2", List.of("m1"), List.of(2, 3)));
        assertThat(bt(plan)).containsExactlyInAnyOrderEntriesOf(Map.of("a", 1.0, "b", 1.0, "c", 0.8));
        assertThat(plan.minBurstTolerance()).isCloseTo(0.8, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(plan.groups().get(1).load()).as("m1's load: both streams").isEqualTo(2.0);
    }

    @Test
    void scipFindsTheSamePlan() {
        HerdPlan plan = new HerdSolver(new HerdSolver.Settings(Duration.ofSeconds(20), "SCIP", 1)).solve(problem(List.of(
                RequestStream.of("a", "m1", 200, 50, 1, null),
                RequestStream.of("b", "m2", 100, 50, 1, null),
                RequestStream.of("c", "m3", 50, 50, 1, null)), 4, 3, 16 * GIB));
        assertThat(bt(plan)).containsExactlyInAnyOrderEntriesOf(Map.of("a", 1.5, "b", 3.0, "c", 2.0));
    }

    @Test
    void affinitySetsKeepTheirModelsApart() {
        // n: a = 2 (set x), b = 1 (set y), c = 0.5 (set x); two models per device; N = 5, G = 4.
        // Without sets: {a,b} on 4, {c} on 1 -> min(4/2, 1/0.5) = 2 (bt a 2, b 4, c 2); every other
        //   grouping is lower: {a,c} {b}: 3 + 2 -> min(1.5, 2) = 1.5; {a} {b,c}: 3 + 2 -> 1.5; three groups: 1.
        // With sets a and b may not share a group, nor b and c:
        //   {a,c} {b}: 3 + 2 -> min(3/2, 2/1) = 1.5; 4 + 1 -> min(2, 1) = 1
        //   {a} {b} {c}: 3 + 1 + 1 -> min(1.5, 1, 2) = 1; 2 + 2 + 1 -> 1
        // so {a,c} on 3 devices, {b} on 2: bt a 1.5, c 6, b 2.
        List<RequestStream> streams = List.of(
                RequestStream.of("a", "m1", 200, 50, 1, "x"),
                RequestStream.of("b", "m2", 100, 50, 1, "y"),
                RequestStream.of("c", "m3", 50, 50, 1, "x"));
        HerdPlan withSets = SOLVER.solve(problem(streams, 5, 4, 16 * GIB));
        assertThat(withSets.groups()).extracting(HerdPlan.Group::models, HerdPlan.Group::devices).containsExactly(
                org.assertj.core.groups.Tuple.tuple(List.of("m1", "m3"), List.of(0, 1, 2)),
                org.assertj.core.groups.Tuple.tuple(List.of("m2"), List.of(3, 4)));
        assertThat(bt(withSets)).containsExactlyInAnyOrderEntriesOf(Map.of("a", 1.5, "b", 2.0, "c", 6.0));

        List<RequestStream> noSets = streams.stream().map(s -> RequestStream.of(s.name(), s.model(), s.ratePerSecond(), s.sloMs(), s.cv2(), null)).toList();
        HerdPlan without = SOLVER.solve(problem(noSets, 5, 4, 16 * GIB));
        assertThat(without.groups()).extracting(HerdPlan.Group::models, HerdPlan.Group::devices).containsExactly(
                org.assertj.core.groups.Tuple.tuple(List.of("m1", "m2"), List.of(0, 1, 2, 3)),
                org.assertj.core.groups.Tuple.tuple(List.of("m3"), List.of(4)));
        assertThat(without.minBurstTolerance()).isEqualTo(2.0);
    }

    @Test
    void tooLittleMemoryForTheClusterIsNamed() {
        // Three models of 8 GiB on devices of 12 GiB: no two share a device, so three groups; two devices make two.
        HerdPlan plan = SOLVER.solve(problem(List.of(
                RequestStream.of("a", "m1", 200, 50, 1, null),
                RequestStream.of("b", "m2", 100, 50, 1, null),
                RequestStream.of("c", "m3", 50, 50, 1, null)), 2, 2, 12 * GIB));
        assertThat(plan.feasible()).isFalse();
        assertThat(plan.infeasibility()).startsWith("infeasible: memory:").contains("3 models take 24576 MB").contains("12288 MB").contains("2 device(s)")
                .doesNotContain("\n");
    }

    @Test
    void tooManyAffinitySetsForTheClusterAreNamed() {
        // Memory unbounded: one group could hold all three models, but three sets need three groups; two devices make two.
        HerdPlan plan = SOLVER.solve(problem(List.of(
                RequestStream.of("a", "m1", 200, 50, 1, "x"),
                RequestStream.of("b", "m2", 100, 50, 1, "y"),
                RequestStream.of("c", "m3", 50, 50, 1, "z")), 2, 2, Long.MAX_VALUE));
        assertThat(plan.feasible()).isFalse();
        assertThat(plan.infeasibility()).startsWith("infeasible: affinity:").contains("{x=1, y=1, z=1}").contains("2 device(s)");
    }

    @Test
    void streamsOfOneModelShareItsGroupAndTheirNeedsAdd() {
        // a1 (n 2) and a2 (n 0.5) of m1 share a group and m1's queue: m1 needs 2.5. With memory
        // unbounded everything fits one group: N = 4, G = 4 -> size 4, bt a1 = a2 = 4/2.5 = 1.6, b = 4/1 = 4.
        HerdPlan plan = SOLVER.solve(problem(List.of(
                RequestStream.of("a1", "m1", 200, 50, 1, null),
                RequestStream.of("a2", "m1", 50, 50, 1, null),
                RequestStream.of("b", "m2", 100, 50, 1, null)), 4, 4, Long.MAX_VALUE));
        assertThat(plan.groups()).hasSize(1);
        assertThat(bt(plan)).containsExactlyInAnyOrderEntriesOf(Map.of("a1", 1.6, "a2", 1.6, "b", 4.0));
    }

    @Test
    void devicesBeyondEveryGroupsLimitAreLeftOver() {
        // One stream, G = 2, N = 5: the group takes 2, devices 2-4 are left to the default group.
        HerdPlan plan = SOLVER.solve(problem(List.of(RequestStream.of("a", "m1", 100, 50, 1, null)), 5, 2, 16 * GIB));
        assertThat(plan.groups().get(0).devices()).containsExactly(0, 1);
        assertThat(plan.leftover()).containsExactly(2, 3, 4);
        assertThat(plan.minBurstTolerance()).isEqualTo(2.0);
    }

    @Test
    void devicesTheObjectiveDoesNotNeedGoWhereTheLoadStandsLeastAboveItsMean() {
        // Grouping {big} {m1, m2} {m3}, n: big 2, m1 0.5, m2 0.5, m3 0.45; N = 8, G = 4; CV² 1.
        // Highest minimum: big is capped at 4 devices, t* = 4 / 2 = 2. The fewest devices for t* = 2:
        //   {big} ⌈2·2⌉ = 4, {m1,m2} ⌈2·0.5⌉ = 1, {m3} ⌈2·0.45⌉ = 1; 2 devices left.
        // Square-root staffing, (size - Σ n) / sqrt(Σ n·CV²): {m1,m2} (1 - 1) / 1 = 0 < {m3}
        // (1 - 0.45) / 0.671 = 0.82 -> 2 devices; then (2 - 1) / 1 = 1 > 0.82 -> {m3} 2 devices.
        // (By load alone, Σ n, they would have gone 3 and 1: 1/1 < 2/1 < 1/0.45.)
        HerdProblem p = problem(List.of(
                RequestStream.of("a", "big", 200, 50, 1, null),
                RequestStream.of("b", "m1", 50, 50, 1, null),
                RequestStream.of("c", "m2", 50, 50, 1, null),
                RequestStream.of("d", "m3", 45, 50, 1, null)), 8, 4, Long.MAX_VALUE);
        assertThat(p.models()).extracting(HerdProblem.Model::name).containsExactly("big", "m1", "m2", "m3");
        assertThat(HerdSolver.WaterFill.sizes(p, new int[]{0, 1, 1, 2}, 3)).containsExactly(4, 2, 2);
    }

    @Test
    void modelsAreSwappedBetweenGroupsUntilTheLeastStaffedGroupStandsHighest() {
        // n: big 1.2, m1 1.0, m2 0.8, m3 0.2 (T = 100/s); N = 6, G = 3, CV² 1; 20 GiB a device: any
        // two models fit (big is 10 GiB, the others 8), no three. Two groups of 3 reach the highest
        // minimum, 3 / 1.2 = 2.5 (three groups would need 3 + 3 + 2 devices), whichever two share:
        //   {big, m1} {m2, m3}: loads 2.2 and 1.0, staffing (3 - 2.2) / sqrt(2.2) = 0.54 and 2.0
        //   {big, m2} {m1, m3}: 2.0 and 1.2 -> 0.71 and 1.64
        //   {big, m3} {m1, m2}: 1.4 and 1.8 -> 1.35 and 0.89: the least staffed group stands highest.
        // From the first, moving a model makes a group of three (no memory); swapping big and m2 gives the third.
        HerdProblem p = problem(List.of(
                RequestStream.of("a", "big", 120, 50, 1, null),
                RequestStream.of("b", "m1", 100, 50, 1, null),
                RequestStream.of("c", "m2", 80, 50, 1, null),
                RequestStream.of("d", "m3", 20, 50, 1, null)), 6, 3, 20 * GIB);
        assertThat(p.models()).extracting(HerdProblem.Model::name).containsExactly("big", "m1", "m2", "m3");
        assertThat(HerdSolver.Balance.staffing(p, new int[]{0, 0, 1, 1}, 2, 2.5)).isCloseTo(0.8 / Math.sqrt(2.2), org.assertj.core.data.Offset.offset(1e-9));
        assertThat(HerdSolver.Balance.improve(p, new int[]{0, 0, 1, 1}, 2.5, System.nanoTime() + 10_000_000_000L)).containsExactly(1, 0, 0, 1);
        assertThat(HerdSolver.Balance.staffing(p, new int[]{1, 0, 0, 1}, 2, 2.5)).isCloseTo(1.2 / Math.sqrt(1.8), org.assertj.core.data.Offset.offset(1e-9));
        // A grouping below the minimum the ILP reached is no candidate: three groups cannot reach 2.5 on 6 devices.
        assertThat(HerdSolver.Balance.staffing(p, new int[]{0, 1, 2, 2}, 3, 2.5)).isEqualTo(Double.NEGATIVE_INFINITY);

        HerdPlan plan = SOLVER.solve(p);
        assertThat(plan.groups()).extracting(HerdPlan.Group::models, g -> g.devices().size())
                .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple(List.of("big", "m3"), 3), org.assertj.core.groups.Tuple.tuple(List.of("m1", "m2"), 3));
        assertThat(plan.minBurstTolerance()).isEqualTo(2.5);
    }

    @Test
    void overlappingGroupsAreRefused() {
        HerdPlan.Share share = new HerdPlan.Share("a", "m1", 1, 1, 1, 1);
        assertThatThrownBy(() -> new HerdPlan(List.of(
                new HerdPlan.Group("herd-1", List.of(0, 1), List.of("m1"), List.of(share)),
                new HerdPlan.Group("herd-2", List.of(1, 2), List.of("m2"), List.of(share))), "OPTIMAL", 1, 0, null, List.of()))
                .hasMessage("device 1 is in serving groups 'herd-1' and 'herd-2': groups' devices must be disjoint (a device runs one group's batches)");
    }

    @Test
    void largeProblemsKeepEveryConstraintAndNeverLoseToFirstFit() {
        // 40 models of 1 to 6 GiB on 16 GiB devices, rates heavy-tailed; N = 24, G = 8.
        Random random = new Random(7);
        StringBuilder json = new StringBuilder("{\"models\": [");
        for (int k = 0; k < 40; k++) {
            if (k > 0) json.append(',');
            json.append("{\"name\": \"k").append(k).append("\", \"input\": {\"dtype\": \"FLOAT32\", \"shape\": [1]}, \"batch_sizes\": [1], "
                    + "\"latency_ms\": {\"table\": {\"1\": 1}}, \"memory_bytes\": ").append((1 + random.nextInt(6)) * GIB).append('}');
        }
        ModelCatalog catalog = ModelCatalog.parse(json.append("]}").toString(), "large");
        List<RequestStream> streams = new java.util.ArrayList<>();
        for (int i = 0; i < 200; i++) {
            streams.add(RequestStream.of("s" + i, "k" + random.nextInt(40), 20 / Math.pow(random.nextDouble() + 0.01, 0.8), 50, 1,
                    random.nextInt(4) == 0 ? "tenant-" + random.nextInt(2) : null));
        }
        // A model's streams share a set: the first stream's set wins for the model.
        Map<String, String> setOf = new java.util.HashMap<>();
        streams.forEach(s -> setOf.putIfAbsent(s.model(), s.affinity() == null ? "" : s.affinity()));
        streams = streams.stream().map(s -> RequestStream.of(s.name(), s.model(), s.ratePerSecond(), 50, 1,
                setOf.get(s.model()).isEmpty() ? null : setOf.get(s.model()))).toList();
        HerdProblem p = HerdProblem.of(streams, catalog, 24, 8, 16 * GIB, s -> 100.0);
        HerdPlan plan = new HerdSolver(new HerdSolver.Settings(Duration.ofSeconds(5), "CP_SAT", 1)).solve(p);

        assertThat(plan.feasible()).isTrue();
        int devices = 0;
        for (HerdPlan.Group g : plan.groups()) {
            devices += g.devices().size();
            assertThat(g.devices().size()).isBetween(1, 8);
            long memory = g.models().stream().mapToLong(m -> catalog.get(m).memoryBytes()).sum();
            assertThat(memory).isLessThanOrEqualTo(16 * GIB);
            assertThat(g.models().stream().map(setOf::get).filter(s -> !s.isEmpty()).distinct().count()).isLessThanOrEqualTo(1);
        }
        assertThat(devices + plan.leftover().size()).isEqualTo(24);
        assertThat(plan.groups().stream().flatMap(g -> g.streams().stream()).count()).isEqualTo(200);
        int[] first = HerdSolver.FirstFit.groups(p, 24, true);
        HerdPlan firstFit = HerdSolver.plan(p, first, "FEASIBLE", Double.NaN, 0);
        assertThat(plan.minBurstTolerance()).isGreaterThanOrEqualTo(firstFit.minBurstTolerance());
        assertThat(plan.bound()).isGreaterThanOrEqualTo(plan.minBurstTolerance() - 1e-3);
    }

    static Map<String, Double> bt(HerdPlan plan) {
        Map<String, Double> out = new java.util.HashMap<>();
        plan.groups().forEach(g -> g.streams().forEach(s -> out.put(s.stream(), s.burstTolerance())));
        return out;
    }
}
