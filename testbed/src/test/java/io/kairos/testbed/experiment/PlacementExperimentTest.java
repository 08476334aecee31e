package io.kairos.testbed.experiment;

import io.kairos.core.model.ModelCatalog;
import io.kairos.core.scheduling.AutoPlacement;
import io.kairos.core.scheduling.ColocationPlacement;
import io.kairos.core.scheduling.Placements;
import io.kairos.core.scheduling.RegistryPlacement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class PlacementExperimentTest {
    private static final long S = 1_000_000;

    /**
     * 10 sequential t5-small requests on 8 idle devices. The thesis' default, model-unaware (8
     * replicas under names of their own, the requests routed to them in turn, one per device): the first 8 load (3 + 1 s), the
     * last 2 are warm (1 s): 8 cold starts, 34 s. With colocation the first loads, the 9 others
     * find it warm: 1 cold start, 4 + 9 = 13 s. Kairos' default sends no batch to a cold device
     * while another holds the model: the same latencies. Its load planner reads the client's rate
     * (a second of work a second: a whole device) as demand for more copies and loads two beside
     * (on devices 1 and 2, from 4 s and 6 s), decisions no request waits for: they cost device
     * time and memory, not latency. A closed-loop client looks to it like an open one.
     */
    @Test
    void sequentialRequestsColdStartEightTimesModelUnawareAndOnceColocatedOrOnKairosDefault() {
        ModelCatalog c = PlacementExperiment.catalog(0, 0);
        List<Integer> ten = List.of(1, 1, 1, 1, 1, 1, 1, 1, 1, 1);
        PlacementExperiment.Outcome unaware = PlacementExperiment.run(c, "t5-small", ten, PlacementExperiment.MODEL_UNAWARE);
        assertThat(unaware.coldStarts()).isEqualTo(8);
        assertThat(unaware.latenciesMicros()).containsExactly(4 * S, 4 * S, 4 * S, 4 * S, 4 * S, 4 * S, 4 * S, 4 * S, S, S);
        PlacementExperiment.Outcome colocated = PlacementExperiment.run(c, "t5-small", ten, ColocationPlacement.WITHOUT_QUEUING);
        assertThat(colocated.coldStarts()).isEqualTo(1);
        assertThat(colocated.totalSeconds()).isEqualTo(13.0);
        PlacementExperiment.Outcome kairosDefault = PlacementExperiment.run(c, "t5-small", ten, Placements.DEFAULT);
        assertThat(kairosDefault.coldStarts()).isEqualTo(1);
        assertThat(kairosDefault.decidedLoads()).isEqualTo(2);
        assertThat(colocated.decidedLoads()).isZero();
        assertThat(kairosDefault.latenciesMicros()).containsExactly(4 * S, S, S, S, S, S, S, S, S, S);
    }

    /**
     * Table 6.2's setting: a warming request on device 0 (3 + 1 s), then two at once, T_P 0, T_N 5 s.
     * ColocationPlacement: one on device 0 (1 s), the other loads on device 1 (4 s): 2.5 s. With queuing:
     * 1 s and 2 s: 1.5 s. Registry: both sent to device 0 over the network; the first gets there
     * at 5 s and ends at 6 s, the second is sent when device 0 frees (6 s) and ends at 12 s: 9 s.
     * Auto picks queuing for both (n = 0: 4, 1, 6 s; n = 1: 4, 2, 7 s): 1.5 s.
     */
    @Test
    void table62QueuingWinsAndAutoPicksIt() {
        ModelCatalog c = PlacementExperiment.catalog(0, 5);
        List<Integer> waves = List.of(1, 2);
        assertThat(PlacementExperiment.run(c, "t5-small", waves, ColocationPlacement.WITHOUT_QUEUING).latenciesMicros()).containsExactly(4 * S, S, 4 * S);
        assertThat(PlacementExperiment.run(c, "t5-small", waves, ColocationPlacement.WITH_QUEUING).latenciesMicros()).containsExactly(4 * S, S, 2 * S);
        assertThat(PlacementExperiment.run(c, "t5-small", waves, RegistryPlacement.NAME).latenciesMicros()).containsExactly(4 * S, 6 * S, 12 * S);
        assertThat(PlacementExperiment.run(c, "t5-small", waves, AutoPlacement.NAME).latenciesMicros()).containsExactly(4 * S, S, 2 * S);
    }

    /**
     * Table 6.3's setting: T_P 5 s, no network. The warming request takes 3 + 1 + 5 = 9 s. RegistryPlacement:
     * the first of the two runs its inference on device 0 (1 s) and its pre/post-processing where it
     * came from (5 s): 6 s; the second waits for device 0's inference only: 7 s.
     */
    @Test
    void table63TheRegistryHoldsTheWarmDeviceForTheInferenceOnly() {
        ModelCatalog c = PlacementExperiment.catalog(5, 0);
        assertThat(PlacementExperiment.run(c, "t5-small", List.of(1, 2), RegistryPlacement.NAME).latenciesMicros()).containsExactly(9 * S, 6 * S, 7 * S);
        assertThat(PlacementExperiment.run(c, "t5-small", List.of(1, 2), ColocationPlacement.WITH_QUEUING).latenciesMicros()).containsExactly(9 * S, 6 * S, 12 * S);
    }

    @Test
    void aRunWritesItsTablesFiguresAndAPassingShapeCheck(@TempDir Path dir) throws Exception {
        StringWriter out = new StringWriter();
        new PlacementExperiment(new PrintWriter(out, true)).run(dir);
        for (String png : new String[]{"fig6-1-total.png", "fig6-2-cold-starts.png", "fig6-2-latency.png", "tables-6-1-to-6-3.png", "break-even.png"}) {
            assertThat(Files.size(dir.resolve(png))).isGreaterThan(1000);
        }
        String summary = Files.readString(dir.resolve(PlacementExperiment.SUMMARY));
        assertThat(summary).contains("## Shape check").doesNotContain("FAIL");
        assertThat(summary.lines().filter(l -> l.startsWith("- PASS"))).hasSize(6);
    }
}
