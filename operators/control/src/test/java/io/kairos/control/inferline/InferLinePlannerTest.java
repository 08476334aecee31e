package io.kairos.control.inferline;

import io.kairos.core.model.ModelCatalog;
import io.kairos.core.pipeline.PipelineSpec;
import io.kairos.sim.pipeline.PipelineConfig;
import io.kairos.sim.pipeline.PipelineEstimator;
import io.kairos.sim.pipeline.StageConfig;
import io.kairos.workload.ArrivalTrace;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class InferLinePlannerTest {

    /**
     * cpu at 1 an hour, gpu at 3. Model a: cpu 9 / 12 ms at batch 1 / 2, gpu 4 / 5 ms. Model b:
     * cpu 2 / 3 ms, gpu 1 / 2 ms. Full-batch throughput of one replica: a on gpu 250/s at batch 1,
     * 400/s at 2; a on cpu 111.1/s and 166.7/s; b on gpu 1,000/s at either; b on cpu 500/s and 666.7/s.
     */
    static final ModelCatalog CATALOG = ModelCatalog.parse("""
            {"hardware": [{"name": "cpu", "price_per_hour": 1}, {"name": "gpu", "price_per_hour": 3}],
             "models": [
              {"name": "a", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 9, "2": 12}},
               "hardware_profiles": {"gpu": {"latency_ms": {"table": {"1": 4, "2": 5}}}}},
              {"name": "b", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 2, "2": 3}},
               "hardware_profiles": {"gpu": {"latency_ms": {"table": {"1": 1, "2": 2}}}}}
            ]}""", "planner-test");

    /** 500 bursts of three requests at one instant, 10 ms apart: 1,500 requests over 4.99 s, λ = 300.6/s. */
    static final ArrivalTrace BURSTS = bursts(500, 3, 10);

    static ArrivalTrace bursts(int bursts, int size, long periodMs) {
        long[] t = new long[bursts * size];
        for (int i = 0; i < t.length; i++) t[i] = (i / size) * periodMs * 1000;
        return ArrivalTrace.of(t);
    }

    static InferLinePlanner planner(PipelineSpec pipeline, long sloMicros) {
        PipelineEstimator estimator = new PipelineEstimator(CATALOG, pipeline, BURSTS, 1);
        return new InferLinePlanner(estimator, sloMicros, BURSTS.meanRatePerSecond());
    }

    static PipelineConfig config(PipelineSpec p, Map<String, StageConfig> stages) {
        return PipelineConfig.of(p, CATALOG, stages);
    }

    static final PipelineSpec ONE = PipelineSpec.parse("""
            {"pipeline": "one", "slo_p99_ms": 7, "stages": [{"name": "only", "model": "a"}]}""", "one");

    @Test
    void oneStageBatchesTwoOfEachBurstOnTwoReplicas() {
        // SLO 7 ms. Algorithm 1: a's fastest type is gpu (4 ms at batch 1; service time 4 < 7).
        //   1 replica: a burst runs 4, 8, 12 ms: two thirds miss. Bottleneck: the only stage.
        //   2 replicas: 4, 4, 8 ms: a third misses.
        //   3 replicas: 4, 4, 4 ms: feasible. Cost 3 x 3 = 9.
        // Algorithm 2, round 1, every move from Algorithm 1's configuration:
        //   cheaper hardware: cpu at batch 1 (9 ms > 7): replicas from floor(300.6 / 111.1) + 1 = 3
        //     to 8 (cost 8 < 9); 8 is tried first and every request misses: not kept.
        //   larger batch: gpu at 2 (400/s): replicas from floor(300.6 / 400) + 1 = 1 to 2 (cost 6).
        //     2: a burst's first two run as one batch of 2 (5 ms), the third alone on the other
        //     replica (4 ms): feasible. 1: [2] 0-5 ms, [1] 5-9 ms, a third misses. Cost 6.
        //   one replica fewer: gpu b1 x2, refused above. The round keeps the one saving: gpu b2 x2.
        // Round 2: cpu at batch 2 from 2 to 5 replicas: 5 runs a burst in 12 and 9 ms, all miss; no
        // larger size; one replica fewer refused. The plan: gpu, batch 2, 2 replicas, cost 6.
        InferLinePlanner planner = planner(ONE, 7_000);
        InferLinePlanner.Plan initial = planner.initial();
        assertThat(initial.feasible()).isTrue();
        assertThat(initial.config()).isEqualTo(config(ONE, Map.of("only", new StageConfig("gpu", 1, 3))));
        assertThat(initial.costPerHour()).isEqualTo(9);
        assertThat(initial.steps()).hasSize(3);

        InferLinePlanner.Plan plan = planner.plan();
        assertThat(plan.feasible()).isTrue();
        assertThat(plan.config()).isEqualTo(config(ONE, Map.of("only", new StageConfig("gpu", 2, 2))));
        assertThat(plan.costPerHour()).isEqualTo(6);
        assertThat(plan.estimate().p99Micros()).isEqualTo(5_000);
        assertThat(plan.steps().get(plan.steps().size() - 1).text()).startsWith("larger batch on 'only' -> gpu x2 b2: cost 6/h");
        // Estimated: Algorithm 1's 3 configurations; cpu b1 x3, x4, x6, x8 (upward by doubling
        // steps); gpu b2 x1, x2; cpu b2 x2, x3, x5. Each cpu one takes 9 ms or more alone, over the
        // SLO for every request: rejected without a simulation, so only 5 ran.
        assertThat(plan.estimates()).isEqualTo(12);
        assertThat(planner.estimator().simulations()).isEqualTo(5);
    }

    static final PipelineSpec CHAIN = PipelineSpec.parse("""
            {"pipeline": "chain", "slo_p99_ms": 11,
             "stages": [{"name": "first", "model": "a"}, {"name": "second", "model": "b"}],
             "edges": [{"from": "first", "to": "second", "probability": 1}]}""", "chain");

    @Test
    void twoStagesBatchTheFirstAndMoveTheSecondToTheCheaperHardware() {
        // SLO 11 ms. Algorithm 1: first on gpu (4 ms), second on gpu (1 ms); service time 5 < 11.
        //   first x1: 12 ms of work every 10 ms, the backlog grows: infeasible. Utilisations
        //     300.6 / 250 = 1.20 and 300.6 / 1,000 = 0.30: first is the bottleneck.
        //   first x2: first ends at t+4, t+4, t+8; second (one gpu replica) runs them 4-5, 5-6, 8-9:
        //     5, 6, 9 ms, feasible. Cost 2 x 3 + 1 x 3 = 9.
        // Algorithm 2, round 1, every move from Algorithm 1's configuration; first:
        //   cheaper hardware: cpu at batch 1, 3 to 5 replicas (cost below 6). With 5, all three end
        //     first at t+9 and second runs them 9-10, 10-11, 11-12: a third misses. Not kept.
        //   larger batch: gpu at 2, from 1 to 1 replica (cost 3 < 6): [2] t to t+5, [1] t+5 to t+9;
        //     second runs 5-6, 6-7 and 9-10: 6, 7, 10 ms, feasible: cost 6.
        //   one replica fewer: x1 at batch 1 runs 0-4, 4-8, 8-12: misses.
        // second, behind first at batch 1 x2 (ends t+4, t+4, t+8):
        //   cheaper hardware: cpu at batch 1 (2 ms, 500/s), 1 to 2 replicas: x1 runs 4-6, 6-8, 8-10:
        //     feasible, cost 7. The round keeps the cheapest, first at batch 2 (cost 6).
        // Round 2, second behind first at batch 2 x1 (ends t+5, t+5, t+9):
        //   cheaper hardware: cpu x1: 5-7, 7-9, 9-11: 7, 9, 11 ms, feasible (11 is within 11): cost 4.
        //   first's moves: as in round 3 below, none feasible. Kept: second on cpu x1, cost 4.
        // Round 3: second's larger batch, cpu at 2 x1, runs the pair at t+5 as one batch, 5-8, and the
        //   third 9-11: 8, 8, 11 ms, the same cost and the same P99 (11 ms): not kept. first to cpu at
        //   batch 2 (2 replicas, cost 2): [2] ends at t+12, [1] at t+9, and second then runs 9-11,
        //   12-14, 14-16: misses. Nothing else applies. Final cost 3 + 1 = 4, P99 11 ms.
        InferLinePlanner planner = planner(CHAIN, 11_000);
        InferLinePlanner.Plan initial = planner.initial();
        assertThat(initial.config()).isEqualTo(config(CHAIN, Map.of("first", new StageConfig("gpu", 1, 2), "second", new StageConfig("gpu", 1, 1))));
        assertThat(initial.estimate().p99Micros()).isEqualTo(9_000);
        assertThat(initial.steps().get(0).text()).contains("bottleneck 'first' (utilisation 1.202)");

        InferLinePlanner.Plan plan = planner.plan();
        assertThat(plan.config()).isEqualTo(config(CHAIN, Map.of("first", new StageConfig("gpu", 2, 1), "second", new StageConfig("cpu", 1, 1))));
        assertThat(plan.costPerHour()).isEqualTo(4);
        assertThat(plan.estimate().p99Micros()).isEqualTo(11_000);
        List<String> kept = plan.steps().subList(initial.steps().size(), plan.steps().size()).stream().map(s -> s.text().split(":")[0]).toList();
        assertThat(kept).containsExactly("larger batch on 'first' -> gpu x1 b2", "cheaper hardware on 'second' -> cpu x1 b1");
    }

    @Test
    void aLargerBatchAtTheSameCostLeavesTheNextStageTheSlackToMoveToTheCheaperHardware() {
        // The chain at SLO 9.5 ms. Algorithm 1 as above: first gpu b1 x2, second gpu b1 x1: 5, 6, 9 ms, cost 9.
        // Round 1, first:
        //   cheaper hardware: cpu takes 9 ms and b at least 1: 10 ms alone, over 9.5: rejected unsimulated.
        //   larger batch, gpu at 2, 1 to 2 replicas. x1: [2] t to t+5, [1] t+5 to t+9, second 5-6, 6-7,
        //     9-10: 10 ms misses a third. x2: [2] t to t+5 and [1] t to t+4 on the other replica, second
        //     4-5, 5-6, 6-7: 5, 6, 7 ms. The same cost with a P99 of 7 ms against 9.
        // second, behind first at b1 x2 (ends t+4, t+4, t+8): cpu x1 ends the third at 10, x2 at 10: misses.
        //   No move saves: the round keeps the larger batch at the same cost, P99 7 ms.
        // Round 2, second behind first b2 x2 (ends t+4, t+5, t+5):
        //   cheaper hardware: cpu at 1 (2 ms), 1 to 2 replicas. x1: 4-6, then 6-8, 8-10: misses. x2: 4-6,
        //     5-7, 6-8: 6, 7, 8 ms: cost 8, kept (the only saving).
        // Round 3: larger batch on second: cpu at 2 (3 ms), 1 to 2 replicas. x1: [1] 4-6, then [2] 6-9:
        //     6, 9, 9 ms, kept: cost 7.
        // Round 4: first x1 at batch 2 ends t+5 and t+9, second [2] 5-8 and [1] 9-11: misses. Nothing else.
        // Without the move that keeps the cost, first stays at batch 1 (ends t+4, t+4, t+8) and second on
        // cpu misses 10 ms with 1 or 2 replicas: the plan would stay at cost 9.
        InferLinePlanner.Plan plan = planner(CHAIN, 9_500).plan();
        assertThat(plan.config()).isEqualTo(config(CHAIN, Map.of("first", new StageConfig("gpu", 2, 2), "second", new StageConfig("cpu", 2, 1))));
        assertThat(plan.costPerHour()).isEqualTo(7);
        assertThat(plan.estimate().p99Micros()).isEqualTo(9_000);
        List<String> kept = plan.steps().stream().map(InferLinePlanner.Step::text).filter(t -> !t.startsWith("start")).map(t -> t.split(":")[0]).toList();
        assertThat(kept).containsExactly("larger batch on 'first' -> gpu x2 b2", "cheaper hardware on 'second' -> cpu x2 b1",
                "larger batch on 'second' -> cpu x1 b2");
    }

    @Test
    void anSloAtTheServiceTimeIsInfeasibleWithBothFigures() {
        // The fastest hardware takes 4 + 1 = 5 ms along the chain: an SLO of 5 ms is reached.
        InferLinePlanner.Plan plan = planner(CHAIN, 5_000).plan();
        assertThat(plan.feasible()).isFalse();
        assertThat(plan.config()).isNull();
        assertThat(plan.infeasibility()).isEqualTo("infeasible: pipeline 'chain' takes 5 ms on its longest path alone on the fastest hardware "
                + "(its service time), which reaches the SLO of 5 ms");
        assertThat(plan.estimates()).isZero();
    }

    @Test
    void theBottleneckWeighsEachStageByTheShareOfRequestsReachingIt() {
        // a -> b with probability 0.2: s = {a 1, b 0.2}. One gpu replica each at batch 1:
        // a: 1 x 300.6 / 250 = 1.202; b: 0.2 x 300.6 / 1,000 = 0.060: a is the bottleneck.
        PipelineSpec branch = PipelineSpec.parse("""
                {"pipeline": "branch", "slo_p99_ms": 50,
                 "stages": [{"name": "a", "model": "a"}, {"name": "b", "model": "b"}],
                 "edges": [{"from": "a", "to": "b", "probability": 0.2}]}""", "branch");
        InferLinePlanner planner = planner(branch, 50_000);
        PipelineConfig c = config(branch, Map.of("a", new StageConfig("gpu", 1, 1), "b", new StageConfig("gpu", 1, 1)));
        assertThat(planner.utilisation("a", c.stage("a"))).isCloseTo(1500 / 4.99 / 250, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(planner.utilisation("b", c.stage("b"))).isCloseTo(0.2 * 1500 / 4.99 / 1000, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(planner.bottleneck(c)).isEqualTo("a");
        // a on 30 replicas: 300.6 / 7,500 = 0.040, below b's 0.060: b is.
        assertThat(planner.bottleneck(c.with("a", new StageConfig("gpu", 1, 30)))).isEqualTo("b");
    }

    @Test
    void theMovesOfAlgorithmTwo() {
        InferLinePlanner planner = planner(CHAIN, 11_000);
        PipelineConfig c = config(CHAIN, Map.of("first", new StageConfig("gpu", 1, 3), "second", new StageConfig("cpu", 2, 1)));
        // gpu -> cpu at batch 1: from floor(300.6 / 111.1) + 1 = 3 replicas to 8, the most below the stage's cost of 9.
        assertThat(planner.range(InferLinePlanner.Move.CHEAPER_HARDWARE, "first", c)).isEqualTo(new InferLinePlanner.Range("cpu", 1, 3, 8));
        // batch 1 -> 2 on gpu: from floor(300.6 / 400) + 1 = 1 to 3, as many as now (kept at 3 only if the P99 falls).
        assertThat(planner.range(InferLinePlanner.Move.LARGER_BATCH, "first", c)).isEqualTo(new InferLinePlanner.Range("gpu", 2, 1, 3));
        assertThat(planner.range(InferLinePlanner.Move.FEWER_REPLICAS, "first", c)).isEqualTo(new InferLinePlanner.Range("gpu", 1, 2, 2));
        // second: nothing cheaper than cpu, no size above 2, one replica left.
        assertThat(planner.range(InferLinePlanner.Move.CHEAPER_HARDWARE, "second", c)).isNull();
        assertThat(planner.range(InferLinePlanner.Move.LARGER_BATCH, "second", c)).isNull();
        assertThat(planner.range(InferLinePlanner.Move.FEWER_REPLICAS, "second", c)).isNull();
        // first on cpu at batch 1 x2: a batch of 2 (166.7/s) needs floor(300.6 / 166.7) + 1 = 2 replicas at least, and has 2 now.
        assertThat(planner.range(InferLinePlanner.Move.LARGER_BATCH, "first", c.with("first", new StageConfig("cpu", 1, 2))))
                .isEqualTo(new InferLinePlanner.Range("cpu", 2, 2, 2));
        // ... and with 1 replica now, none: 2 would cost more.
        assertThat(planner.range(InferLinePlanner.Move.LARGER_BATCH, "first", c.with("first", new StageConfig("cpu", 1, 1)))).isNull();
    }
}
