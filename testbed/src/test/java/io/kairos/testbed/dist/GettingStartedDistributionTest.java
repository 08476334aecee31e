package io.kairos.testbed.dist;

import io.kairos.tools.embedded.EmbeddedKafkaBroker;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * docs/getting-started.md's path from the distribution to a first result, followed as the page
 * writes it: every command of the {@code bash} blocks under {@value #HEADING}, read from the page
 * itself, one after the other in a fresh folder that holds only the tarball this build made (at
 * {@code jobs/target/}, where the page's tar line takes it), each run by bash with nothing of this
 * build around it (Java 17 as JAVA_HOME, {@code /usr/bin} and {@code /bin} on the PATH). Where the
 * page says {@code broker:9092}, an embedded Kafka broker's address stands in; where it says
 * {@code flink run}, a {@code flink} on the PATH runs the jar's program on a Flink mini-cluster
 * ({@link FlinkRunStandIn} says how and why). {@code python3} is {@code /usr/bin/python3}; where it
 * lacks Debian's avro, confluent_kafka or numpy the test stops at that command, skipped. The path
 * must end in a first result with status OK and an output, and the page's output block must show
 * what such a result prints.
 */
class GettingStartedDistributionTest {
    static final String HEADING = "## From the distribution to a first result";
    /** A result line of the Python example: id, status OK, batch, latency, the class (argmax of the output) and the first logits. */
    static final Pattern OK_RESULT = Pattern.compile("(?m)^\\S+\\s+OK\\s+batch\\s+\\d+\\s+[\\d.]+ ms\\s+class \\d+\\s+logits \\[.+\\] \\.\\.\\.$");
    /** Flink on Java 17 reflects into these (Flink 2.0's own config.yaml passes them to every process, as infra/cluster does). */
    static final List<String> JAVA_OPENS = List.of(
            "--add-exports=java.base/sun.net.util=ALL-UNNAMED", "--add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED",
            "--add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED",
            "--add-opens=java.base/java.lang=ALL-UNNAMED", "--add-opens=java.base/java.net=ALL-UNNAMED",
            "--add-opens=java.base/java.io=ALL-UNNAMED", "--add-opens=java.base/java.nio=ALL-UNNAMED",
            "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED", "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
            "--add-opens=java.base/java.text=ALL-UNNAMED", "--add-opens=java.base/java.time=ALL-UNNAMED",
            "--add-opens=java.base/java.util=ALL-UNNAMED", "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
            "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED", "--add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED");

    @TempDir
    static Path work;
    private static EmbeddedKafkaBroker broker;
    private static Path pids;

    @Test
    void followsThePageFromTheTarballToAFirstOkResultWithAnOutput() throws Exception {
        Path repository = repository();
        String page = Files.readString(repository.resolve("docs/getting-started.md"), StandardCharsets.UTF_8);
        String section = section(page, HEADING);
        List<String> commands = commands(section);
        assertThat(commands).as("the commands of " + HEADING).anyMatch(c -> c.startsWith("tar "))
                .anyMatch(c -> c.startsWith("bin/kairos topics create ")).anyMatch(c -> c.startsWith("flink run "))
                .anyMatch(c -> c.startsWith("python3 "));
        // The page's output block shows what the Python example prints: a result with status OK and its output.
        assertThat(OK_RESULT.matcher(outputBlocks(section)).find()).as("the page shows an OK result line of the example:\n" + outputBlocks(section)).isTrue();

        Path tarball = tarball(repository.resolve("jobs/target"));
        Path folder = Files.createDirectories(work.resolve("fresh"));
        Files.createDirectories(folder.resolve("jobs/target"));
        Files.createSymbolicLink(folder.resolve("jobs/target").resolve(tarball.getFileName()), tarball.toAbsolutePath());
        broker = EmbeddedKafkaBroker.start();
        Path tools = flinkStandIn(Path.of(folder.resolve("jobs/target").toString()), tarball);

        Path cwd = folder;
        Map<String, String> outputs = new LinkedHashMap<>();
        for (String command : commands) {
            String line = command.replace("broker:9092", broker.bootstrapServers());
            if (command.startsWith("python3 ")) {
                Run check = bash(cwd, tools, "/usr/bin/python3 -c 'import avro, confluent_kafka, numpy'");
                Assumptions.assumeTrue(check.code() == 0, "skipped at `" + command + "`: /usr/bin/python3 lacks avro, confluent_kafka or numpy "
                        + "(Debian's python3-avro, python3-confluent-kafka, python3-numpy); every command before it was followed");
            }
            Path where = work.resolve("cwd.txt");
            Run run = bash(cwd, tools, line + "\npwd > '" + where + "'");
            assertThat(run.code()).as("`%s` in %s exited with %d:\n%s\n%s", command, cwd, run.code(), run.out(), run.err()).isZero();
            cwd = Path.of(Files.readString(where).strip());
            outputs.put(command, run.out() + run.err());
            System.out.println("$ " + command + "\n" + run.out() + run.err()); // what a user following the page sees
        }

        String topics = outputs.entrySet().stream().filter(e -> e.getKey().startsWith("bin/kairos topics create ")).findFirst().orElseThrow().getValue();
        assertThat(topics).contains("created kairos-requests (requests)", "created kairos-results (results)",
                "created kairos-control (control): 1 partition(s), 1 replica(s), cleanup.policy=compact, retention.ms=-1");
        String python = outputs.entrySet().stream().filter(e -> e.getKey().startsWith("python3 ")).reduce((a, b) -> b).orElseThrow().getValue();
        Matcher ok = OK_RESULT.matcher(python);
        assertThat(ok.find()).as("an OK result with an output in what the Python step printed:\n" + python).isTrue();
    }

    @AfterAll
    static void stop() throws IOException {
        if (pids != null && Files.exists(pids)) {
            for (String pid : Files.readAllLines(pids)) {
                if (pid.isBlank()) continue;
                ProcessHandle.of(Long.parseLong(pid.strip())).ifPresent(p -> {
                    p.destroy();
                    try {
                        p.onExit().get(20, TimeUnit.SECONDS);
                    } catch (Exception e) {
                        p.destroyForcibly();
                    }
                });
            }
        }
        if (broker != null) broker.close();
    }

    /** The repository's root: the test runs in the testbed module. */
    private static Path repository() {
        Path root = Path.of(System.getProperty("kairos.home", "..")).toAbsolutePath().normalize();
        if (!Files.isRegularFile(root.resolve("docs/getting-started.md"))) root = Path.of("..").toAbsolutePath().normalize();
        return root;
    }

    private static Path tarball(Path target) throws IOException {
        Path found = null;
        if (Files.isDirectory(target)) {
            try (Stream<Path> files = Files.list(target)) {
                found = files.filter(p -> p.getFileName().toString().matches("kairos-.+-bin\\.tar\\.gz")).findFirst().orElse(null);
            }
        }
        assumeThat(found).as("the distribution in jobs/target (built by mvn package)").isNotNull();
        return found;
    }

    /** The part of {@code page} under {@code heading}, up to the next heading of the same level or higher. */
    static String section(String page, String heading) {
        int start = page.indexOf("\n" + heading + "\n");
        assertThat(start).as("docs/getting-started.md has the heading '" + heading + "'").isNotNegative();
        String rest = page.substring(start + heading.length() + 2);
        Matcher next = Pattern.compile("(?m)^#{1,2} ").matcher(rest);
        // A "## " inside a fenced block is a comment, not a heading: only headings outside blocks end the section.
        boolean fenced = false;
        int end = rest.length();
        int at = 0;
        for (String l : rest.split("\n", -1)) {
            if (l.startsWith("```")) fenced = !fenced;
            else if (!fenced && next.reset(l).lookingAt()) {
                end = at;
                break;
            }
            at += l.length() + 1;
        }
        return rest.substring(0, Math.min(end, rest.length()));
    }

    /** The commands of the {@code bash} blocks of {@code section}, in order: one a line, a trailing backslash joining the next. */
    static List<String> commands(String section) {
        List<String> commands = new ArrayList<>();
        boolean inBash = false;
        StringBuilder pending = new StringBuilder();
        for (String l : section.split("\n", -1)) {
            if (l.startsWith("```")) {
                inBash = !inBash && l.strip().equals("```bash");
                continue;
            }
            if (!inBash || l.isBlank() || l.strip().startsWith("#")) continue;
            if (l.endsWith("\\")) {
                pending.append(l, 0, l.length() - 1).append(' ');
                continue;
            }
            commands.add((pending + l).strip());
            pending.setLength(0);
        }
        return commands;
    }

    /** The text of the blocks of {@code section} that are not bash: the outputs it shows. */
    static String outputBlocks(String section) {
        StringBuilder out = new StringBuilder();
        boolean inBlock = false;
        boolean bash = false;
        for (String l : section.split("\n", -1)) {
            if (l.startsWith("```")) {
                if (!inBlock) bash = l.strip().equals("```bash");
                inBlock = !inBlock;
                continue;
            }
            if (inBlock && !bash) out.append(l).append('\n');
        }
        return out.toString();
    }

    /**
     * A folder with {@code flink}: a script that runs {@link FlinkRunStandIn} in a JVM of its own, whose
     * class path is Flink's: this test's class path without the checkout's modules and without the
     * jars whose Flink classes the job jar bundles (its Kafka connector and formats), which a Flink
     * cluster's lib/ does not have either. With {@code -d}, the script starts that JVM in the
     * background and returns once the job is submitted, printing Flink's line, as {@code flink run -d}.
     */
    private static Path flinkStandIn(Path target, Path tarball) throws IOException {
        Path tools = Files.createDirectories(work.resolve("tools"));
        pids = work.resolve("flink.pids");
        String version = tarball.getFileName().toString().replaceAll("^kairos-(.+)-bin\\.tar\\.gz$", "$1");
        Path jobJar = tarball.getParent().resolve("kairos-jobs-" + version + "-job.jar");
        List<String> classPath = clusterClassPath(jobJar);
        Path argFile = work.resolve("flink.args");
        List<String> jvm = new ArrayList<>(List.of("-Xmx1g", "-XX:TieredStopAtLevel=1", "-Dkairos.test.parent=" + ProcessHandle.current().pid()));
        jvm.addAll(JAVA_OPENS);
        jvm.add("-cp");
        jvm.add('"' + String.join(File.pathSeparator, classPath) + '"');
        jvm.add(FlinkRunStandIn.class.getName());
        Files.write(argFile, jvm);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Path flink = tools.resolve("flink");
        Files.writeString(flink, """
                #!/usr/bin/env bash
                # flink's stand-in for GettingStartedDistributionTest: `flink run [-d] JAR ARGS` on a mini-cluster.
                set -euo pipefail
                detached=0
                for a in "$@"; do case "$a" in -d|--detached) detached=1 ;; -*) ;; *) [ "$a" = run ] || break ;; esac; done
                if [ $detached -eq 0 ]; then exec '%1$s' @'%2$s' "$@"; fi
                log='%3$s'/flink-$$.log
                '%1$s' @'%2$s' "$@" > "$log" 2>&1 < /dev/null &
                echo $! >> '%4$s'
                for _ in $(seq 1 1200); do
                  if grep -q 'Job has been submitted with JobID' "$log"; then grep 'Job has been submitted with JobID' "$log"; exit 0; fi
                  kill -0 $! 2>/dev/null || { cat "$log" >&2; exit 1; }
                  sleep 0.1
                done
                echo "flink run: the job was not submitted within 120 s" >&2; cat "$log" >&2; exit 1
                """.formatted(java, argFile, work, pids));
        assertThat(flink.toFile().setExecutable(true)).isTrue();
        return tools;
    }

    /** This test's class path as a Flink cluster's: see {@link #flinkStandIn}. */
    private static List<String> clusterClassPath(Path jobJar) throws IOException {
        Set<String> jobFlinkClasses = new HashSet<>();
        try (ZipFile zip = new ZipFile(jobJar.toFile())) {
            zip.stream().map(ZipEntry::getName).filter(n -> n.startsWith("org/apache/flink/") && n.endsWith(".class")).forEach(jobFlinkClasses::add);
        }
        String own;
        try {
            own = Path.of(FlinkRunStandIn.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        List<String> kept = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path p = Path.of(entry);
            if (p.toString().equals(own)) {
                kept.add(entry);
                continue;
            }
            if (Files.isDirectory(p) || !Files.isRegularFile(p) || p.getFileName().toString().startsWith("kairos-")) continue;
            boolean bundled;
            try (ZipFile zip = new ZipFile(p.toFile())) {
                bundled = zip.stream().anyMatch(e -> jobFlinkClasses.contains(e.getName()));
            }
            if (!bundled) kept.add(entry);
        }
        return kept;
    }

    private record Run(int code, String out, String err) {}

    /** {@code script} run by bash in {@code dir}, with only Java 17 as JAVA_HOME and {@code tools}, /usr/bin and /bin on the PATH. */
    private static Run bash(Path dir, Path tools, String script) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder("/bin/bash", "-e", "-o", "pipefail", "-c", script).directory(dir.toFile());
        pb.environment().clear();
        pb.environment().putAll(Map.of("JAVA_HOME", System.getProperty("java.home"), "PATH", tools + ":/usr/bin:/bin",
                "HOME", work.toString(), "KAIROS_JAVA_OPTS", "-Xmx256m", "LANG", "C.UTF-8"));
        Path out = Files.createTempFile(work, "out", ".txt");
        Path err = Files.createTempFile(work, "err", ".txt");
        pb.redirectOutput(out.toFile()).redirectError(err.toFile()).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        Process p = pb.start();
        if (!p.waitFor(150, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            throw new AssertionError("`" + script + "` did not end within 150 s; its output: " + Files.readString(out) + Files.readString(err));
        }
        return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
    }
}
