package io.kairos.testbed.bench;

import io.kairos.core.model.ModelCatalog;
import io.kairos.testbed.experiment.ResultTable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code overload --simulator}: the group of the job's overload run, in the simulator, on several seeds. */
class OverloadSimulationTest {

    /**
     * Two devices four times slower than ResNet50 (capacity 544/s), SLO 200 ms: at twice capacity
     * early shedding keeps goodput near capacity on every seed, and without it the group serves
     * batches of one at under half of it; at half capacity both serve the offered load.
     */
    @Test
    void atTwiceCapacityEarlySheddingHoldsCapacityOnEverySeedAndWithoutItGoodputCollapses() {
        ModelCatalog catalog = ModelCatalog.builtIn();
        double capacity = OverloadRig.capacity(catalog, "resnet50", 2, 4);
        List<List<String>> heard = new ArrayList<>();
        ResultTable t = new OverloadSimulation(catalog, "resnet50", 200, 2, 4, "clockwork", Map.of(), 8, 2).run(new double[] {0.5, 2}, 2, heard::add);
        assertThat(t.rows()).hasSize(2 * 2 * 2).isEqualTo(heard);
        assertThat(t.distinct("seed")).containsExactly("1", "2");
        for (String seed : List.of("1", "2")) {
            assertThat(t.median("goodput_per_s", Map.of("seed", seed, "load", "2", "early_shedding", "on"))).isGreaterThan(0.9 * capacity);
            assertThat(t.median("goodput_per_s", Map.of("seed", seed, "load", "2", "early_shedding", "off"))).isLessThan(0.5 * capacity);
            assertThat(t.median("mean_batch", Map.of("seed", seed, "load", "2", "early_shedding", "off"))).isLessThan(2);
            for (String shed : List.of("on", "off")) {
                assertThat(t.median("goodput_per_s", Map.of("seed", seed, "load", "0.5", "early_shedding", shed))).isBetween(0.45 * capacity, 0.55 * capacity);
            }
        }
        // The seeds draw different arrivals.
        assertThat(t.median("arrivals", Map.of("seed", "1", "load", "2", "early_shedding", "on")))
                .isNotEqualTo(t.median("arrivals", Map.of("seed", "2", "load", "2", "early_shedding", "on")));
        String summary = OverloadSimulation.summary(t, capacity);
        assertThat(summary).contains("2 seeds").contains("     2 ");
    }

    @Test
    void theCommandWritesTheSimulatorsTableAndFigure(@TempDir Path dir) throws Exception {
        StringWriter out = new StringWriter();
        CommandLine cl = new CommandLine(new OverloadCommand());
        cl.setOut(new PrintWriter(out, true));
        int code = cl.execute("--simulator", "--loads", "2", "--runs", "1", "--duration", "6", "--warmup", "1", "--out", dir.toString());
        assertThat(code).as(out.toString()).isZero();
        ResultTable t = ResultTable.read(dir.resolve(OverloadSimulation.CSV));
        assertThat(t.rows()).hasSize(2);
        assertThat(Files.size(dir.resolve("simulator.png"))).isPositive();
        assertThat(dir.resolve("overload.csv")).doesNotExist();
    }
}
