package io.kairos.testbed.experiment;

import io.kairos.core.model.ModelCatalog;
import io.kairos.sim.SimulationReport;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class BurstyAndAzureExperimentTest {

    @Test
    void burstyCapacityIsEightDevicesAtBatchSixteen() {
        // 8 devices x 16 requests / 14.7 ms.
        assertThat(BurstyExperiment.capacityPerSecond(ModelCatalog.builtIn())).isCloseTo(8 * 16 / 0.0147, within(0.01));
        BurstyExperiment e = new BurstyExperiment();
        assertThat(e.points()).hasSize(4 * 6);
        assertThat(e.defaults().policies()).containsExactly("clockwork", "flex", "kairos", "triton");
    }

    @Test
    void burstyHalfLoadIsServedAndTheRateIsTheShareOfCapacity() {
        SimulationReport r = new BurstyExperiment().setup(Experiment.Point.of(4, 0.5)).policy("kairos")
                .duration(6_000_000).warmup(1_000_000).seed(1).build().run();
        // 5 s measured at half of 8,707 requests/s: 21,769 expected; Gamma with CV^2 4 over 16 streams spreads it by about 1 %.
        assertThat(r.arrivals()).isBetween(20_500L, 23_000L);
        assertThat(r.sloAttainment()).as(r.toString()).isGreaterThan(0.999);
    }

    @Test
    void onAMeasuredProfileEveryTimeScalesByTheRatioAtTheLargestBatch() {
        // ResNet-50 taking 147 ms a batch of 16: ten times the V100 line's 14.7 ms.
        BurstyExperiment e = BurstyExperiment.onProfiles("bursty-measured", """
                {"models": [{"name": "resnet50", "input": {"dtype": "FLOAT32", "shape": [3, 224, 224]},
                  "batch_sizes": [1, 16], "latency_ms": {"table": {"1": 12.0, "16": 147.0}}}]}""", "test profiles");
        assertThat(e.name()).isEqualTo("bursty-measured");
        assertThat(e.sloMs()).isCloseTo(1000, within(1e-6));
        assertThat(e.defaults().durationSeconds()).isCloseTo(300, within(1e-6));
        assertThat(e.defaults().warmupSeconds()).isCloseTo(50, within(1e-6));
        assertThat(BurstyExperiment.capacityPerSecond(ModelCatalog.parse("""
                {"models": [{"name": "resnet50", "input": {"dtype": "FLOAT32", "shape": [3, 224, 224]},
                  "batch_sizes": [1, 16], "latency_ms": {"table": {"1": 12.0, "16": 147.0}}}]}""", "t"))).isCloseTo(8 * 16 / 0.147, within(0.01));
        // Half of that capacity (435.4/s) for 250 s measured: 108,844 expected, Poisson at CV^2 1.
        SimulationReport r = e.setup(Experiment.Point.of(1, 0.5)).policy("kairos")
                .duration(300_000_000).warmup(50_000_000).seed(1).build().run();
        assertThat(r.arrivals()).isBetween(107_000L, 110_700L);
        assertThat(r.sloAttainment()).as(r.toString()).isGreaterThan(0.99);
    }

    @Test
    void aProfilesFileWithoutResnet50IsNamed() {
        assertThatThrownBy(() -> BurstyExperiment.onProfiles("x", """
                {"models": [{"name": "mlp", "input": {"dtype": "FLOAT32", "shape": [64]}, "latency_ms": {"alpha": 1, "beta": 1}}]}""", "p.json"))
                .hasMessage("p.json: has no profile of 'resnet50'");
    }

    @Test
    void flexOverClockworkRatioIsFoundWhereItIsLargest() {
        ResultTable t = new ResultTable(List.of("cv2", "load", "policy", "goodput_per_s"));
        t.add(List.of("1", "0.5", "clockwork", "100"));
        t.add(List.of("1", "0.5", "flex", "100"));
        t.add(List.of("4", "1.2", "clockwork", "100"));
        t.add(List.of("4", "1.2", "flex", "250"));
        Experiment.Claim c = BurstyExperiment.ratioClaim(t, "flex", "clockwork", "s", 2.0);
        assertThat(c.verdict()).isEqualTo(Experiment.Claim.Verdict.PASS);
        assertThat(c.evidence()).isEqualTo("largest ratio 2.50x at CV^2 4, load 1.2");
        assertThat(BurstyExperiment.ratioClaim(t, "flex", "clockwork", "s", 18.1).verdict()).isEqualTo(Experiment.Claim.Verdict.FAIL);
    }

    @Test
    void azureServes4026InstancesFromTheTraceAtTheTargetRate() {
        assertThat(new AzureExperiment(AzureExperiment.Profiles.RESNET50).instances()).hasSize(4026)
                .startsWith("resnet50#0000").endsWith("resnet50#4025");
        AzureExperiment e = new AzureExperiment();
        // 61 models of the zoo, 66 copies each, in the catalog's order.
        assertThat(e.instances()).hasSize(4026).doesNotHaveDuplicates()
                .startsWith("resnet18_v1#0000", "resnet18_v1#0001").contains("resnet18_v1#0065", "resnet34_v1#0066").endsWith("darknet53#4025");
        assertThat(e.instances().stream().map(i -> i.substring(0, i.indexOf('#'))).distinct()).hasSize(61);
        // The held rate comes first: the busiest minute of the trace at 9,500/s needs more than the 12 devices (AzureDemand).
        assertThat(e.points()).extracting(p -> p.get(1)).endsWith("9500", "12000").hasSize(3);
        int held = Integer.parseInt(e.points().get(0).get(1));
        assertThat(held).isBetween(AzureExperiment.RATE_STEP, 9000);
        assertThat(e.demand(held).peakDevices()).isLessThanOrEqualTo(12.0);
        assertThat(e.demand(held + AzureExperiment.RATE_STEP).peakDevices()).isGreaterThan(12.0);
        assertThat(e.demand(9500).meanDevices()).isGreaterThan(12.0);
        // A simulated hour per measured run; the grids tuned on the trace's first 10 minutes, a
        // shorter run tuned on all of it; the other experiments tune on their whole duration.
        assertThat(e.defaults().tritonGrid()).isTrue();
        assertThat(e.defaults().durationSeconds()).isEqualTo(3600);
        assertThat(e.defaults().policies()).containsExactly("clockwork", "flex", "kairos", "triton", "work-conserving");
        assertThat(e.tuningSeconds(e.defaults())).isEqualTo(600);
        assertThat(e.tuningSeconds(Settings.of(120, 10, 1))).isEqualTo(120);
        BurstyExperiment bursty = new BurstyExperiment();
        assertThat(bursty.defaults().tritonGrid()).isTrue();
        assertThat(bursty.tuningSeconds(bursty.defaults())).isEqualTo(bursty.defaults().durationSeconds());
        SimulationReport r = e.setup(e.points().get(1)).policy("kairos").duration(3_000_000).warmup(1_000_000).seed(1).build().run();
        // 2 s measured; the trace's rate is 9,500/s over its hour, its first minutes a little below or above.
        assertThat(r.arrivals()).isBetween(14_000L, 24_000L);
        assertThat(r.devices()).isEqualTo(12);
    }
}
