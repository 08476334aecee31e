package io.kairos.testbed.dist;

import io.kairos.testbed.SharedBroker;
import io.kairos.tools.embedded.EmbeddedKafkaBroker;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * The binary distribution, as a user gets it: {@code kairos-<version>-bin.tar.gz} from this build's
 * jobs module (packaged before the testbed's tests run), unpacked in a folder of its own and run
 * with nothing but Java, no checkout or Maven: {@code bin/kairos} publishes a decision to a real
 * broker and shows the plan it makes, and plans an SMDP batching table. It holds the job jar and
 * the tuner's, the command line with its own dependencies, the Python client and the LICENSE, and
 * nothing of the testbed or the embedded broker. {@link GettingStartedDistributionTest} follows
 * getting-started's path from it to a first result.
 */
class DistributionTest {
    /** Jars of the testbed and of the broker it embeds, and Flink's own (the cluster brings it). */
    private static final List<String> NOT_SHIPPED = List.of(
            "kairos-testbed", "kafka_2.13", "kafka-server", "kafka-storage", "kafka-raft", "kafka-metadata",
            "scala-library", "zookeeper", "xchart", "flink-runtime", "flink-streaming-java", "flink-clients", "flink-test-utils");

    @TempDir
    static Path unpacked;
    private static Path tarball;
    private static Path home;

    @BeforeAll
    static void unpack() throws IOException, InterruptedException {
        Path target = Path.of(System.getProperty("kairos.home", ".."), "jobs", "target");
        if (!Files.isDirectory(target)) target = Path.of("..", "jobs", "target");
        try (Stream<Path> files = Files.list(target)) {
            tarball = files.filter(p -> p.getFileName().toString().matches("kairos-.+-bin\\.tar\\.gz")).findFirst().orElse(null);
        }
        assumeThat(tarball).as("the distribution in jobs/target (built by mvn package)").isNotNull();
        Path install = Files.createDirectory(unpacked.resolve("install"));
        Run tar = run(install, List.of("tar", "-xzf", tarball.toAbsolutePath().toString()), Map.of("PATH", "/usr/bin:/bin"));
        assertThat(tar.code()).as(tar.err()).isZero();
        try (Stream<Path> top = Files.list(install)) {
            List<Path> folders = top.toList();
            String version = tarball.getFileName().toString().replaceAll("^kairos-(.+)-bin\\.tar\\.gz$", "$1");
            assertThat(folders).as("one top folder").containsExactly(install.resolve("kairos-" + version));
            home = folders.get(0);
        }
    }

    @Test
    void holdsTheJobJarTheCommandLineAndWhatAUserReads() throws IOException {
        assertThat(home.resolve("bin/kairos")).isExecutable();
        assertThat(home.resolve("README.txt")).content().contains("flink run -d job/kairos-jobs-").contains("bin/kairos topics create")
                .containsPattern("Flink 2\\.\\d+\\.\\d+ with the Kafka connector \\S+ \\(Kafka\\s+clients \\d+\\.\\d+\\.\\d+");
        assertThat(home.resolve("LICENSE")).content().contains("Apache License", "Version 2.0, January 2004", "END OF TERMS AND CONDITIONS");
        try (Stream<Path> jobs = Files.list(home.resolve("job"))) {
            assertThat(jobs.map(p -> p.getFileName().toString()).sorted()).hasSize(2)
                    .anyMatch(n -> n.matches("kairos-jobs-.+-job\\.jar")).anyMatch(n -> n.matches("kairos-jobs-.+-tuner\\.jar"));
        }
        // The SQL model provider: one jar that registers its factory with Flink's discovery.
        try (Stream<Path> sql = Files.list(home.resolve("sql"))) {
            List<Path> jars = sql.toList();
            assertThat(jars).hasSize(1).allMatch(p -> p.getFileName().toString().matches("kairos-sql-.+-provider\\.jar"));
            try (java.util.jar.JarFile jar = new java.util.jar.JarFile(jars.get(0).toFile())) {
                java.util.jar.JarEntry services = jar.getJarEntry("META-INF/services/org.apache.flink.table.factories.Factory");
                assertThat(services).isNotNull();
                assertThat(new String(jar.getInputStream(services).readAllBytes(), java.nio.charset.StandardCharsets.UTF_8)).contains("io.kairos.sql.KairosModelProviderFactory");
                assertThat(jar.getJarEntry("io/kairos/sql/shaded/org/apache/kafka/clients/producer/KafkaProducer.class")).as("Kafka's client, relocated").isNotNull();
                assertThat(jar.getJarEntry("org/apache/flink/table/factories/Factory.class")).as("Flink stays out").isNull();
            }
        }
        for (String file : List.of("README.md", "kairos_client/__init__.py", "kairos_client/client.py", "kairos_client/schemas.py", "examples/classify.py")) {
            assertThat(home.resolve("python").resolve(file)).isNotEmptyFile();
        }
        assertThat(home.resolve("python/examples/classify.py")).isExecutable();
        assertThat(home.resolve("python/tests")).doesNotExist();
        for (String model : List.of("mlp", "cnn", "resnet")) {
            assertThat(home.resolve("models").resolve(model).resolve("model.onnx")).isNotEmptyFile();
            assertThat(home.resolve("models").resolve(model).resolve("model.json")).content().contains("\"name\": \"" + model + "\"");
        }
        assertThat(home.resolve("schemas/InferenceRequest.avsc")).content().containsPattern("\"name\"\\s*:\\s*\"InferenceRequest\"");
        assertThat(home.resolve("schemas/InferenceResult.avsc")).isNotEmptyFile();
        assertThat(home.resolve("grafana/kairos.json")).content().contains("\"panels\"");
        assertThat(lib()).anyMatch(n -> n.startsWith("kairos-jobs-")).anyMatch(n -> n.startsWith("picocli-"))
                .anyMatch(n -> n.startsWith("kafka-clients-")).anyMatch(n -> n.startsWith("onnxruntime-"))
                .anyMatch(n -> n.startsWith("log4j-core-"));
    }

    @Test
    void holdsNoTestbedClassNorTheEmbeddedBrokerNorFlink() throws IOException {
        assertThat(lib()).noneMatch(n -> NOT_SHIPPED.stream().anyMatch(n::startsWith));
        List<String> found = new ArrayList<>();
        try (Stream<Path> jars = Files.walk(home).filter(p -> p.toString().endsWith(".jar"))) {
            for (Path jar : jars.toList()) {
                try (ZipFile zip = new ZipFile(jar.toFile())) {
                    zip.stream().map(ZipEntry::getName)
                            // the broker's own classes (kafka.*) and Scala, which only the broker runs on
                            .filter(n -> n.startsWith("io/kairos/testbed/")
                                    || (n.startsWith("kafka/") || n.startsWith("scala/")) && n.endsWith(".class"))
                            .forEach(n -> found.add(jar.getFileName() + "!" + n));
                }
            }
        }
        assertThat(found).isEmpty();
    }

    @Test
    void plansAnSmdpTable() throws IOException, InterruptedException {
        Run plan = kairos("plan", "smdp", "--model", "googlenet", "--rate", "2000", "--dry-run");

        assertThat(plan.code()).as(plan.err()).isZero();
        assertThat(plan.out()).contains("model googlenet in serving group default: 2000 requests/s on 1 device(s)")
                .containsPattern("(?m)^table: 0-\\d+:wait .*S_o:\\d+$")
                .containsPattern("(?m)^control limit \\d+; average cost g ");
    }

    @Test
    void plansHerdGroupsWithItsSolver() throws IOException, InterruptedException {
        // OR-Tools and its Linux native library ship in lib/ for the command line: the ILP runs from the distribution.
        Path models = Files.writeString(unpacked.resolve("herd-models.json"), """
                {"models": [
                  {"name": "m1", "input": {"dtype": "FLOAT32", "shape": [1]}, "batch_sizes": [1], "latency_ms": {"table": {"1": 1}}, "memory_bytes": 8589934592},
                  {"name": "m2", "input": {"dtype": "FLOAT32", "shape": [1]}, "batch_sizes": [1], "latency_ms": {"table": {"1": 1}}, "memory_bytes": 8589934592},
                  {"name": "m3", "input": {"dtype": "FLOAT32", "shape": [1]}, "batch_sizes": [1], "latency_ms": {"table": {"1": 1}}, "memory_bytes": 8589934592}
                ]}""");
        Path streams = Files.writeString(unpacked.resolve("herd-streams.json"), """
                {"streams": [
                  {"name": "a", "model": "m1", "rate_per_s": 400, "slo_ms": 50},
                  {"name": "b", "model": "m2", "rate_per_s": 200, "slo_ms": 50},
                  {"name": "c", "model": "m3", "rate_per_s": 100, "slo_ms": 50}
                ]}""");
        Run plan = kairos("plan", "herd", "--models", models.toString(), "--streams", streams.toString(), "--devices", "4", "--max-group", "3",
                "--device-memory-mb", "16384");

        assertThat(plan.code()).as(plan.err()).isZero();
        // As in PlanHerdOnBrokerTest: {m1, m2} on 3 devices, {m3} on 1.
        assertThat(plan.out()).contains("group herd-1: 3 device(s) 0-2, models m1, m2").contains("group herd-2: 1 device(s) 3, models m3")
                .containsPattern("minimum burst tolerance [0-9.]+ \\(optimal");
    }

    @Test
    void publishesADecisionAndShowsThePlanOnABroker() throws IOException, InterruptedException {
        EmbeddedKafkaBroker broker = SharedBroker.get();
        String topic = "dist-control";
        broker.createTopic(topic, 1, Map.of("cleanup.policy", "compact"));
        broker.createTopic(topic + "-outcomes", 1);

        Run publish = kairos("control", "set-policy", "--bootstrap-servers", broker.bootstrapServers(), "--control-topic", topic,
                "--outcomes-topic", topic + "-outcomes", "--wait-ms", "0", "--group", "default", "--policy", "triton", "--param", "max_batch=8");
        assertThat(publish.code()).as(publish.err()).isZero();
        assertThat(publish.out()).startsWith("published ");

        Run show = kairos("control", "show", "--bootstrap-servers", broker.bootstrapServers(), "--control-topic", topic, "--devices", "2");
        assertThat(show.code()).as(show.err()).isZero();
        assertThat(show.out()).contains(topic + ": 1 decisions read, 1 applied, 0 rejected, 0 duplicate")
                .contains("group default: policy triton {max_batch=8}")
                .contains("  device 0: every model", "  device 1: every model");
    }

    @Test
    void serveSaysToSubmitTheJobJarToFlink() throws IOException, InterruptedException {
        Run serve = kairos("serve", "--bootstrap-servers", "127.0.0.1:1");

        assertThat(serve.code()).isEqualTo(1);
        assertThat(serve.err().strip()).startsWith("kairos serve: error: the job runs in Flink")
                .contains("flink run " + home.resolve("job")).doesNotContain("Exception");
    }

    private static List<String> lib() throws IOException {
        try (Stream<Path> jars = Files.list(home.resolve("lib"))) {
            return jars.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /**
     * The unpacked {@code bin/kairos} with {@code args}, as a user runs it: from the distribution's
     * folder, with the JDK that runs this test as JAVA_HOME and no other setting of this build.
     */
    private static Run kairos(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(home.resolve("bin/kairos").toString()));
        command.addAll(List.of(args));
        return run(home, command, Map.of("JAVA_HOME", System.getProperty("java.home"), "PATH", "/usr/bin:/bin",
                "HOME", unpacked.toString(), "KAIROS_JAVA_OPTS", "-Xmx256m"));
    }

    private record Run(int code, String out, String err) {}

    private static Run run(Path dir, List<String> command, Map<String, String> env) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile());
        pb.environment().clear();
        pb.environment().putAll(env);
        Path out = Files.createTempFile(unpacked, "out", ".txt");
        Path err = Files.createTempFile(unpacked, "err", ".txt");
        pb.redirectOutput(out.toFile()).redirectError(err.toFile());
        Process p = pb.start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(command + " did not end within 120 s; its output: " + Files.readString(out) + Files.readString(err));
        }
        return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
    }
}
