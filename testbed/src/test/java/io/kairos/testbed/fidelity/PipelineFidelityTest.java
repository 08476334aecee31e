package io.kairos.testbed.fidelity;

import io.kairos.core.model.ModelCatalog;
import io.kairos.core.pipeline.PipelineSpec;
import io.kairos.sim.pipeline.PipelineConfig;
import io.kairos.sim.pipeline.StageConfig;
import io.kairos.testbed.CliRun;
import io.kairos.testbed.experiment.ResultTable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** InferLine's Fig 9 harness: its pieces worked by hand, and the command end to end on a real broker and mini-cluster, kept short. */
class PipelineFidelityTest {

    static final ModelCatalog CATALOG = ModelCatalog.parse("""
            {"hardware": [{"name": "cpu", "price_per_hour": 1}],
             "models": [{"name": "a", "input": {"dtype": "FLOAT32", "shape": [3, 8, 8]}, "latency_ms": {"table": {"1": 9, "2": 12}}},
                        {"name": "b", "input": {"dtype": "UINT8", "shape": [2]}, "latency_ms": {"table": {"1": 2}}}]}""", "fig9-test");
    static final PipelineSpec CASCADE = PipelineSpec.parse("""
            {"pipeline": "c", "slo_p99_ms": 50, "stages": [{"name": "fast", "model": "a"}, {"name": "slow", "model": "b"}],
             "edges": [{"from": "fast", "to": "slow", "probability": 0.3, "when": {"output_max_below": 0.8}}]}""", "c");

    @Test
    void inputsAreCutToSixteenValuesAndConditionsBecomeTheirProbabilities() {
        ModelCatalog small = PipelineFidelity.smallInputs("""
                {"models": [{"name": "a", "input": {"dtype": "FLOAT32", "shape": [3, 8, 8]}, "latency_ms": {"table": {"1": 9}}}]}""", "t");
        assertThat(small.get("a").input().shape()).containsExactly(16L);
        assertThat(small.get("a").latency().latencyAt(0)).isEqualTo(9_000);
        PipelineSpec plain = PipelineFidelity.byProbability(CASCADE);
        assertThat(plain.edges()).hasSize(1);
        assertThat(plain.edges().get(0).condition()).isNull();
        assertThat(plain.edges().get(0).probability()).isEqualTo(0.3);
    }

    @Test
    void aSlowdownMultipliesEveryLinearProfileAndTheSlo() {
        // 0.5 ms a request and 2 ms a batch, four times slower: 2·b + 8 ms; at batch 2, 12 ms. The SLO of 50 ms: 200 ms.
        ModelCatalog slow = PipelineFidelity.slowed("""
                {"models": [{"name": "a", "input": {"dtype": "FLOAT32", "shape": [3]}, "latency_ms": {"alpha": 0.5, "beta": 2.0}, "batch_sizes": [1, 2]}]}""", "t", 4);
        assertThat(slow.get("a").latency().latencyAt(1)).isEqualTo(12_000);
        assertThat(PipelineFidelity.byProbability(CASCADE, 4).sloP99Micros()).isEqualTo(200_000);
    }

    @Test
    void theJobsSlotsAreTheMostAnyCaseNeedsOfEachType() {
        PipelineConfig three = PipelineConfig.of(CASCADE, CATALOG, Map.of("fast", new StageConfig("cpu", 1, 2), "slow", new StageConfig("cpu", 1, 1)));
        PipelineConfig two = three.with("fast", new StageConfig("cpu", 1, 1));
        assertThat(PipelineFidelity.deviceTypes(List.of(new PipelineFidelity.Case(CASCADE, "planned", three),
                new PipelineFidelity.Case(CASCADE, "bottleneck-1", two)))).isEqualTo("cpu:3");
    }

    @Test
    void theP99IsTheNearestRankAsTheEstimatorsAndTheShapeCheckJudgesBothWays() {
        // 200 latencies 1..200: the 198th smallest (⌈0.99·200⌉) is 198.
        long[] l = new long[200];
        for (int i = 0; i < l.length; i++) l[i] = 200 - i;
        assertThat(PipelineFidelity.p99(l)).isEqualTo(198);
        PipelineConfig c = PipelineConfig.of(CASCADE, CATALOG, Map.of("fast", new StageConfig("cpu", 1, 1), "slow", new StageConfig("cpu", 1, 1)));
        PipelineFidelity.Case k = new PipelineFidelity.Case(CASCADE, "planned", c);
        // Measured 40 ms, estimated 43 ms: within 10 % (7.5 %). Measured 60 ms (over the 50 ms SLO), estimated feasible: caught.
        var good = new PipelineFidelity.Row(k, 1, 100, 40_000, 43_000, 40_000, 0, true);
        var unsafe = new PipelineFidelity.Row(k, 1, 100, 60_000, 49_000, 45_000, 0, true);
        assertThat(good.gapRatio()).isEqualTo(0.075);
        assertThat(PipelineFidelity.shapeCheck(List.of(good))).allMatch(s -> s.endsWith("PASS"));
        assertThat(PipelineFidelity.shapeCheck(List.of(good, unsafe)).get(1)).endsWith("FAIL");
    }

    @Test
    void aShortRunComparesEachConfigurationInTheJobWithItsEstimate(@TempDir Path out) throws Exception {
        Path pipeline = Path.of("src/main/resources/inferline/tf-cascade.json");
        CliRun r = CliRun.lab("fidelity", "--pipeline", pipeline.toString(), "--rate", "50", "--duration", "3", "--warmup", "2", "--out", out.toString());
        assertThat(r.code()).as(r.err()).isZero();
        ResultTable csv = ResultTable.read(out.resolve("fig9-p99.csv"));
        // The planner's configuration and one replica fewer at its bottleneck.
        assertThat(csv.distinct("kind")).containsExactly("planned", "bottleneck-1");
        for (List<String> row : csv.rows()) {
            assertThat(Long.parseLong(row.get(csv.index("requests")))).isGreaterThan(100); // 50 requests/s for 3 s
            assertThat(row.get(csv.index("measured_p99_ms"))).isNotEqualTo("inf");
            // The overhead the warm-ups measured is part of the estimate: at least it, once per stage visit.
            assertThat(Double.parseDouble(row.get(csv.index("estimated_p99_ms"))))
                    .isGreaterThanOrEqualTo(Double.parseDouble(row.get(csv.index("estimated_p99_without_overhead_ms"))));
        }
        assertThat(Double.parseDouble(csv.rows().get(0).get(csv.index("hop_overhead_ms")))).isPositive();
        assertThat(out.resolve("fig9-p99.png")).isNotEmptyFile();
        assertThat(Files.readString(out.resolve("fig9-summary.md"))).contains("load average").contains("estimated within 10 %");
    }

    @Test
    void aBadRateIsOneLineAndExitTwo() {
        CliRun r = CliRun.lab("fidelity", "--pipeline", "src/main/resources/inferline/tf-cascade.json", "--rate", "0");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err().lines()).hasSize(1);
        assertThat(r.err()).contains("--rate must be a positive number");
    }
}
