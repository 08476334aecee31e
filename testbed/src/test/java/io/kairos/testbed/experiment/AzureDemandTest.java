package io.kairos.testbed.experiment;

import io.kairos.core.model.LatencyProfile;
import io.kairos.core.model.ModelCatalog;
import io.kairos.workload.AzureTrace;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class AzureDemandTest {
    /** ResNet50's line, 0.8 b + 1.9 ms: 2.7, 3.5, 5.1, 8.3 and 14.7 ms at 1, 2, 4, 8, 16. */
    private static final LatencyProfile RESNET50 = LatencyProfile.linear(0.8, 1.9, 1, 2, 4, 8, 16);

    @Test
    void anInstanceBatchesWhatArrivesBeforeItsOldestRequestMustStart() {
        assertThat(AzureDemand.devicesFor(0, RESNET50, 100)).isZero();
        // 5/s: a batch of 2 would need 1 + 5 x 0.0965 s = 1.48 requests in its window; batches of 1, 2.7 ms each.
        assertThat(AzureDemand.devicesFor(5, RESNET50, 100)).isCloseTo(5 * 0.0027, within(1e-12));
        // 100/s: 16 needs 1 + 100 x 0.0853 = 9.53, too few; 8 needs 1 + 100 x 0.0917 = 10.17: batches of 8, 8.3 ms each.
        assertThat(AzureDemand.devicesFor(100, RESNET50, 100)).isCloseTo(100 * 0.0083 / 8, within(1e-12));
        assertThat(AzureDemand.devicesFor(1000, RESNET50, 100)).isCloseTo(1000 * 0.0147 / 16, within(1e-12));
        // An SLO shorter than a batch of 2 leaves batches of 1.
        assertThat(AzureDemand.devicesFor(1000, RESNET50, 3)).isCloseTo(1000 * 0.0027, within(1e-12));
    }

    @Test
    void theDemandIsSummedOverInstancesMinuteByMinute() {
        List<AzureTrace.Function> functions = List.of(new AzureTrace.Function("o", "a", "f0", "http"), new AzureTrace.Function("o", "a", "f1", "http"),
                new AzureTrace.Function("o", "a", "f2", "http"));
        // Functions 0 and 2 both map to instance 0 (f mod 2): 100/s together in minute 0; function 1 gives instance 1 5/s in both.
        int[][] counts = {{3000, 0}, {300, 300}, {3000, 0}};
        AzureTrace trace = AzureTrace.of(functions, counts, 2);
        List<String> instances = List.of(ModelCatalog.instanceName("resnet50", 0), ModelCatalog.instanceName("resnet50", 1));
        int[][] perInstance = trace.instanceCounts(2, 0, 2);
        assertThat(perInstance).isEqualTo(new int[][]{{6000, 0}, {300, 300}});
        AzureDemand d = AzureDemand.of(perInstance, instances, ModelCatalog.builtIn(), 100, 1, 0);
        double minute0 = 100 * 0.0083 / 8 + 5 * 0.0027;
        double minute1 = 5 * 0.0027;
        assertThat(d.peakDevices()).isCloseTo(minute0, within(1e-12));
        assertThat(d.peakMinute()).isZero();
        assertThat(d.meanDevices()).isCloseTo((minute0 + minute1) / 2, within(1e-12));
        // Twice the rate: instance 0 at 200/s batches 16 (1 + 200 x 0.0853 = 18.06).
        AzureDemand twice = AzureDemand.of(perInstance, instances, ModelCatalog.builtIn(), 100, 2, 0);
        assertThat(twice.peakDevices()).isCloseTo(200 * 0.0147 / 16 + 10 * 0.0027, within(1e-12));
    }
}
