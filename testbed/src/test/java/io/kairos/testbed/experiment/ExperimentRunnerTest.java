package io.kairos.testbed.experiment;

import io.kairos.core.model.ModelCatalog;
import io.kairos.sim.Simulation;
import io.kairos.sim.SimulationReport;
import io.kairos.workload.Workload;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ExperimentRunnerTest {

    /** Two points (resnet50 at 100 and 400 requests/s, SLO 20 ms, one device), drawn as one panel. */
    static final class Tiny implements Experiment {
        @Override
        public String name() {
            return "tiny";
        }

        @Override
        public String description() {
            return "two rates on one device";
        }

        @Override
        public Settings defaults() {
            return new Settings(1, 0.2, 1, List.of("clockwork", "fifo"), io.kairos.sim.Invocation.onEvents());
        }

        @Override
        public List<String> pointColumns() {
            return List.of("rate", "slo_ms");
        }

        @Override
        public String tableColumn() {
            return "rate";
        }

        @Override
        public List<Point> points() {
            return List.of(Point.of(100, 20), Point.of(400, 20));
        }

        @Override
        public Simulation.Builder setup(Point p) {
            return Simulation.builder(ModelCatalog.builtIn()).devices(1)
                    .workload(Workload.parse("resnet50:" + p.get(0) + ":" + p.get(1)));
        }

        @Override
        public List<Path> drawFigures(ResultTable results, Path dir) throws IOException {
            return List.of(Figures.lines("rate", "slo_attainment").scale(100).numericX().save(results, dir.resolve("attainment.png")));
        }
    }

    private static ExperimentRunner.Outcome run(Settings settings, Path dir, StringWriter out) throws Exception {
        return new ExperimentRunner(2, false, new PrintWriter(out, true)).run(new Tiny(), settings, dir);
    }

    @Test
    void writesOneRowPerRunUnderTheHeaderAndAFigure(@TempDir Path dir) throws Exception {
        StringWriter out = new StringWriter();
        run(new Tiny().defaults(), dir, out);

        List<String> lines = Files.readAllLines(dir.resolve("results.csv"));
        List<String> header = new ArrayList<>(List.of("rate", "slo_ms", "invocation", "seed", "setting"));
        header.addAll(SimulationReport.CSV_COLUMNS);
        assertThat(lines.get(0)).isEqualTo(String.join(",", header));
        assertThat(lines).hasSize(1 + 2 * 2); // 2 points x 2 policies x 1 seed
        // In the order of the runs, whatever order they finished in.
        assertThat(lines.subList(1, 5)).extracting(l -> l.split(",", -1)[0] + " " + l.split(",", -1)[5])
                .containsExactly("100 clockwork", "100 fifo", "400 clockwork", "400 fifo");
        assertThat(lines.subList(1, 5)).allMatch(l -> l.split(",", -1).length == header.size());
        assertThat(lines.get(1)).startsWith("100,20,events,1,,clockwork,1,0.8");

        Path png = dir.resolve("attainment.png");
        assertThat(png).exists();
        assertThat(Files.size(png)).isGreaterThan(1000);
        BufferedImage image = ImageIO.read(png.toFile());
        assertThat(image).isNotNull();
        assertThat(image.getWidth()).isPositive();

        assertThat(dir.resolve("attainment.md")).content().startsWith("| slo_ms | policy | 100 | 400 |");
        assertThat(dir.resolve("shape-check.txt")).doesNotExist(); // no claims
        assertThat(out.toString()).contains("4 runs (2 points x 2 policies x 1 seed), 1 s simulated each (0.2 s warm-up), invocation events, 2 threads",
                "SLO attainment %, median over seeds", "wrote results.csv, attainment.md, attainment.png");
    }

    @Test
    void seedsAreRowsOfTheirOwnAndTheTableTakesTheirMedian(@TempDir Path dir) throws Exception {
        Settings three = new Tiny().defaults().withSeeds(3).withPolicies(List.of("fifo"));
        ExperimentRunner.Outcome o = run(three, dir, new StringWriter());
        ResultTable r = o.results();
        assertThat(r.size()).isEqualTo(2 * 3);
        assertThat(r.distinct("seed")).containsExactly("1", "2", "3");
        // Different seeds, different arrivals.
        assertThat(r.rows().stream().filter(row -> row.get(0).equals("400")).map(row -> row.get(r.index("arrivals"))).distinct()).hasSize(3);
        List<Long> arrivalsAt400 = r.rows().stream().filter(row -> row.get(0).equals("400"))
                .map(row -> Long.parseLong(row.get(r.index("arrivals")))).sorted().toList();
        SummaryTable table = SummaryTable.of(new Tiny(), r, "arrivals", 1, 0);
        List<String> fifo = table.rows().get(0); // slo_ms, policy, rate 100, rate 400
        assertThat(fifo.subList(0, 2)).containsExactly("20", "fifo");
        assertThat(fifo.get(3)).isEqualTo(Long.toString(arrivalsAt400.get(1)));
    }

    @Test
    void theSameSettingsGiveTheSameResults(@TempDir Path dir) throws Exception {
        run(new Tiny().defaults(), dir.resolve("a"), new StringWriter());
        run(new Tiny().defaults(), dir.resolve("b"), new StringWriter());
        assertThat(withoutWallClock(dir.resolve("a/results.csv"))).isEqualTo(withoutWallClock(dir.resolve("b/results.csv")));
    }

    private static List<String> withoutWallClock(Path csv) throws IOException {
        return Files.readAllLines(csv).stream().map(l -> l.substring(0, l.lastIndexOf(','))).toList();
    }

    @Test
    void periodicInvocationIsRecorded(@TempDir Path dir) throws Exception {
        Settings everyMs = new Tiny().defaults().withInvocation(Settings.parseInvocation("1ms"));
        ExperimentRunner.Outcome o = run(everyMs, dir, new StringWriter());
        assertThat(o.results().distinct("invocation")).containsExactly("1ms");
    }

    @Test
    void tritonRunsEverySettingOfItsGridAndTheResultsKeepTheBestAtEachPoint(@TempDir Path dir) throws Exception {
        Settings triton = new Tiny().defaults().withPolicies(List.of("fifo", "triton"));
        StringWriter out = new StringWriter();
        ExperimentRunner.Outcome o = run(triton, dir, out);
        int settings = TritonGrid.settings().size();
        // The grid runs on the tuning seed alone: one row per point and setting, none of fifo.
        ResultTable all = ResultTable.read(dir.resolve(TritonGrid.CSV));
        assertThat(all.size()).isEqualTo(2 * settings);
        assertThat(all.distinct("seed")).containsExactly(Long.toString(Settings.TUNING_SEED));
        assertThat(all.distinct("setting")).hasSize(settings);
        // The measured seed runs triton once per point, in the setting with the highest tuning goodput there.
        ResultTable best = o.results();
        assertThat(best.size()).isEqualTo(2 * 2);
        assertThat(best.distinct("seed")).containsExactly("1");
        assertThat(ResultTable.read(dir.resolve("results.csv")).rows()).isEqualTo(best.rows());
        for (String rate : List.of("100", "400")) {
            List<List<String>> tritonRows = best.rows().stream()
                    .filter(r -> r.get(0).equals(rate) && r.get(best.index("policy")).equals("triton")).toList();
            assertThat(tritonRows).hasSize(1);
            List<String> tuned = all.rows().stream().filter(r -> r.get(0).equals(rate))
                    .max(java.util.Comparator.comparingDouble(r -> Double.parseDouble(r.get(all.index("goodput_per_s"))))).orElseThrow();
            double most = Double.parseDouble(tuned.get(all.index("goodput_per_s")));
            String first = all.rows().stream().filter(r -> r.get(0).equals(rate) && Double.parseDouble(r.get(all.index("goodput_per_s"))) == most)
                    .findFirst().orElseThrow().get(all.index("setting"));
            assertThat(tritonRows.get(0).get(best.index("setting"))).isEqualTo(first);
        }
        assertThat(out.toString()).contains("(2 points x 2 policies x 1 seed; " + 2 * settings + " tuning runs on seed 0)",
                "triton: at each point the best of " + settings + " settings on seed 0");

        // Without the grid: one triton run per point, no grid file.
        Path once = dir.resolve("once");
        ExperimentRunner.Outcome single = run(triton.withTritonGrid(false), once, new StringWriter());
        assertThat(single.results().size()).isEqualTo(4);
        assertThat(single.results().distinct("setting")).containsExactly("");
        assertThat(once.resolve(TritonGrid.CSV)).doesNotExist();
    }
}
