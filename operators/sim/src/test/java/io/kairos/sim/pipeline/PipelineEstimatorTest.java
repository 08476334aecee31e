package io.kairos.sim.pipeline;

import io.kairos.core.device.ExecutionNoise;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.pipeline.PipelineSpec;
import io.kairos.sim.Delay;
import io.kairos.workload.ArrivalProcess;
import io.kairos.workload.ArrivalTrace;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Map;
import java.util.PriorityQueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PipelineEstimatorTest {

    /**
     * Two priced types. Model a: cpu 9 / 12 ms at batch 1 / 2, gpu 4 / 5 ms. Model b: cpu 2 / 3 ms,
     * gpu 1 / 2 ms.
     */
    static final ModelCatalog CATALOG = ModelCatalog.parse("""
            {"hardware": [{"name": "cpu", "price_per_hour": 1}, {"name": "gpu", "price_per_hour": 3}],
             "models": [
              {"name": "a", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 9, "2": 12}},
               "hardware_profiles": {"gpu": {"latency_ms": {"table": {"1": 4, "2": 5}}}}},
              {"name": "b", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 2, "2": 3}},
               "hardware_profiles": {"gpu": {"latency_ms": {"table": {"1": 1, "2": 2}}}}}
            ]}""", "estimator-test");

    static final PipelineSpec CHAIN = PipelineSpec.parse("""
            {"pipeline": "chain", "slo_p99_ms": 10,
             "stages": [{"name": "first", "model": "a"}, {"name": "second", "model": "b"}],
             "edges": [{"from": "first", "to": "second", "probability": 1}]}""", "chain");

    /** {@code bursts} bursts of {@code size} requests at the same instant, {@code periodMs} apart. */
    static ArrivalTrace bursts(int bursts, int size, long periodMs) {
        long[] t = new long[bursts * size];
        for (int i = 0; i < t.length; i++) t[i] = (i / size) * periodMs * 1000;
        return ArrivalTrace.of(t);
    }

    static PipelineConfig config(PipelineSpec p, Map<String, StageConfig> stages) {
        return PipelineConfig.of(p, CATALOG, stages);
    }

    @Test
    void burstsOfThreeThroughTwoStagesTakeTheLatenciesWorkedOutByHand() {
        // first: 2 gpu replicas at batch 1 (4 ms). A burst of three at t: two start at t and end at
        // t+4, the third starts at t+4 and ends at t+8; the replicas are free again long before t+10.
        // second: 1 cpu replica at batch 1 (2 ms): the two arriving at t+4 run 4-6 and 6-8, the one
        // arriving at t+8 runs 8-10. End to end: 6, 8, 10 ms in every burst.
        PipelineEstimator estimator = new PipelineEstimator(CATALOG, CHAIN, bursts(100, 3, 10), 1);
        PipelineConfig c = config(CHAIN, Map.of("first", new StageConfig("gpu", 1, 2), "second", new StageConfig("cpu", 1, 1)));
        PipelineEstimate e = estimator.estimateAll(c, 10_000);
        int[] sorted = e.latenciesMicros().clone();
        Arrays.sort(sorted);
        assertThat(sorted).hasSize(300);
        assertThat(Arrays.stream(sorted).distinct().toArray()).containsExactly(6_000, 8_000, 10_000);
        assertThat(Arrays.stream(sorted).filter(l -> l == 10_000).count()).isEqualTo(100);
        // 10 ms is not over a 10 ms SLO; the P99 is the 297th smallest of 300: 10 ms.
        assertThat(e.feasible()).isTrue();
        assertThat(e.misses()).isZero();
        assertThat(e.p99Micros()).isEqualTo(10_000);
        // Against 9.999 ms the third of every burst misses: 100 misses, 3 allowed (300 - 297).
        PipelineEstimate tight = estimator.estimateAll(c, 9_999);
        assertThat(tight.misses()).isEqualTo(100);
        assertThat(tight.allowedMisses()).isEqualTo(3);
        assertThat(tight.feasible()).isFalse();
        assertThat(tight.p99Micros()).isEqualTo(10_000);
    }

    @Test
    void aHopOverheadIsAddedBeforeEveryStageARequestVisits() {
        // The bursts of three above with 1 ms before each stage. first: the burst reaches it at t+1,
        // two run 1-5, the third 5-9. second: the two reach it at t+6 and run 6-8 and 8-10, the third
        // at t+10 and runs 10-12. End to end: 8, 10, 12 ms, each 2 ms (two stages) over the plain run.
        PipelineEstimator estimator = new PipelineEstimator(CATALOG, CHAIN, bursts(100, 3, 20), 1, 1_000);
        PipelineConfig c = config(CHAIN, Map.of("first", new StageConfig("gpu", 1, 2), "second", new StageConfig("cpu", 1, 1)));
        PipelineEstimate e = estimator.estimateAll(c, 12_000);
        assertThat(Arrays.stream(e.latenciesMicros()).distinct().sorted().toArray()).containsExactly(8_000, 10_000, 12_000);
        assertThat(e.p99Micros()).isEqualTo(12_000);
        assertThat(e.feasible()).isTrue();
        // Against the plain run's 10 ms the third of every burst misses, and the early stop says so.
        assertThat(estimator.estimate(c, 10_000).feasible()).isFalse();
        // Alone on gpus, 4 + 1 ms of batches and 2 ms of overhead: over a 6.999 ms SLO without a simulation.
        PipelineEstimate alone = estimator.estimate(config(CHAIN, Map.of("first", new StageConfig("gpu", 1, 3), "second", new StageConfig("gpu", 1, 3))), 6_999);
        assertThat(alone.feasible()).isFalse();
        assertThat(alone.misses()).isEqualTo(300);
        assertThat(alone.simulatedRequests()).isZero();
        assertThatThrownBy(() -> new PipelineEstimator(CATALOG, CHAIN, bursts(1, 1, 1), 1, -1)).hasMessageContaining("hop overhead must not be negative");
    }

    @Test
    void aCalibratedJobAddsItsHandOverAndOverrunInsideEveryStage() {
        // One request every 50 ms, so nothing queues. Ideal: first on a gpu at batch 1 (4 ms), then
        // second on a cpu (2 ms): 6 ms. The job as calibrated: 1 ms between stages, each batch
        // reaching its device 3 ms after its dispatch and running 2 ms over its profile. first: at
        // t+1, on its device at t+4, ends at t+4+6 = t+10; second: at t+11, on its device at t+14,
        // ends at t+14+4 = t+18. End to end 18 ms, the 12 ms over the ideal run all unseen by the
        // stages' schedulers.
        PipelineConfig c = config(CHAIN, Map.of("first", new StageConfig("gpu", 1, 1), "second", new StageConfig("cpu", 1, 1)));
        ArrivalTrace trace = bursts(40, 1, 50);
        PipelineEstimate ideal = new PipelineEstimator(CATALOG, CHAIN, trace, 1).estimateAll(c, 50_000);
        assertThat(Arrays.stream(ideal.latenciesMicros()).distinct().toArray()).containsExactly(6_000);
        JobCalibration job = new JobCalibration(1_000, Delay.constant(3_000), ExecutionNoise.overrun(new long[] {2_000}));
        PipelineEstimate calibrated = new PipelineEstimator(CATALOG, CHAIN, trace, 1, job).estimateAll(c, 50_000);
        assertThat(Arrays.stream(calibrated.latenciesMicros()).distinct().toArray()).containsExactly(18_000);
        assertThat(calibrated.p99Micros()).isEqualTo(18_000);
        // Against a 17.999 ms SLO the calibrated job misses every request where the ideal one meets all.
        assertThat(new PipelineEstimator(CATALOG, CHAIN, trace, 1, job).estimate(c, 17_999).feasible()).isFalse();
        assertThat(new PipelineEstimator(CATALOG, CHAIN, trace, 1).estimate(c, 17_999).feasible()).isTrue();
        // The plain constructor is the ideal job.
        assertThat(new PipelineEstimator(CATALOG, CHAIN, trace, 1, JobCalibration.NONE).estimateAll(c, 50_000).latenciesMicros())
                .isEqualTo(ideal.latenciesMicros());
    }

    @Test
    void aLargerBatchTakesTwoOfABurstAtOnce() {
        // One gpu replica of a at max batch 2: a burst of three at t runs as [2] from t to t+5 and
        // [1] from t+5 to t+9. Latencies 5, 5, 9 in each burst.
        PipelineSpec one = PipelineSpec.parse("""
                {"pipeline": "one", "slo_p99_ms": 10, "stages": [{"name": "only", "model": "a"}]}""", "one");
        PipelineEstimator estimator = new PipelineEstimator(CATALOG, one, bursts(50, 3, 10), 1);
        PipelineEstimate e = estimator.estimateAll(config(one, Map.of("only", new StageConfig("gpu", 2, 1))), 10_000);
        int[] sorted = e.latenciesMicros().clone();
        Arrays.sort(sorted);
        assertThat(sorted[0]).isEqualTo(5_000);
        assertThat(sorted[99]).isEqualTo(5_000);
        assertThat(sorted[100]).isEqualTo(9_000);
        assertThat(sorted[149]).isEqualTo(9_000);
    }

    @Test
    void anOverloadedConfigurationStopsOnceTheP99IsLostAndItsStageRunsAreReused() {
        // One gpu replica of a at batch 1 takes 12 ms per burst of three arriving every 10 ms: the
        // backlog grows 2 ms a burst and almost every request misses a 10 ms SLO.
        PipelineEstimator estimator = new PipelineEstimator(CATALOG, CHAIN, bursts(2_000, 3, 10), 1);
        PipelineConfig overloaded = config(CHAIN, Map.of("first", new StageConfig("gpu", 1, 1), "second", new StageConfig("gpu", 1, 1)));
        PipelineEstimate e = estimator.estimate(overloaded, 10_000);
        assertThat(e.complete()).isFalse();
        assertThat(e.feasible()).isFalse();
        assertThat(e.misses()).isGreaterThan(e.allowedMisses());
        assertThat(e.allowedMisses()).isEqualTo(60);
        // It stopped in the first stage, a small part of the 6,000 requests in.
        assertThat(e.simulatedRequests()).isLessThan(1_000);

        // On cpu, a takes 9 ms and b 2 ms: 11 ms alone, over 10 ms for every request, known without a simulation.
        PipelineEstimate slow = estimator.estimate(config(CHAIN, Map.of("first", new StageConfig("cpu", 1, 9), "second", new StageConfig("cpu", 1, 9))), 10_000);
        assertThat(slow.feasible()).isFalse();
        assertThat(slow.misses()).isEqualTo(6_000);
        assertThat(slow.simulatedRequests()).isZero();

        // A feasible configuration simulates both stages; a change to the second stage only re-runs it.
        PipelineConfig good = config(CHAIN, Map.of("first", new StageConfig("gpu", 1, 2), "second", new StageConfig("cpu", 1, 1)));
        assertThat(estimator.estimate(good, 10_000).simulatedRequests()).isEqualTo(12_000);
        PipelineEstimate second = estimator.estimate(good.with("second", new StageConfig("cpu", 1, 2)), 10_000);
        assertThat(second.simulatedRequests()).isEqualTo(6_000);
        // Two cpu replicas in the second stage: the pair at t+4 both end at t+6, the third t+8 to t+10.
        assertThat(second.p99Micros()).isEqualTo(10_000);
        assertThat(estimator.estimate(good, 10_000).simulatedRequests()).isZero();
    }

    /** a -> b with probability 0.3; the rest of the requests end at a. */
    private static final PipelineSpec BRANCH = PipelineSpec.parse("""
            {"pipeline": "branch", "slo_p99_ms": 50,
             "stages": [{"name": "a", "model": "a"}, {"name": "b", "model": "b"}],
             "edges": [{"from": "a", "to": "b", "probability": 0.3}]}""", "branch");

    @Test
    void eachRequestTakesOnePathByTheEdgesProbabilities() {
        // a -> b with 0.3, the rest ends at a: about 30 % of the requests visit b.
        PipelineSpec branch = BRANCH;
        ArrivalTrace trace = ArrivalTrace.generate(ArrivalProcess.fixedRate(100), 200_000_000, 1);
        PipelineEstimator estimator = new PipelineEstimator(CATALOG, branch, trace, 7);
        // Fixed gaps of 10 ms from time 0: arrivals at 10, 20, ... 199,990 ms.
        assertThat(estimator.requests()).isEqualTo(19_999);
        assertThat(estimator.visitors("a")).isEqualTo(19_999);
        assertThat(estimator.visitors("b")).isBetween(5_800, 6_200);
        // Every 10 ms, one request: never a queue. Those ending at a take 4 ms, those through b 4 + 1.
        PipelineEstimate e = estimator.estimateAll(config(branch, Map.of("a", new StageConfig("gpu", 1, 1), "b", new StageConfig("gpu", 1, 1))), 50_000);
        long viaB = Arrays.stream(e.latenciesMicros()).filter(l -> l == 5_000).count();
        assertThat(viaB).isEqualTo(estimator.visitors("b"));
        assertThat(Arrays.stream(e.latenciesMicros()).filter(l -> l == 4_000).count()).isEqualTo(19_999 - viaB);
        // The same seed draws the same paths.
        assertThat(new PipelineEstimator(CATALOG, branch, trace, 7).visitors("b")).isEqualTo(estimator.visitors("b"));
    }

    @Test
    void givenTheRequestsIdsEachPathIsTheOneTheJobDraws() {
        // The same branch; the i-th request sent as "m0-<i>": it visits b exactly when the job's
        // draw for that id after stage a is below 0.3, whatever the seed.
        PipelineSpec branch = BRANCH;
        ArrivalTrace trace = ArrivalTrace.generate(ArrivalProcess.fixedRate(100), 20_000_000, 1);
        long viaB = java.util.stream.IntStream.range(0, trace.size()).filter(i -> PipelineSpec.draw("m0-" + i, "a") < 0.3).count();
        for (long seed : new long[] {1, 7}) {
            PipelineEstimator asTheJob = new PipelineEstimator(CATALOG, branch, trace, seed, JobCalibration.NONE, i -> "m0-" + i);
            assertThat(asTheJob.visitors("b")).isEqualTo((int) viaB);
            PipelineEstimate e = asTheJob.estimateAll(config(branch, Map.of("a", new StageConfig("gpu", 1, 1), "b", new StageConfig("gpu", 1, 1))), 50_000);
            for (int i = 0; i < trace.size(); i++) {
                long expected = PipelineSpec.draw("m0-" + i, "a") < 0.3 ? 5_000 : 4_000; // through b: 4 + 1 ms; else a's 4 ms alone
                assertThat(e.latenciesMicros()[i]).as("request %d", i).isEqualTo(expected);
            }
        }
    }

    @Test
    void batchOneLatenciesMatchAFirstComeFirstServedQueueOnAnyReplicas() {
        // The property on a larger case: with a max batch of 1, each request starts when it has
        // arrived and a replica is free, in arrival order, so its end is max(arrival, earliest
        // free) + tau(1). Poisson arrivals at 80 % of 3 cpu replicas of a (9 ms).
        PipelineSpec one = PipelineSpec.parse("""
                {"pipeline": "one", "slo_p99_ms": 100, "stages": [{"name": "only", "model": "a"}]}""", "one");
        ArrivalTrace trace = ArrivalTrace.generate(ArrivalProcess.poisson(0.8 * 3 / 0.009), 60_000_000, 3);
        PipelineEstimator estimator = new PipelineEstimator(CATALOG, one, trace, 1);
        PipelineEstimate e = estimator.estimateAll(config(one, Map.of("only", new StageConfig("cpu", 1, 3))), 100_000);
        PriorityQueue<Long> free = new PriorityQueue<>();
        for (int i = 0; i < 3; i++) free.add(0L);
        for (int i = 0; i < trace.size(); i++) {
            long start = Math.max(trace.at(i), free.poll());
            free.add(start + 9_000);
            assertThat(e.latenciesMicros()[i]).as("request %d", i).isEqualTo(start + 9_000 - trace.at(i));
        }
    }

    @Test
    void theSelectionFindsWhatASortFinds() {
        java.util.SplittableRandom random = new java.util.SplittableRandom(9);
        for (int round = 0; round < 200; round++) {
            int n = 1 + random.nextInt(300);
            int[] v = new int[n];
            int range = 1 + random.nextInt(round % 2 == 0 ? 5 : 1_000_000); // many repeats, or few
            for (int i = 0; i < n; i++) v[i] = random.nextInt(range);
            int[] sorted = v.clone();
            Arrays.sort(sorted);
            int k = random.nextInt(n);
            assertThat(PipelineEstimator.kthSmallest(v.clone(), k)).as("round %d", round).isEqualTo(sorted[k]);
        }
        assertThat(PipelineEstimator.kthSmallest(new int[]{7, 7, 7, 7}, 2)).isEqualTo(7);
    }

    @Test
    void aConfigurationMustFitTheCatalog() {
        assertThatThrownBy(() -> config(CHAIN, Map.of("first", new StageConfig("gpu", 4, 1), "second", new StageConfig("cpu", 1, 1))))
                .hasMessage("stage 'first': max batch 4 is not one of model 'a''s batch sizes [1, 2]");
        assertThatThrownBy(() -> config(CHAIN, Map.of("first", new StageConfig("tpu", 1, 1), "second", new StageConfig("cpu", 1, 1))))
                .hasMessage("stage 'first': the catalog has no hardware type 'tpu'");
        assertThatThrownBy(() -> config(CHAIN, Map.of("first", new StageConfig("gpu", 1, 1))))
                .hasMessage("pipeline 'chain': stage 'second' has no configuration");
    }

    @Test
    void costIsReplicasTimesTheirTypesPrice() {
        PipelineConfig c = config(CHAIN, Map.of("first", new StageConfig("gpu", 1, 2), "second", new StageConfig("cpu", 2, 3)));
        assertThat(c.costPerHour(CATALOG)).isEqualTo(2 * 3 + 3 * 1);
        assertThat(c.devicesByType()).containsExactly(Map.entry("cpu", 3), Map.entry("gpu", 2));
    }
}
