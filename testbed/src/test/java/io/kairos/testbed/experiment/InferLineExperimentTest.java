package io.kairos.testbed.experiment;

import io.kairos.core.model.ModelCatalog;
import io.kairos.core.pipeline.PipelineSpec;
import io.kairos.sim.pipeline.PipelineConfig;
import io.kairos.sim.pipeline.StageConfig;
import io.kairos.workload.ArrivalTrace;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class InferLineExperimentTest {

    @Test
    void theCoarseGrainedUnitTakesEachStagesShareOfTheSlo() {
        // video-monitoring at 300 ms, each stage on its fastest type: yolo on the V100 (18 ms at batch 1),
        // vehicle-id V100 (2.7), person-id V100 (2.5), openalpr on the K80 (10). Longest path detect ->
        // vehicle -> plate: 30.7 ms. Shares of 300 ms: detect 175.9 ms -> 3b + 15 <= 175.9, b16 (63 ms,
        // 254/s); vehicle 26.4 -> 0.8b + 1.9, b16 (14.7 ms, 1,088/s); person 24.4 -> 0.5b + 2, b32 (18 ms,
        // 1,778/s); plate 97.7 -> 2b + 8, b16 (40 ms, 400/s). Units for 150/s: max(150/254, 0.5 x 150/1,088,
        // 0.3 x 150/1,778, 0.3 x 150/400) = 0.59 -> 1; for 300/s 1.18 -> 2. A unit costs 3 x 3.06 + 0.90 = 10.08.
        InferLineExperiment e = new InferLineExperiment(10, 1, 1, false, new PrintWriter(new StringWriter()));
        PipelineSpec video = InferLineExperiment.pipeline("video-monitoring");
        ModelCatalog catalog = ModelCatalog.parse(InferLineExperiment.resource("models.json"), "models");
        PipelineConfig unit = PipelineConfig.of(video, catalog, Map.of("detect", new StageConfig("gpu-v100", 16, 1),
                "vehicle", new StageConfig("gpu-v100", 16, 1), "person", new StageConfig("gpu-v100", 32, 1), "plate", new StageConfig("gpu-k80", 16, 1)));
        assertThat(e.coarseGrained(video, 300_000, 150)).isEqualTo(unit);
        assertThat(unit.costPerHour(catalog)).isCloseTo(10.08, org.assertj.core.data.Offset.offset(1e-9));
        PipelineConfig two = e.coarseGrained(video, 300_000, 300);
        assertThat(two.stages().values()).allMatch(c -> c.replicas() == 2);
    }

    @Test
    void thePeakRateIsTheMostArrivalsInAnyWindow() {
        // 0, 0.5 and 0.9 s fall in one second; 1.2 and 1.4 s in another with 0.5 and 0.9: 4 at most (0.5, 0.9, 1.2, 1.4).
        ArrivalTrace t = ArrivalTrace.of(0, 500_000, 900_000, 1_200_000, 1_400_000, 3_000_000);
        assertThat(InferLineExperiment.peakRate(t, 1_000_000)).isEqualTo(4.0);
    }

    @Test
    void aShortRunWritesThePlansTheBaselinesTheFiguresAndTheShapes(@TempDir Path dir) throws Exception {
        StringWriter out = new StringWriter();
        new InferLineExperiment(5, 1, 2, false, new PrintWriter(out, true)).run(dir);
        // 4 pipelines x (5 SLOs + 4 CV²s + 5 rates), and 3 systems per pipeline.
        assertThat(Files.readAllLines(dir.resolve(InferLineExperiment.PLANS_CSV))).hasSize(1 + 4 * 14);
        assertThat(Files.readAllLines(dir.resolve(InferLineExperiment.BASELINES_CSV))).hasSize(1 + 4 * 3);
        for (String png : new String[]{"fig10-slo.png", "fig10-cv2.png", "fig10-rate.png", "baselines-cost.png", "baselines-misses.png"}) {
            assertThat(Files.size(dir.resolve(png))).isGreaterThan(1000);
        }
        String summary = Files.readString(dir.resolve(InferLineExperiment.SUMMARY));
        assertThat(summary).contains("| video-monitoring | 300 |").contains("## The paper's shapes");
        assertThat(summary.lines().filter(l -> l.matches("- (PASS|FAIL)  .*"))).hasSize(5);
    }
}
