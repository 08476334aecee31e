package io.kairos.testbed.experiment;

import io.kairos.core.model.ModelCatalog;
import io.kairos.core.pipeline.PipelineSpec;
import io.kairos.sim.pipeline.PipelineConfig;
import io.kairos.sim.pipeline.StageConfig;
import io.kairos.workload.ArrivalTrace;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.data.Offset.offset;

class InferLineSurgeTest {

    @Test
    void theSurgeRisesToItsTopHoldsAndFallsBack() {
        // 600 s at 100/s, 4 times at the top: the base to 120 s, a ramp to 400/s at 180 s (250/s
        // halfway, at 150 s), 400/s to 240 s, a ramp down to 100/s at 300 s (250/s at 270 s), then
        // the base. Mean: 100 x (1 + 3 x (0.1 + 0.1)) = 160/s: 120 x 100 + 60 x 250 + 60 x 400 +
        // 60 x 250 + 300 x 100 = 96,000 requests over 600 s.
        InferLineSurge.Surge s = new InferLineSurge.Surge(100, 4, 600);
        assertThat(s.rate(0)).isEqualTo(100);
        assertThat(s.rate(119.9)).isEqualTo(100);
        assertThat(s.rate(150)).isCloseTo(250, offset(1e-9));
        assertThat(s.rate(180)).isCloseTo(400, offset(1e-9));
        assertThat(s.rate(239.9)).isEqualTo(400);
        assertThat(s.rate(270)).isCloseTo(250, offset(1e-9));
        assertThat(s.rate(300)).isCloseTo(100, offset(1e-9));
        assertThat(s.rate(599)).isEqualTo(100);
        assertThat(s.meanRate()).isCloseTo(160, offset(1e-9));
        assertThat(s.plannedSeconds()).isCloseTo(120, offset(1e-9));
        assertThat(s.hold()[0]).isCloseTo(180, offset(1e-9));
        assertThat(s.hold()[1]).isCloseTo(240, offset(1e-9));
        double sum = 0;
        for (int i = 0; i < 600_000; i++) sum += s.rate((i + 0.5) / 1000);
        assertThat(sum / 600_000).isCloseTo(160, offset(1e-3));
    }

    @Test
    void aSurgeTraceHasTheShapesArrivals() {
        // Thinned Poisson at 160/s on average over 600 s: about 96,000 arrivals (sd about 310); the
        // first 120 s at 100/s about 12,000 (sd 110); and the top's 60 s at 400/s about 24,000.
        InferLineExperiment e = new InferLineExperiment(600, 1, 1, false, new java.io.PrintWriter(new java.io.StringWriter()));
        ArrivalTrace t = new InferLineSurge(e, ModelCatalog.parse(InferLineExperiment.resource("models.json"), "models"), 600).trace(1);
        assertThat(t.size()).isBetween(94_500, 97_500);
        assertThat(count(t, 0, 120)).isBetween(11_500, 12_500);
        assertThat(count(t, 180, 240)).isBetween(23_200, 24_800);
        assertThat(InferLineExperiment.peakRate(t, 1_000_000)).isBetween(400.0, 480.0);
    }

    private static int count(ArrivalTrace t, double from, double to) {
        int n = 0;
        for (int i = 0; i < t.size(); i++) if (t.at(i) >= from * 1e6 && t.at(i) < to * 1e6) n++;
        return n;
    }

    @Test
    void theCostPerHourIsTheReplicasHeldAtTheirPricesAveragedOverTheSeconds() {
        // image-processing: preprocess on the CPU (0.192 an hour), classify on the K80 (0.90).
        // Seconds 0-3: preprocess 1, 1, 2, 2; classify 4, 6, 6, 4. Each second's dollars per hour:
        // 0.192 + 3.6 = 3.792; 0.192 + 5.4 = 5.592; 0.384 + 5.4 = 5.784; 0.384 + 3.6 = 3.984.
        // All four: 19.152 / 4 = 4.788; seconds 1-2: (5.592 + 5.784) / 2 = 5.688.
        ModelCatalog catalog = ModelCatalog.parse(InferLineExperiment.resource("models.json"), "models");
        PipelineSpec pipeline = InferLineExperiment.pipeline("image-processing");
        PipelineConfig config = PipelineConfig.of(pipeline, catalog, Map.of("preprocess", new StageConfig("cpu", 1, 1), "classify", new StageConfig("gpu-k80", 2, 4)));
        Map<String, int[]> held = new LinkedHashMap<>();
        held.put("preprocess", new int[]{1, 1, 2, 2});
        held.put("classify", new int[]{4, 6, 6, 4});
        TunerReplay replay = new TunerReplay(catalog, pipeline);
        assertThat(replay.costPerHour(config, held, 0, 4)).isCloseTo(4.788, offset(1e-9));
        assertThat(replay.costPerHour(config, held, 1, 3)).isCloseTo(5.688, offset(1e-9));
        assertThatThrownBy(() -> replay.costPerHour(config, held, 2, 2)).hasMessageContaining("empty span");
    }

