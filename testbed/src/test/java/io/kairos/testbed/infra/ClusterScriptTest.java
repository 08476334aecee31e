package io.kairos.testbed.infra;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What {@code infra/cluster} prints is plain text: no escape sequence reaches a log or a pipe, even
 * from a Maven that writes colour resets in batch mode with colours off (Debian's Maven 3.8 does,
 * which showed as stray codes on a first {@code up}). The script runs against a stand-in {@code mvn}
 * on the {@code PATH} that writes such codes, with its cluster home and artifact cache in a
 * temporary folder, so that nothing is fetched and no process of a cluster starts.
 */
class ClusterScriptTest {

    private static final Path SCRIPT = repositoryRoot().resolve("infra").resolve("cluster");

    private static Path repositoryRoot() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.isRegularFile(p.resolve("infra").resolve("cluster"))) p = p.getParent();
        if (p == null) throw new IllegalStateException("no infra/cluster above " + Path.of("").toAbsolutePath());
        return p;
    }

    private record Run(int exitCode, String output) {}

    private static Run cluster(Path tmp, String... args) throws IOException, InterruptedException {
        Path bin = tmp.resolve("bin");
        Files.createDirectories(bin);
        // Writes what Maven 3.8 writes around its output in batch mode: resets and a bold word,
        // on stdout and stderr; records the MAVEN_OPTS it was given.
        Path mvn = bin.resolve("mvn");
        Files.writeString(mvn, """
                #!/usr/bin/env bash
                printf '\\033[0m\\033[0m'
                printf '\\033[1mINFO\\033[m copying\\n' >&2
                echo "$MAVEN_OPTS" > "$(dirname "$0")/maven-opts"
                printf '\\033[0m'
                """);
        Files.setPosixFilePermissions(mvn, PosixFilePermissions.fromString("rwxr-xr-x"));
        List<String> command = new java.util.ArrayList<>(List.of("bash", SCRIPT.toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
        pb.environment().put("KAIROS_CLUSTER_HOME", tmp.resolve("home").toString());
        pb.environment().put("KAIROS_CLUSTER_DIST", tmp.resolve("dist").toString());
        pb.environment().remove("MAVEN_OPTS");
        Process p = pb.start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("infra/cluster %s ended", String.join(" ", args)).isTrue();
        return new Run(p.exitValue(), out);
    }

    @Test
    void aFirstFetchPrintsPlainTextWhateverMavenWrites(@TempDir Path tmp) throws Exception {
        Run run = cluster(tmp, "fetch");

        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.output()).doesNotContain("\u001b");
        assertThat(run.output().lines().toList()).containsExactly(
                "cluster: fetching Kafka, Flink and ZooKeeper from Maven Central into " + tmp.resolve("dist") + " (once) ...",
                "INFO copying",
                "INFO copying",
                "INFO copying",
                "cluster: artifacts in " + tmp.resolve("dist"));
        // Maven is asked not to write the resets at all; the filter is the second line of defence.
        assertThat(Files.readString(tmp.resolve("bin").resolve("maven-opts"))).contains("-Djansi.noreset=true");

        Run again = cluster(tmp, "fetch");
        assertThat(again.output()).as("a second fetch fetches nothing").isEqualTo("cluster: artifacts in " + tmp.resolve("dist") + "\n");
    }

    @Test
    void statusOfAHomeWhereNothingRunsSaysSoWithExitCodeThree(@TempDir Path tmp) throws Exception {
        Run run = cluster(tmp, "status");

        assertThat(run.exitCode()).isEqualTo(3);
        assertThat(run.output()).isEqualTo("cluster: not running\n");
    }

    @Test
    void aHomeHoldsOneKindOfClusterAndSaysWhichBeforeStartingAnything(@TempDir Path tmp) throws Exception {
        Path data = tmp.resolve("home").resolve("data");
        Files.createDirectories(data);
        Files.writeString(data.resolve("mode"), "plain\n");

        Run run = cluster(tmp, "up", "--ha");

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.output()).isEqualTo("cluster: " + tmp.resolve("home") + " holds a plain cluster: 'infra/cluster up' starts it again,"
                + " 'infra/cluster clean' deletes it (or set KAIROS_CLUSTER_HOME for another home)\n");
        assertThat(tmp.resolve("dist")).as("nothing fetched").doesNotExist();

        Files.writeString(data.resolve("mode"), "ha\n");
        Run plain = cluster(tmp, "up");
        assertThat(plain.exitCode()).isEqualTo(1);
        assertThat(plain.output()).startsWith("cluster: " + tmp.resolve("home") + " holds an HA cluster: 'infra/cluster up --ha' starts it again,");
    }

    @Test
    void onlyAnHaClusterHasALeadingJobManager(@TempDir Path tmp) throws Exception {
        Run run = cluster(tmp, "leader");

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.output()).isEqualTo("cluster: leader: this home's cluster is not an HA one; its JobManager is 'jobmanager'\n");
    }

    @Test
    void theHaClusterHasRoomForSevenTaskManagersAndTheSpare(@TempDir Path tmp) throws Exception {
        Run run = cluster(tmp, "up", "--ha", "--taskmanagers", "8");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.output().lines()).hasSize(1).first().asString()
                .startsWith("cluster: --taskmanagers with --ha must be 1 to 7");
    }

    @Test
    void aBadArgumentIsOneLineWithExitCodeTwo(@TempDir Path tmp) throws Exception {
        Run run = cluster(tmp, "up", "--taskmanagers", "12");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.output().lines()).hasSize(1).first().asString()
                .startsWith("cluster: --taskmanagers must be 1 to 9");
    }
}
