package io.kairos.jobs.cli;

import org.junit.jupiter.api.Test;


import static io.kairos.jobs.cli.KairosRun.assertUsageError;
import static org.assertj.core.api.Assertions.assertThat;

/** kairos control's arguments: each mistake is one line naming it, exit code 2, before anything is sent. */
class ControlCommandTest {

    @Test
    void controlNeedsACommand() {
        assertUsageError(KairosRun.of("control"), "missing command: one of [set-policy, place, assign, pipeline, network, show, status]");
    }

    @Test
    void placeNamesABadDevice() {
        assertUsageError(KairosRun.of("control", "place", "--bootstrap-servers", KairosRun.NOWHERE, "--group", "g", "--device", "x="),
                "kairos control place: --device 'x=': the device must be a slot number, got 'x'");
        assertUsageError(KairosRun.of("control", "place", "--bootstrap-servers", KairosRun.NOWHERE, "--group", "g", "--device", "0="),
                "--device '0=': no models");
        assertUsageError(KairosRun.of("control", "place", "--bootstrap-servers", KairosRun.NOWHERE, "--group", "g", "--device", "0"),
                "--device '0': expected DEVICE=MODEL[,MODEL...]");
        assertUsageError(KairosRun.of("control", "place", "--bootstrap-servers", KairosRun.NOWHERE, "--group", "g", "--device", "-1=mlp"),
                "the device must not be negative");
        assertUsageError(KairosRun.of("control", "place", "--bootstrap-servers", KairosRun.NOWHERE, "--group", "g", "--device", "0=mlp", "--device", "0=cnn"),
                "--device 0 is given twice");
        assertUsageError(KairosRun.of("control", "place", "--bootstrap-servers", KairosRun.NOWHERE, "--group", "g"), "--device");
    }

    @Test
    void setPolicyNamesAnUnknownPolicyAndABadParameter() {
        assertUsageError(KairosRun.of("control", "set-policy", "--bootstrap-servers", KairosRun.NOWHERE, "--group", "g", "--policy", "fastest"),
                "--policy 'fastest' is unknown; known: [clockwork, edf, fifo, flex, kairos, random, rl, smdp, static, triton, work-conserving]");
        assertUsageError(KairosRun.of("control", "set-policy", "--bootstrap-servers", KairosRun.NOWHERE, "--group", "g", "--policy", "flex", "--param", "lambda"),
                "--param");
        assertUsageError(KairosRun.of("control", "set-policy", "--bootstrap-servers", KairosRun.NOWHERE, "--group", "g"), "--policy");
    }

    @Test
    void networkRefusesAFileItCannotSendOrTheJobCouldNotRun(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path missing = dir.resolve("none.krln");
        assertUsageError(KairosRun.of("control", "network", "--bootstrap-servers", KairosRun.NOWHERE, "--group", "g", "--file", missing.toString()),
                "kairos control network: --file '" + missing + "': cannot read it");
        java.nio.file.Path onnx = java.nio.file.Files.write(dir.resolve("policy.onnx"), new byte[] {8, 7, 18, 0});
        assertUsageError(KairosRun.of("control", "network", "--bootstrap-servers", KairosRun.NOWHERE, "--group", "g", "--file", onnx.toString()),
                "--file policy network '" + onnx + "': not a policy network (it does not start with 'KRLN')");
        java.nio.file.Path big = java.nio.file.Files.write(dir.resolve("big.krln"), new byte[1_000_001]);
        assertUsageError(KairosRun.of("control", "network", "--bootstrap-servers", KairosRun.NOWHERE, "--group", "g", "--file", big.toString()),
                "--file '" + big + "': 1000001 bytes, more than the 1000000 a decision carries within Kafka's default record size");
        assertUsageError(KairosRun.of("control", "network", "--bootstrap-servers", KairosRun.NOWHERE, "--group", "g"), "--file");
    }

