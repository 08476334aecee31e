package io.kairos.jobs.cli;

import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.assertj.core.api.Assertions.assertThat;

/** kairos control's arguments: each mistake is one line naming it, exit code 2, before anything is sent. */
class ControlCommandTest {

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
    void controlNeedsACommand() {
        assertUsageError(kairos("control"), "missing command: one of [set-policy, place, assign, show]");
    }

    @Test
    void placeNamesABadDevice() {
        assertUsageError(kairos("control", "place", "--bootstrap-servers", NOWHERE, "--group", "g", "--device", "x="),
                "kairos control place: --device 'x=': the device must be a slot number, got 'x'");
        assertUsageError(kairos("control", "place", "--bootstrap-servers", NOWHERE, "--group", "g", "--device", "0="),
                "--device '0=': no models");
        assertUsageError(kairos("control", "place", "--bootstrap-servers", NOWHERE, "--group", "g", "--device", "0"),
                "--device '0': expected DEVICE=MODEL[,MODEL...]");
        assertUsageError(kairos("control", "place", "--bootstrap-servers", NOWHERE, "--group", "g", "--device", "-1=mlp"),
                "the device must not be negative");
        assertUsageError(kairos("control", "place", "--bootstrap-servers", NOWHERE, "--group", "g", "--device", "0=mlp", "--device", "0=cnn"),
                "--device 0 is given twice");
        assertUsageError(kairos("control", "place", "--bootstrap-servers", NOWHERE, "--group", "g"), "--device");
    }

    @Test
    void setPolicyNamesAnUnknownPolicyAndABadParameter() {
        assertUsageError(kairos("control", "set-policy", "--bootstrap-servers", NOWHERE, "--group", "g", "--policy", "fastest"),
                "--policy 'fastest' is unknown; known: [clockwork, edf, fifo, flex, kairos, smdp, static, triton, work-conserving]");
        assertUsageError(kairos("control", "set-policy", "--bootstrap-servers", NOWHERE, "--group", "g", "--policy", "flex", "--param", "lambda"),
                "--param");
        assertUsageError(kairos("control", "set-policy", "--bootstrap-servers", NOWHERE, "--group", "g"), "--policy");
    }

    @Test
    void namesThatWouldShareAKeyAreRefused() {
        assertUsageError(kairos("control", "assign", "--bootstrap-servers", NOWHERE, "--model", "a/b", "--group", "g"),
                "model name 'a/b' contains '/'");
        assertUsageError(kairos("control", "set-policy", "--bootstrap-servers", NOWHERE, "--group", "", "--policy", "flex"),
                "the group name is empty");
    }

    @Test
    void negativeWaitAndEmptyWriterAreRefused() {
        assertUsageError(kairos("control", "assign", "--bootstrap-servers", NOWHERE, "--model", "m", "--group", "g", "--wait-ms", "-1"),
                "--wait-ms must not be negative, got -1");
        assertUsageError(kairos("control", "assign", "--bootstrap-servers", NOWHERE, "--model", "m", "--group", "g", "--writer", " "),
                "--writer must not be empty");
        assertUsageError(kairos("control", "show", "--bootstrap-servers", NOWHERE, "--devices", "0"), "--devices must be at least 1, got 0");
    }
}
