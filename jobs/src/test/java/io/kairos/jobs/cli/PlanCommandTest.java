package io.kairos.jobs.cli;

import org.junit.jupiter.api.Test;


import static io.kairos.jobs.cli.KairosRun.assertUsageError;
import static org.assertj.core.api.Assertions.assertThat;

/** kairos plan smdp: a dry run prints the table without a broker; each bad argument is one line, exit code 2, before anything is sent. */
class PlanCommandTest {

    @Test
    void aDryRunPrintsTheTableAndPublishesNothing() {
        KairosRun run = KairosRun.of("plan", "smdp", "--bootstrap-servers", KairosRun.NOWHERE, "--model", "googlenet", "--rate", "2000", "--w2", "1", "--dry-run");
        assertThat(run.code()).as(run.err()).isZero();
        assertThat(run.out()).contains("model googlenet in serving group default: 2000 requests/s on 1 device(s), rho 0.676 per device, w1 1, w2 1")
                .containsPattern("table: 0-\\d+:wait ")
                .contains("control limit ");
    }

    @Test
    void badArgumentsAreOneLineEach() {
        assertUsageError(KairosRun.of("plan"), "missing command: one of [smdp, pipeline, herd]");
        assertUsageError(KairosRun.of("plan", "smdp", "--bootstrap-servers", KairosRun.NOWHERE, "--model", "nosuch", "--rate", "10"),
                "kairos plan smdp: --model 'nosuch' is not in the catalog; it has [");
        assertUsageError(KairosRun.of("plan", "smdp", "--bootstrap-servers", KairosRun.NOWHERE, "--model", "googlenet", "--rate", "0"),
                "--rate must be a positive number of requests per second, got 0.0");
        assertUsageError(KairosRun.of("plan", "smdp", "--bootstrap-servers", KairosRun.NOWHERE, "--model", "googlenet", "--rate", "3000"),
                "is at or above the capacity of model 'googlenet'");
        assertUsageError(KairosRun.of("plan", "smdp", "--bootstrap-servers", KairosRun.NOWHERE, "--model", "googlenet", "--rate", "100", "--w1", "0", "--w2", "0"),
                "--w1 0.0 --w2 0.0: at least one of the weights w1, w2 must be positive");
        assertUsageError(KairosRun.of("plan", "smdp", "--bootstrap-servers", KairosRun.NOWHERE, "--model", "resnet50", "--rate", "100", "--w2", "1"),
                "model 'resnet50' has no energy profile (energy_mj) in the catalog");
        assertUsageError(KairosRun.of("plan", "smdp", "--bootstrap-servers", KairosRun.NOWHERE, "--model", "googlenet", "--rate", "100", "--devices", "0"),
                "--devices must be at least 1, got 0");
        assertUsageError(KairosRun.of("plan", "smdp", "--bootstrap-servers", KairosRun.NOWHERE, "--model", "googlenet", "--telemetry-tail", "0"),
                "--telemetry-tail must be at least 1, got 0");
    }

    @Test
    void herdsTaskManagersAddressIsAnHttpUrlWithAHostAndItsJobIdNeedsIt() {
        String[] herd = {"plan", "herd", "--bootstrap-servers", KairosRun.NOWHERE, "--streams", "streams.json", "--max-group", "2"};
        assertUsageError(KairosRun.of(with(herd, "--taskmanagers-from", "jobmanager:8081")),
                "--taskmanagers-from must be http:// or https:// with a host, got jobmanager:8081");
        assertUsageError(KairosRun.of(with(herd, "--taskmanagers-from", "http://job manager:8081")), "--taskmanagers-from: not a URL: http://job manager:8081");
        assertUsageError(KairosRun.of(with(herd, "--flink-job-id", "abc")), "--flink-job-id needs --taskmanagers-from");
    }

    private static String[] with(String[] args, String... more) {
        String[] all = java.util.Arrays.copyOf(args, args.length + more.length);
        System.arraycopy(more, 0, all, args.length, more.length);
        return all;
    }
}
