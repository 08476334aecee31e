package io.kairos.testbed.experiment;

import io.kairos.testbed.CliRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code kairos-lab experiment}: arguments are checked before anything runs, each experiment
 * taking only its own options; a small sweep end to end.
 */
class ExperimentCommandTest {

    private static CliRun run(String... args) {
        return CliRun.lab(args);
    }

    private static void assertUsageError(CliRun r, String message) {
        assertThat(r.code()).as(r.err()).isEqualTo(2);
        assertThat(r.err().lines()).as(r.err()).hasSize(1);
        assertThat(r.err()).startsWith("kairos-lab experiment").contains(message).contains("(see 'kairos-lab experiment");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void badArgumentsAreOneLineAndExitCode2(@TempDir Path dir) throws Exception {
        assertUsageError(run("experiment"), "kairos-lab experiment: missing experiment: one of [low-slo, azure, bursty, bursty-zoo-cpu, hot-model, smdp, smdp-guard, inferline, rl, tuner, placement, placement-scale, herd]");
        assertUsageError(run("experiment", "high-slo"), "unknown experiment 'high-slo'; known: [low-slo, azure, bursty, bursty-zoo-cpu, hot-model, smdp, smdp-guard, inferline, rl, tuner, placement, placement-scale, herd]");
        assertUsageError(run("experiment", "herd", "--devices", "1"), "--devices: each cluster needs at least 2 devices, got 1");
        assertUsageError(run("experiment", "herd", "--policies", "flex"), "kairos-lab experiment herd: Unknown options: '--policies', 'flex'");
        assertUsageError(run("experiment", "herd", "--redraw", "--out", dir.resolve("none").toString()), "--redraw: no ");
        assertUsageError(run("experiment", "low-slo", "--cv2", "4"), "kairos-lab experiment low-slo: Unknown options: '--cv2', '4'");
        assertUsageError(run("experiment", "smdp", "--seeds", "2"), "Unknown options: '--seeds', '2'");
        assertUsageError(run("experiment", "smdp", "--no-triton-grid"), "Unknown option: '--no-triton-grid'");
        assertUsageError(run("experiment", "smdp", "--redraw", "--out", dir.resolve("none").toString()), "--redraw: no ");
        assertUsageError(run("experiment", "inferline", "--policies", "triton"), "Unknown options: '--policies', 'triton'");
        assertUsageError(run("experiment", "inferline", "--warmup-s", "1"), "Unknown options: '--warmup-s', '1'");
        assertUsageError(run("experiment", "inferline", "--duration-s", "0"), "--duration-s must be a positive number of seconds, got 0.0");
        assertUsageError(run("experiment", "inferline", "--redraw", "--out", dir.resolve("none").toString()), "--redraw: no ");
        assertUsageError(run("experiment", "rl", "--policies", "rl"), "Unknown options: '--policies', 'rl'");
        assertUsageError(run("experiment", "rl", "--invocation", "1ms"), "Unknown options: '--invocation', '1ms'");
        assertUsageError(run("experiment", "rl", "--warmup-s", "10"), "--warmup-s must be at least 0 and shorter than the duration (10.0 s), got 10.0");
        assertUsageError(run("experiment", "rl", "--redraw", "--out", dir.resolve("none").toString()), "--redraw: no ");
        assertUsageError(run("experiment", "tuner", "--duration-s", "300"), "--duration-s must be at least 480 s for experiment tuner (its start, ramps and peak take that long), got 300.0");
        assertUsageError(run("experiment", "tuner", "--warmup-s", "1"), "Unknown options: '--warmup-s', '1'");
        assertUsageError(run("experiment", "tuner", "--redraw", "--out", dir.resolve("none").toString()), "--redraw: no ");
        assertUsageError(run("experiment", "placement-scale", "--duration-s", "90"), "--duration-s must be whole minutes of trace, at least 120, for experiment placement-scale, got 90.0");
        assertUsageError(run("experiment", "placement-scale", "--load-scale", "0"), "--load-scale must be a positive number, got 0.0");
        assertUsageError(run("experiment", "low-slo", "--load-scale", "2"), "Unknown options: '--load-scale', '2'");
        assertUsageError(run("experiment", "low-slo", "--azure-profiles", "zoo"), "Unknown options: '--azure-profiles', 'zoo'");
        assertUsageError(run("experiment", "azure", "--azure-profiles", "vgg"), "--azure-profiles must be zoo or resnet50, got 'vgg'");
        assertUsageError(run("experiment", "azure", "--azure-only"), "kairos-lab experiment azure: Unknown option: '--azure-only'");
        assertUsageError(run("experiment", "rl", "--azure-only", "--window-only"), "--azure-only and --window-only each run one part; give one");
        assertUsageError(run("experiment", "rl", "--network", "Mine=x.krln"), "--network: a label is lower-case letters, digits, '.', '_' and '-', got 'Mine'");
        assertUsageError(run("experiment", "rl", "--network", "rl-s1=x.krln"), "--network: 'rl-s1' is one of the experiment's own agents");
        assertUsageError(run("experiment", "rl", "--network", "mine=" + dir.resolve("none.krln")), "--network mine: policy network '" + dir.resolve("none.krln") + "': cannot read it");
        assertUsageError(run("experiment", "low-slo", "--seeds", "0"), "--seeds: seeds must be at least 1, got 0");
        assertUsageError(run("experiment", "low-slo", "--duration-s", "0"), "--duration-s: duration must be a positive number of seconds, got 0.0");
        assertUsageError(run("experiment", "low-slo", "--warmup-s", "30"), "--warmup-s: warm-up must be at least 0 s and shorter than the duration (30 s), got 30");
        assertUsageError(run("experiment", "low-slo", "--policies", "clockwork,flexx"), "--policies: policy 'flexx' is unknown; known: [clockwork, edf, fifo, flex, kairos, random, rl, smdp, static, triton, work-conserving]");
        assertUsageError(run("experiment", "low-slo", "--invocation", "hourly"), "--invocation: invocation must be 'events' or a positive period such as 1ms or 500us, got 'hourly'");
        assertUsageError(run("experiment", "low-slo", "--invocation", "0ms"), "--invocation");
        assertUsageError(run("experiment", "low-slo", "--threads", "0"), "--threads must be at least 1, got 0");
        assertUsageError(run("experiment", "low-slo", "--seeds", "many"), "--seeds");
        assertUsageError(run("experiment", "low-slo", "--redraw", "--out", dir.toString()), "--redraw: no " + dir.resolve("results.csv"));
        Path file = Files.writeString(dir.resolve("file"), "x");
        assertUsageError(run("experiment", "low-slo", "--out", file.toString()), "--out: " + file + " is not a folder");
    }

    @Test
    void eachExperimentsHelpListsItsOwnOptions() {
        CliRun herd = run("experiment", "herd", "--help");
        assertThat(herd.code()).isZero();
        assertThat(herd.out()).contains("Usage: kairos-lab experiment herd", "--devices=N", "--redraw").doesNotContain("--policies", "--warmup-s");
        assertThat(run("experiment", "hot-model", "--help").out()).contains("--policies=NAME", "--warmup-s=N", "--[no-]triton-grid").doesNotContain("--devices");
        assertThat(run("experiment", "--help").out()).contains("low-slo", "placement-scale", "herd");
    }

    @Test
    void aShortLowSloSweepWritesResultsFiguresAndTheShapeCheck(@TempDir Path dir) throws Exception {
        CliRun r = run("experiment", "low-slo", "--policies", "clockwork,fifo", "--duration-s", "1", "--warmup-s", "0.2",
                "--seeds", "1", "--invocation", "1ms", "--threads", "2", "--no-progress", "--out", dir.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(Files.readAllLines(dir.resolve("results.csv"))).hasSize(1 + 36 * 2);
        assertThat(Files.readAllLines(dir.resolve("results.csv")).get(1)).startsWith("12,600,3,1ms,1,,clockwork,6,");
        for (String png : new String[] {"attainment.png", "mean-batch.png"}) assertThat(Files.size(dir.resolve(png))).isGreaterThan(1000);
        List<String> shape = Files.readAllLines(dir.resolve("shape-check.txt"));
        assertThat(shape).hasSize(4);
        assertThat(shape.subList(0, 2)).allMatch(l -> l.matches("(PASS|FAIL)  clockwork meets .*"));
        // kairos was not run: its comparisons with the others are skipped, not failed.
        assertThat(shape.subList(2, 4)).allMatch(l -> l.startsWith("SKIP  kairos "));
        assertThat(r.out()).contains("72 runs (36 points x 2 policies x 1 seed), 1 s simulated each (0.2 s warm-up), invocation 1ms, 2 threads",
                "models  rate  policy      3 ms    6 ms   12 ms   24 ms   48 ms   96 ms", "shape check");

        // Again from the CSV alone.
        Files.delete(dir.resolve("attainment.png"));
        CliRun again = run("experiment", "low-slo", "--redraw", "--out", dir.toString());
        assertThat(again.code()).as(again.err()).isZero();
        assertThat(dir.resolve("attainment.png")).exists();
        assertThat(again.out()).doesNotContain("runs (");
    }
}
