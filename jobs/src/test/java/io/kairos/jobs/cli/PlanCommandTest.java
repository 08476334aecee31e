package io.kairos.jobs.cli;

import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.assertj.core.api.Assertions.assertThat;

/** kairos plan smdp: a dry run prints the table without a broker; each bad argument is one line, exit code 2, before anything is sent. */
class PlanCommandTest {
    private record Run(int code, String out, String err) {}

    // A broker address nothing listens on: a command that got past its arguments would fail with 1, not 2.
    private static final String NOWHERE = "127.0.0.1:1";

    private static Run kairos(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Kairos.execute(Kairos.commandLine(new PrintWriter(out, true), new PrintWriter(err, true)), args);
        return new Run(code, out.toString(), err.toString());
    }

    private static void assertUsageError(Run run, String message) {
        assertThat(run.code()).as(run.err()).isEqualTo(2);
        assertThat(run.err().strip()).doesNotContain("\n").contains(message);
    }

    @Test
    void aDryRunPrintsTheTableAndPublishesNothing() {
        Run run = kairos("plan", "smdp", "--bootstrap-servers", NOWHERE, "--model", "googlenet", "--rate", "2000", "--w2", "1", "--dry-run");
        assertThat(run.code()).as(run.err()).isZero();
        assertThat(run.out()).contains("model googlenet in serving group default: 2000 requests/s on 1 device(s), rho 0.676 per device, w1 1, w2 1")
                .containsPattern("table: 0-\\d+:wait ")
                .contains("control limit ");
    }

    @Test
    void badArgumentsAreOneLineEach() {
        assertUsageError(kairos("plan"), "missing command: one of [smdp]");
        assertUsageError(kairos("plan", "smdp", "--bootstrap-servers", NOWHERE, "--model", "nosuch", "--rate", "10"),
                "kairos plan smdp: --model 'nosuch' is not in the catalog; it has [");
        assertUsageError(kairos("plan", "smdp", "--bootstrap-servers", NOWHERE, "--model", "googlenet", "--rate", "0"),
                "--rate must be a positive number of requests per second, got 0.0");
        assertUsageError(kairos("plan", "smdp", "--bootstrap-servers", NOWHERE, "--model", "googlenet", "--rate", "3000"),
                "is at or above the capacity of model 'googlenet'");
        assertUsageError(kairos("plan", "smdp", "--bootstrap-servers", NOWHERE, "--model", "googlenet", "--rate", "100", "--w1", "0", "--w2", "0"),
                "--w1 0.0 --w2 0.0: at least one of the weights w1, w2 must be positive");
        assertUsageError(kairos("plan", "smdp", "--bootstrap-servers", NOWHERE, "--model", "resnet50", "--rate", "100", "--w2", "1"),
                "model 'resnet50' has no energy profile (energy_mj) in the catalog");
        assertUsageError(kairos("plan", "smdp", "--bootstrap-servers", NOWHERE, "--model", "googlenet", "--rate", "100", "--devices", "0"),
                "--devices must be at least 1, got 0");
        assertUsageError(kairos("plan", "smdp", "--bootstrap-servers", NOWHERE, "--model", "googlenet", "--telemetry-tail", "0"),
                "--telemetry-tail must be at least 1, got 0");
    }
}
