package io.kairos.testbed;

import io.kairos.tools.KairosCli;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** Argument handling, with no broker: every mistake is one line naming it, exit code 2, before any connection. */
class KairosCliTest {

    /** {@code args} on the entry that runs them: bin/kairos-lab for the lab's commands, else bin/kairos. */
    private static CliRun run(String... args) {
        return args.length > 0 && KairosCli.LAB_COMMANDS.contains(args[0]) ? CliRun.lab(args) : CliRun.checkout(args);
    }

    private static void assertUsageError(CliRun r, String message) {
        assertThat(r.code()).as(r.err()).isEqualTo(2);
        assertThat(r.err().lines()).as(r.err()).hasSize(1);
        assertThat(r.err()).contains(message);
        assertThat(r.out()).isEmpty();
    }

    @Test
    void badWorkloadSpecNamesThePart() {
        CliRun r = run("loadgen", "--workload", "resnet50:400:25,mlp:fast:10");
        assertUsageError(r, "kairos loadgen: --workload: workload spec part 'mlp:fast:10': rate 'fast' is not a number");
        assertThat(r.err()).contains("(see 'kairos loadgen --help')");
    }

    @Test
    void unknownModelIsNamedWithTheCatalogsModels() {
        assertUsageError(run("loadgen", "-w", "vgg19:100:50"),
                "--workload: model 'vgg19' is not in the built-in catalog, which has [resnet50, googlenet, bert-tiny, mlp]");
    }

    @Test
    void badModelsFileNamesTheFileAndField(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        Path file = dir.resolve("models.json");
        Files.writeString(file, "{\"models\": [{\"name\": \"m\"}]}");
        assertUsageError(run("loadgen", "-w", "m:100:50", "--models", file.toString()),
                "--models: " + file + ": model 'm': field 'input' must be an object");
        assertUsageError(run("loadgen", "-w", "m:100:50", "--models", dir.resolve("missing.json").toString()),
                "cannot read profiles file");
    }

    @Test
    void badNumbersAndKindsAreNamed() {
        assertUsageError(run("loadgen", "-w", "mlp:100:10", "--duration", "0"), "--duration must be a positive number of seconds, got 0.0");
        assertUsageError(run("loadgen", "-w", "mlp:100:10", "--duration", "soon"), "--duration");
        assertUsageError(run("loadgen", "-w", "mlp:100:10", "--arrivals", "gamma"), "--arrivals: arrival spec 'gamma': gamma needs cv2, e.g. gamma:cv2=4");
        assertUsageError(run("loadgen", "-w", "mlp:100:10", "--arrivals", "bursty"), "--arrivals: arrival spec 'bursty': unknown process 'bursty'");
        assertUsageError(run("demo", "--arrivals", "mmpp:cv2=0.5"), "--arrivals: arrival spec 'mmpp:cv2=0.5': mmpp needs 1 <= cv2 < 1621, got 0.5");
        assertUsageError(run("loadgen"), "Missing required option: '--workload=SPEC'");
        assertUsageError(run("loadgen", "-w", "mlp:100:10", "--bogus"), "Unknown option: '--bogus'");
        assertUsageError(run("collect", "--expect", "-3"), "kairos collect: --expect must be 0 or a positive number of results, got -3");
        assertUsageError(run("collect", "--idle-timeout", "0"), "--idle-timeout must be a positive number of seconds");
        assertUsageError(run("collect", "--time-limit", "-1"), "--time-limit must be 0 (none) or a positive number of seconds");
        assertUsageError(run("collect", "--csv", "/proc/kairos/rows.csv"), "--csv: cannot write /proc/kairos/rows.csv");
        assertUsageError(run("overload", "--loads", "1,0"), "kairos-lab overload: --loads must be positive numbers, got 0.0");
        assertUsageError(run("overload", "--duration", "3", "--warmup", "3"), "--duration must be longer than --warmup, got 3 and 3");
        assertUsageError(run("overload", "--policy-param", "max_pending=0"),
                "--policy-param: clockwork parameter 'max_pending' must be a whole number, at least 1, got '0'");
        assertUsageError(run("sql-predict", "--systems", "kairos,triton"), "kairos-lab sql-predict: --systems: kairos or per-row, got triton");
        assertUsageError(run("sql-predict", "--duration", "3", "--warmup", "3"), "--duration must be longer than --warmup");
        assertUsageError(run("sql-predict", "--factor", "1"), "--start-rate must be positive and --factor above 1");
    }

    @Test
    void aMissingCommandIsAUsageError() {
        assertUsageError(run(), "kairos: missing command: one of [serve, profile, control, plan, topics, demo, loadgen, collect, probe, sandbox, docs]");
        assertUsageError(CliRun.lab(), "kairos-lab: missing command: one of [bench, overload, tuner-reaction, sql-predict, fidelity, experiment, efficiency, check-results, rl, docs]");
        assertUsageError(run("bogus"), "Unmatched argument at index 0: 'bogus'");
    }