    @Test
    void namesThatWouldShareAKeyAreRefused() {
        assertUsageError(KairosRun.of("control", "assign", "--bootstrap-servers", KairosRun.NOWHERE, "--model", "a/b", "--group", "g"),
                "model name 'a/b' contains '/'");
        assertUsageError(KairosRun.of("control", "set-policy", "--bootstrap-servers", KairosRun.NOWHERE, "--group", "", "--policy", "flex"),
                "the group name is empty");
    }

    @Test
    void negativeWaitAndEmptyWriterAreRefused() {
        assertUsageError(KairosRun.of("control", "assign", "--bootstrap-servers", KairosRun.NOWHERE, "--model", "m", "--group", "g", "--wait-ms", "-1"),
                "--wait-ms must not be negative, got -1");
        assertUsageError(KairosRun.of("control", "assign", "--bootstrap-servers", KairosRun.NOWHERE, "--model", "m", "--group", "g", "--writer", " "),
                "--writer must not be empty");
        assertUsageError(KairosRun.of("control", "show", "--bootstrap-servers", KairosRun.NOWHERE, "--devices", "0"), "--devices must be at least 1, got 0");
    }

    @Test
    void statusNamesABadArgumentBeforeItServes() {
        assertUsageError(KairosRun.of("control", "status", "--bootstrap-servers", KairosRun.NOWHERE, "--http", "70000"),
                "kairos control status: --http must be a port from 0 to 65535, got 70000");
        assertUsageError(KairosRun.of("control", "status", "--bootstrap-servers", KairosRun.NOWHERE, "--window", "0"), "--window must be at least 1 second, got 0");
        assertUsageError(KairosRun.of("control", "status", "--bootstrap-servers", KairosRun.NOWHERE, "--decisions", "0"), "--decisions must be at least 1, got 0");
        assertUsageError(KairosRun.of("control", "status", "--bootstrap-servers", KairosRun.NOWHERE, "--devices", "0"), "--devices must be at least 1, got 0");
        assertUsageError(KairosRun.of("control", "status", "--bootstrap-servers", KairosRun.NOWHERE, "--policy", "fastest"), "--policy 'fastest' is unknown");
        assertUsageError(KairosRun.of("control", "status", "--bootstrap-servers", KairosRun.NOWHERE, "--policy", "flex", "--policy-param", "lambda=abc"),
                "--policy-param");
        // An address of another host (TEST-NET-1): it cannot be bound here.
        assertUsageError(KairosRun.of("control", "status", "--bootstrap-servers", KairosRun.NOWHERE, "--http", "0", "--bind", "192.0.2.1"),
                "--http 0 --bind 192.0.2.1: cannot serve there");
    }

    @Test
    void pipelineNamesABadSpecBeforeAnythingIsSent(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path cyclic = dir.resolve("cyclic.json");
        java.nio.file.Files.writeString(cyclic, """
                {"pipeline": "p", "slo_p99_ms": 10, "stages": [{"name": "a", "model": "mlp"}, {"name": "b", "model": "mlp"}],
                 "edges": [{"from": "a", "to": "b", "probability": 1}, {"from": "b", "to": "a", "probability": 1}]}""");
        assertUsageError(KairosRun.of("control", "pipeline", "--bootstrap-servers", KairosRun.NOWHERE, "--spec", cyclic.toString()),
                "kairos control pipeline: --spec " + cyclic + ": pipeline 'p': field 'edges': the edges form a cycle: a -> b -> a");
        assertUsageError(KairosRun.of("control", "pipeline", "--bootstrap-servers", KairosRun.NOWHERE, "--spec", dir.resolve("none.json").toString()),
                "--spec " + dir.resolve("none.json") + ": cannot read the pipeline spec");
        assertUsageError(KairosRun.of("control", "pipeline", "--bootstrap-servers", KairosRun.NOWHERE, "--remove", "a/b"), "pipeline name 'a/b' contains '/'");
        assertUsageError(KairosRun.of("control", "pipeline", "--bootstrap-servers", KairosRun.NOWHERE), "Missing required argument");
        assertUsageError(KairosRun.of("control", "pipeline", "--bootstrap-servers", KairosRun.NOWHERE, "--spec", cyclic.toString(), "--remove", "p"),
                "mutually exclusive");
    }
}
