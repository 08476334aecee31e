package io.kairos.jobs.cli;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static io.kairos.jobs.cli.KairosRun.assertUsageError;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * kairos plan pipeline without a broker: a dry run prints the plan (the two-stage case that
 * {@code InferLinePlannerTest} works out by hand), the devices it would take or why the job's
 * devices cannot hold it; each bad argument is one line.
 */
class PlanPipelineCommandTest {
    @TempDir
    static Path dir;
    static String models;
    static String chain;
    static String trace;

    @BeforeAll
    static void files() throws IOException {
        // cpu at 1 an hour, gpu at 3; a: cpu 9 / 12 ms at batch 1 / 2, gpu 4 / 5 ms; b: cpu 2 / 3 ms, gpu 1 / 2 ms.
        models = Files.writeString(dir.resolve("models.json"), """
                {"hardware": [{"name": "cpu", "price_per_hour": 1}, {"name": "gpu", "price_per_hour": 3}],
                 "models": [
                  {"name": "a", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 9, "2": 12}},
                   "hardware_profiles": {"gpu": {"latency_ms": {"table": {"1": 4, "2": 5}}}}},
                  {"name": "b", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 2, "2": 3}},
                   "hardware_profiles": {"gpu": {"latency_ms": {"table": {"1": 1, "2": 2}}}}}
                ]}""").toString();
        chain = Files.writeString(dir.resolve("chain.json"), """
                {"pipeline": "chain", "slo_p99_ms": 11,
                 "stages": [{"name": "first", "model": "a"}, {"name": "second", "model": "b"}],
                 "edges": [{"from": "first", "to": "second", "probability": 1}]}""").toString();
        // 500 bursts of three requests, 10 ms apart.
        StringBuilder t = new StringBuilder("# bursts of three\n");
        for (int i = 0; i < 1500; i++) t.append((i / 3) * 10).append('\n');
        trace = Files.writeString(dir.resolve("trace.txt"), t).toString();
    }

    static KairosRun plan(String... more) {
        String[] base = {"plan", "pipeline", "--bootstrap-servers", KairosRun.NOWHERE, "--models", models, "--pipeline", chain, "--trace", trace};
        String[] all = new String[base.length + more.length];
        System.arraycopy(base, 0, all, 0, base.length);
        System.arraycopy(more, 0, all, base.length, more.length);
        return KairosRun.of(all);
    }

    @Test
    void aDryRunPrintsThePlanWithTheDevicesItWouldTake() {
        // The plan worked out in InferLinePlannerTest: first on gpu at batch 2 x1, second on cpu x1,
        // cost 3 + 1 = 4, P99 11 ms. The job's slots: cpu 0, 1; gpu 2, 3.
        KairosRun run = plan("--devices", "cpu:2,gpu:2", "--dry-run");
        assertThat(run.code()).as(run.err()).isZero();
        assertThat(run.out()).contains("trace " + trace + ": 1,500 arrivals over 4.990 s, 300.6 requests/s, CV² 2")
                .contains("pipeline chain: P99 SLO 11 ms")
                .containsPattern("first +a +gpu +2 +1 +1\\.000  2\n")
                .containsPattern("second +b +cpu +1 +1 +1\\.000  0\n")
                .contains("cost 4 per hour (cpu x1, gpu x1); estimated P99 11 ms, 0 of 1,500 requests over the SLO (0.000 %)")
                .containsPattern("planned in [0-9.]+ s \\([0-9.]+ s of CPU\\): \\d+ configurations estimated");
        assertThat(run.out()).doesNotContain("not publishable");
    }