    @Test
    void aLabCommandOnTheProductsEntryNamesTheLabsEntry() {
        CliRun r = CliRun.checkout("experiment", "hot-model", "--seeds", "1");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).isEqualTo("kairos: 'experiment' is a lab command: run bin/kairos-lab experiment hot-model --seeds 1" + System.lineSeparator());
        assertThat(r.out()).isEmpty();
    }

    @Test
    void theProductsEntryPointsToEveryLabCommandAndOnlyThose() {
        var lab = new java.util.ArrayList<>(KairosLab.commandLine(new java.io.PrintWriter(java.io.Writer.nullWriter()), new java.io.PrintWriter(java.io.Writer.nullWriter()))
                .getSubcommands().keySet());
        lab.remove("docs");
        assertThat(KairosCli.LAB_COMMANDS).containsExactlyElementsOf(lab);
    }

    @Test
    void demoServeAndBenchCheckTheirArgumentsBeforeStartingAnything() {
        assertUsageError(run("demo", "--workload", "vgg19:100:50"), "--workload names unknown model 'vgg19'");
        assertUsageError(run("demo", "--policy", "fifo-ish"), "--policy 'fifo-ish' is unknown; known: [clockwork, edf, fifo, flex, kairos, random, rl, smdp, static, triton, work-conserving]");
        assertUsageError(run("serve", "--devices", "0"), "--devices must be at least 1, got 0");
        assertUsageError(run("serve", "--policy", "nope"), "--policy 'nope' is unknown");
        assertUsageError(run("bench", "--model", "vgg19"), "--model 'vgg19' is not in the built-in catalog");
    }

    @Test
    void theBenchmarksPayloadSweepChecksItsSizesBeforeStartingAnything() {
        assertUsageError(run("bench", "--sweep-kb", "0.3,abc"), "Invalid value for option '--sweep-kb' (KB): 'abc' is not a double");
        assertUsageError(run("bench", "--sweep-kb", "12,0"), "kairos-lab bench: --sweep-kb: a payload size must be a positive number of kB, got 0.0");
        assertUsageError(run("bench", "--sweep-kb", "12", "--at-mb-per-s", "-1"), "kairos-lab bench: --at-mb-per-s must not be negative, got -1.0");
        assertUsageError(run("bench", "--sweep-kb", "-5"), "--sweep-kb: a payload size must be a positive number of kB, got -5.0");
        CliRun tooBig = run("bench", "--sweep-kb", "1200");
        assertUsageError(tooBig, "--sweep-kb: a payload of 1200 kB makes 1,200,");
        assertThat(tooBig.err()).contains("-byte requests, over the 1,032,192 bytes a Kafka record may take by default");
        assertUsageError(run("bench", "--sweep-kb", "12", "--trial-seconds", "1"), "--trial-seconds must be at least 2, got 1");
        assertUsageError(run("bench", "--sweep-kb", "12", "--search-trials", "1"), "--search-trials must be at least 2, got 1");
        assertUsageError(run("bench", "--sweep-kb", "12", "--consumer-property", "max.fetch.bytes=9"), "--consumer-property: 'max.fetch.bytes' is not a Kafka consumer setting");
        assertUsageError(run("bench", "--sweep-kb", "12", "--compare-delivery"), "--sweep-kb and --compare-delivery are two benchmarks; choose one");
    }

    @Test
    void theSandboxChecksServesOptionsBeforeStartingAnything() {
        assertUsageError(run("sandbox", "--", "--devices", "0"), "kairos sandbox: serve option: --devices must be at least 1, got 0");
        assertUsageError(run("sandbox", "--", "--schema-registry-url", "registry:8081"),
                "serve option: --registry-schema-id, --schema-registry-url: a schema registry URL is http:// or https:// with a host, got registry:8081");
        assertUsageError(run("sandbox", "--", "--no-such-option"), "serve option: Unknown option: '--no-such-option'");
    }

    @Test
    void aBadPolicyParameterIsOneLineBeforeAnythingStarts() {
        assertUsageError(run("serve", "--policy-param", "lookahead_ms=abc"),
                "kairos serve: --policy-param: clockwork parameter 'lookahead_ms' must be a number of milliseconds, at least 0, got 'abc'");
        assertUsageError(run("serve", "--policy", "triton", "--policy-param", "max_batch=-5"),
                "--policy-param: triton parameter 'max_batch' must be a whole number, at least 1, got '-5'");
        assertUsageError(run("serve", "--policy", "fifo", "--policy-param", "max_batch=4"),
                "--policy-param: fifo has no parameter 'max_batch' (set to '4'); it knows max_pending, placement, shed, shed_early, target_ongoing, window_hold, window_margin_ms");
        // The demo runs Kairos' own policy unless told otherwise; serve and overload the job's default.
        assertUsageError(run("demo", "--policy-param", "max_pending=0"),
                "--policy-param: kairos parameter 'max_pending' must be a whole number, at least 1, got '0'");
        assertUsageError(run("demo", "--policy", "flex", "--policy-param", "lambda=abc"),
                "--policy-param: flex parameter 'lambda' must be a number above 1, got 'abc'");
    }

    @Test
    void serveReadsItsFlagsFromAConfigFileAndNamesAnUnknownKey(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path bad = dir.resolve("bad.properties");
        java.nio.file.Files.writeString(bad, "bootstrap-servers=broker:9092\nbogus-key=1\n");
        assertUsageError(run("serve", "--config", bad.toString()), "unknown key 'bogus-key'");
        java.nio.file.Path good = dir.resolve("good.properties");
        java.nio.file.Files.writeString(good, "devices=0\n");
        // The file's value is checked like a flag's, and named by its key: proof that it was read.
        assertUsageError(run("serve", "--config", good.toString()), "'devices' in " + good + " must be at least 1, got 0");
    }

    @Test
    void helpAndVersionSucceed() {
        CliRun help = run("loadgen", "--help");
        assertThat(help.code()).isZero();
        assertThat(help.out()).contains("--workload=SPEC", "--duration=SECONDS", "--arrivals=PROCESS", "gamma:cv2=N");
        assertThat(run("--help").out()).contains("loadgen", "collect");
        assertThat(run("--version").out()).contains("kairos");
        assertThat(CliRun.lab("--help").out()).contains("experiment", "bench").doesNotContain("loadgen");
    }
}