    @Test
    void theTargetAndTheShapeAreJudgedPerPipeline() {
        // A 100-s surge: planned part [0, 20), the top [30, 40), its last half [35, 40), after the
        // surge [50, 100), the last tenth [90, 100). InferLine's bins (middles 5, 15, ..., 95) cost 2
        // in the planned part, 8 at 35, at least 2.1 after the surge (at 85, within 10 % of 2; 2.4
        // in the last tenth): it follows the load. Over the trace it costs 2.0 an
        // hour and misses 0.1 %; CG-Peak 10.0 and 0.2 %: 5.00x at fewer misses, the target holds.
        ResultTable systems = new ResultTable(List.of("pipeline", "system", "seed", "mean_rate", "peak_rate", "sample_peak_rate", "requests", "cost_per_hour",
                "most_replicas", "p99_ms", "miss_rate", "configuration"));
        systems.add(List.of("tf-cascade", "InferLine", "1", "160", "450", "120", "16000", "2.0", "9", "90", "0.001", "-"));
        systems.add(List.of("tf-cascade", "CG-Peak", "1", "160", "450", "120", "16000", "10.0", "8", "90", "0.002", "-"));
        systems.add(List.of("tf-cascade", "CG-Peak (sample)", "1", "160", "450", "120", "16000", "3.0", "2", "900", "0.4", "-"));
        ResultTable timeline = new ResultTable(List.of("pipeline", "system", "seed", "time_s", "rate", "requests", "misses", "miss_rate", "replicas", "cost_per_hour"));
        double[] costs = {2, 2, 4, 8, 6, 3, 2.5, 2.2, 2.1, 2.4};
        for (int b = 0; b < costs.length; b++) {
            timeline.add(List.of("tf-cascade", "InferLine", "1", Integer.toString(10 * b + 5), "100", "1000", "0", "0", "3", Double.toString(costs[b])));
        }
        List<Experiment.Claim> claims = InferLineSurge.claims(systems, timeline, 100);
        assertThat(claims).hasSize(3);
        assertThat(claims.get(0).verdict()).isEqualTo(Experiment.Claim.Verdict.PASS);
        assertThat(claims.get(0).evidence()).isEqualTo("tf-cascade 2.00 -> 8.00 -> 2.10 (last tenth 2.40)");
        assertThat(claims.get(1).verdict()).isEqualTo(Experiment.Claim.Verdict.PASS);
        assertThat(claims.get(1).evidence()).isEqualTo("tf-cascade 5.00x (2.00 vs 10.00 an hour), misses 0.10 % vs 0.20 %");
        assertThat(claims.get(2).evidence()).isEqualTo("tf-cascade 40.00 %");
        // At 2.3 at least after the surge (15 % over the start): it has not come back down; and
        // CG-Peak at 9.9 is under 5 times InferLine's cost.
        ResultTable late = new ResultTable(timeline.columns());
        for (List<String> r : timeline.rows()) late.add(Double.parseDouble(r.get(3)) > 50 ? List.of("tf-cascade", "InferLine", "1", r.get(3), "100", "1000", "0", "0", "3", "2.3") : r);
        ResultTable dearer = new ResultTable(systems.columns());
        for (List<String> r : systems.rows()) dearer.add(r.get(1).equals("CG-Peak") ? List.of("tf-cascade", "CG-Peak", "1", "160", "450", "120", "16000", "9.9", "8", "90", "0.002", "-") : r);
        List<Experiment.Claim> failed = InferLineSurge.claims(dearer, late, 100);
        assertThat(failed.get(0).verdict()).isEqualTo(Experiment.Claim.Verdict.FAIL);
        assertThat(failed.get(1).verdict()).isEqualTo(Experiment.Claim.Verdict.FAIL);
        assertThat(failed.get(1).evidence()).endsWith("not in [tf-cascade]");
    }
}