    @Test
    void theStagesGoOnlyOnTheJobsHardwareTypes() {
        // cpu only: a takes 9 ms and b 2 ms there, 11 ms alone, which reaches an SLO of 11 ms.
        KairosRun run = plan("--devices", "cpu:4");
        assertThat(run.code()).isEqualTo(1);
        assertThat(run.err().strip()).isEqualTo("infeasible: pipeline 'chain' takes 11 ms on its longest path alone on the fastest hardware "
                + "(its service time), which reaches the SLO of 11 ms");
        // A looser SLO: every stage on cpu.
        KairosRun loose = plan("--devices", "cpu:8", "--slo-p99", "40");
        assertThat(loose.code()).as(loose.err()).isZero();
        assertThat(loose.out()).contains("pipeline chain: P99 SLO 40 ms").containsPattern("first +a +cpu ").containsPattern("second +b +cpu ");
    }

    @Test
    void aPlanTheJobsDevicesCannotHoldIsNotPublished() {
        // With an SLO of 7 ms... the chain needs gpu for both stages: 4 + 1 = 5 ms alone at least.
        KairosRun dry = plan("--devices", "cpu:1,gpu:1", "--slo-p99", "7");
        assertThat(dry.code()).as(dry.err()).isZero();
        assertThat(dry.out()).contains("not publishable: the job has 1 device(s) of type gpu (--devices cpu:1,gpu:1); the plan needs ");
        KairosRun publish = plan("--devices", "cpu:1,gpu:1", "--slo-p99", "7", "--publish");
        assertThat(publish.code()).isEqualTo(1);
        assertThat(publish.err().strip()).startsWith("nothing published: the job has 1 device(s) of type gpu").doesNotContain("\n");
    }

    @Test
    void badArgumentsAreOneLineEach() throws IOException {
        assertUsageError(plan("--slo-p99", "0"), "--slo-p99 must be a positive number of milliseconds, got 0.0");
        assertUsageError(plan("--devices", "cpu:2,tpu:1"), "--devices 'cpu:2,tpu:1': part 'tpu:1' names hardware type 'tpu', which the model catalog lacks");
        assertUsageError(plan("--dry-run", "--publish"), "--dry-run, --publish are mutually exclusive");
        assertUsageError(KairosRun.of("plan", "pipeline", "--models", models, "--pipeline", chain), "Missing required argument");
        assertUsageError(KairosRun.of("plan", "pipeline", "--models", models, "--pipeline", chain, "--trace", trace, "--trace-from-topic", "now-1h..now"),
                "mutually exclusive");
        String bad = Files.writeString(dir.resolve("bad-trace.txt"), "1\n2\nsoon\n").toString();
        assertUsageError(KairosRun.of("plan", "pipeline", "--models", models, "--pipeline", chain, "--trace", bad),
                "--trace " + bad + ": line 3 'soon' is not an arrival time (a non-negative number of milliseconds)");
        assertUsageError(KairosRun.of("plan", "pipeline", "--models", models, "--pipeline", chain, "--trace", dir.resolve("none.txt").toString()),
                "--trace " + dir.resolve("none.txt") + ": cannot read the arrival trace");
        assertUsageError(KairosRun.of("plan", "pipeline", "--models", models, "--pipeline", chain, "--trace-from-topic", "yesterday..now"),
                "--trace-from-topic 'yesterday' is no time: expected START..END, each an ISO-8601 instant");
        assertUsageError(KairosRun.of("plan", "pipeline", "--models", models, "--pipeline", chain, "--trace-from-topic", "now..now-1h"),
                "--trace-from-topic the window's end (");
        String unknown = Files.writeString(dir.resolve("unknown.json"), """
                {"pipeline": "p", "slo_p99_ms": 50, "stages": [{"name": "s", "model": "zzz"}]}""").toString();
        assertUsageError(KairosRun.of("plan", "pipeline", "--models", models, "--pipeline", unknown, "--trace", trace),
                "--pipeline " + unknown + ": stage 's': the catalog has no model 'zzz'");
        String broken = Files.writeString(dir.resolve("broken.json"), "{\"pipeline\": \"p\"").toString();
        assertUsageError(KairosRun.of("plan", "pipeline", "--models", models, "--pipeline", broken, "--trace", trace),
                "--pipeline " + broken + ": not valid JSON");
    }
}
