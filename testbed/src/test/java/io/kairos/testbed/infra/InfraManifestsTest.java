package io.kairos.testbed.infra;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import io.kairos.jobs.ServeCommand;
import io.kairos.jobs.ServingConfig;
import io.kairos.jobs.ServingJobMain;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.Reader;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The deployment manifests under {@code infra/} cannot be started here (no Docker, no Kubernetes),
 * so this test reads them: every file parses, and the fields that tie them to the job agree with
 * the job itself. The job's arguments are parsed by the job's own command line ({@link ServeCommand}),
 * so a renamed or mistyped flag fails here rather than in a crash-looping pod; the topics the job
 * reads and writes must be the ones each deployment creates; the jar path must be where the image
 * puts the jar.
 */
class InfraManifestsTest {

    private static final Path ROOT = repositoryRoot();
    private static final Path INFRA = ROOT.resolve("infra");
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Where infra/docker/Dockerfile puts the job jar, and where every manifest must look for it. */
    private static final String JAR_IN_IMAGE = "/opt/kairos/kairos-jobs.jar";

    private static Path repositoryRoot() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.isDirectory(p.resolve("infra"))) p = p.getParent();
        if (p == null) throw new IllegalStateException("no infra/ folder above " + Path.of("").toAbsolutePath());
        return p;
    }

    /**
     * Every YAML document of a file (Kubernetes manifests hold several, separated by ---), read by
     * SnakeYAML, which resolves anchors and aliases (the compose file shares Flink's configuration
     * between services with one), then handed to Jackson for JSON-pointer access.
     */
    private static List<JsonNode> documents(Path file) throws IOException {
        List<JsonNode> docs = new ArrayList<>();
        try (Reader in = Files.newBufferedReader(file)) {
            for (Object doc : new Yaml(new SafeConstructor(new LoaderOptions())).loadAll(in)) {
                if (doc != null) docs.add(JSON.valueToTree(doc));
            }
        }
        return docs;
    }

    private static List<JsonNode> k8sResources() throws IOException {
        List<JsonNode> all = new ArrayList<>();
        try (Stream<Path> files = Files.list(INFRA.resolve("k8s"))) {
            for (Path f : files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) all.addAll(documents(f));
        }
        return all;
    }

    private static List<JsonNode> ofKind(List<JsonNode> resources, String kind) {
        return resources.stream().filter(r -> r.path("kind").asText().equals(kind)).toList();
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }

    /** The job's configuration from these arguments, exactly as {@link ServingJobMain} would parse them. */
    private static ServingConfig serveConfig(List<String> args) {
        String[] a = args.toArray(String[]::new);
        StringWriter err = new StringWriter();
        CommandLine cl = ServeCommand.commandLine(new ServeCommand(), a);
        cl.setErr(new PrintWriter(err, true));
        try {
            cl.parseArgs(a);
            return ((ServeCommand) cl.getCommand()).config();
        } catch (CommandLine.ParameterException e) {
            throw new AssertionError("the job rejects the arguments " + args + ": " + e.getMessage(), e);
        }
    }

    /** A compose {@code environment} or Flink configuration block of "key: value" lines, as a map. */
    private static Map<String, String> flinkProperties(String lines) {
        Map<String, String> props = new LinkedHashMap<>();
        for (String line : lines.split("\n")) {
            int colon = line.indexOf(": ");
            if (line.isBlank() || line.startsWith("#")) continue;
            assertThat(colon).as("line '%s' of FLINK_PROPERTIES is 'key: value'", line).isPositive();
            props.put(line.substring(0, colon).trim(), line.substring(colon + 2).trim());
        }
        return props;
    }

    @Test
    void everyManifestParses() throws IOException {
        try (Stream<Path> files = Files.walk(INFRA)) {
            List<Path> yamls = files.filter(f -> f.toString().endsWith(".yaml") || f.toString().endsWith(".yml")).toList();
            assertThat(yamls).hasSizeGreaterThanOrEqualTo(6);
            for (Path f : yamls) assertThat(documents(f)).as("documents in %s", f).isNotEmpty();
        }
        for (JsonNode r : k8sResources()) {
            assertThat(r.path("apiVersion").asText()).as("apiVersion of %s", r).isNotEmpty();
            assertThat(r.path("kind").asText()).as("kind of %s", r).isNotEmpty();
            assertThat(r.path("metadata").path("name").asText()).as("metadata.name of %s", r).isNotEmpty();
        }
    }

    @Test
    void dockerfilePutsTheJobJarWhereTheManifestsLookForIt() throws IOException {
        String dockerfile = Files.readString(INFRA.resolve("docker/Dockerfile"));
        assertThat(dockerfile).containsPattern("(?m)^FROM flink:2\\.0\\.0-java17$");
        assertThat(dockerfile).containsPattern("(?m)^COPY jobs/target/kairos-jobs-0\\.1\\.0-SNAPSHOT-job\\.jar " + Pattern.quote(JAR_IN_IMAGE) + "$");
        // The jar that `mvn package` builds has that name (the README and infra/cluster name it too).
        String pom = Files.readString(ROOT.resolve("jobs/pom.xml"));
        assertThat(pom).contains("<shadedClassifierName>job</shadedClassifierName>");
        assertThat(Files.readString(ROOT.resolve("pom.xml"))).contains("<version>0.1.0-SNAPSHOT</version>");
    }

    @Test
    void flinkDeploymentRunsTheJobJarWithValidFlagsGpusAndCheckpoints() throws IOException {
        List<JsonNode> resources = k8sResources();
        List<JsonNode> deployments = ofKind(resources, "FlinkDeployment");
        assertThat(deployments).hasSize(1);
        JsonNode fd = deployments.get(0);
        assertThat(fd.path("apiVersion").asText()).isEqualTo("flink.apache.org/v1beta1");
        assertThat(fd.at("/spec/flinkVersion").asText()).isEqualTo("v2_0");

        JsonNode job = fd.at("/spec/job");
        assertThat(job.path("jarURI").asText()).isEqualTo("local://" + JAR_IN_IMAGE);
        assertThat(job.path("entryClass").asText()).isEqualTo(ServingJobMain.class.getName());
        ServingConfig config = serveConfig(strings(job.path("args")));
        assertThat(job.path("parallelism").asInt()).as("parallelism covers the device slots").isGreaterThanOrEqualTo(config.devices);

        // The job talks to the Strimzi cluster's bootstrap service, on a listener that exists.
        JsonNode kafka = ofKind(resources, "Kafka").get(0);
        String cluster = kafka.at("/metadata/name").asText();
        List<Integer> ports = new ArrayList<>();
        kafka.at("/spec/kafka/listeners").forEach(l -> { if (!l.path("tls").asBoolean()) ports.add(l.path("port").asInt()); });
        assertThat(ports).isNotEmpty();
        assertThat(config.bootstrapServers).isEqualTo(cluster + "-kafka-bootstrap:" + ports.get(0));

        // Every topic the job uses is a KafkaTopic of that cluster.
        List<JsonNode> topics = ofKind(resources, "KafkaTopic");
        List<String> names = topics.stream().map(t -> t.at("/metadata/name").asText()).toList();
        assertThat(names).containsAll(config.topics());
        for (JsonNode t : topics) assertThat(t.at("/metadata/labels/strimzi.io~1cluster").asText()).isEqualTo(cluster);
        JsonNode control = topics.stream().filter(t -> t.at("/metadata/name").asText().equals(config.controlTopic)).findFirst().orElseThrow();
        assertThat(control.at("/spec/config/cleanup.policy").asText()).isEqualTo("compact");
        assertThat(control.at("/spec/partitions").asInt()).as("control decisions in one order").isEqualTo(1);

        JsonNode flink = fd.at("/spec/flinkConfiguration");
        assertThat(flink.path("external-resources").asText()).isEqualTo("gpu");
        assertThat(flink.path("external-resource.gpu.amount").asInt()).isEqualTo(1);
        assertThat(flink.path("external-resource.gpu.kubernetes.config-key").asText()).isEqualTo("nvidia.com/gpu");
        assertThat(flink.path("external-resource.gpu.driver-factory.class").asText()).isEqualTo("org.apache.flink.externalresource.gpu.GPUDriverFactory");
        assertThat(flink.path("execution.checkpointing.dir").asText()).startsWith("file:///flink-data/");
        assertThat(flink.path("metrics.reporter.prom.factory.class").asText()).isEqualTo("org.apache.flink.metrics.prometheus.PrometheusReporterFactory");

        // The checkpoint volume is mounted where the configuration writes, from a claim that exists.
        JsonNode pod = fd.at("/spec/podTemplate/spec");
        assertThat(pod.at("/containers/0/name").asText()).isEqualTo("flink-main-container");
        assertThat(pod.at("/containers/0/volumeMounts/0/mountPath").asText()).isEqualTo("/flink-data");
        String claim = pod.at("/volumes/0/persistentVolumeClaim/claimName").asText();
        assertThat(ofKind(resources, "PersistentVolumeClaim")).extracting(c -> c.at("/metadata/name").asText()).contains(claim);
    }

    @Test
    void composeSubmitsTheJobJarWithValidFlagsToTheBrokerAndTopicsItStarts() throws IOException {
        List<JsonNode> docs = documents(INFRA.resolve("docker-compose.yml"));
        assertThat(docs).hasSize(1);
        JsonNode services = docs.get(0).path("services");
        assertThat(services.fieldNames()).toIterable().contains("kafka", "topics", "jobmanager", "taskmanager", "submit");

        // The submitter: `flink run` of the jar in the image, with flags the job accepts.
        List<String> command = strings(services.at("/submit/command"));
        assertThat(command.subList(0, 2)).containsExactly("flink", "run");
        int jar = command.indexOf(JAR_IN_IMAGE);
        assertThat(jar).as("the submit command names %s", JAR_IN_IMAGE).isPositive();
        ServingConfig config = serveConfig(command.subList(jar + 1, command.size()));

        // ... pointed at the broker's in-network listener.
        String advertised = services.at("/kafka/environment/KAFKA_ADVERTISED_LISTENERS").asText();
        assertThat(advertised).contains("PLAINTEXT://" + config.bootstrapServers);

        // ... whose topics the topics service creates, the control topic compacted.
        String topicScript = strings(services.at("/topics/command")).get(0);
        for (String topic : config.topics()) assertThat(topicScript).contains("--topic " + topic + " ");
        assertThat(topicScript).containsPattern("--topic " + config.controlTopic + " --partitions 1 .*cleanup\\.policy=compact");

        // The TaskManager reserves a GPU and Flink knows it as an external resource.
        JsonNode gpu = services.at("/taskmanager/deploy/resources/reservations/devices/0");
        assertThat(gpu.path("driver").asText()).isEqualTo("nvidia");
        assertThat(strings(gpu.path("capabilities"))).contains("gpu");
        Map<String, String> flink = flinkProperties(services.at("/taskmanager/environment/FLINK_PROPERTIES").asText());
        assertThat(flink).containsEntry("external-resources", "gpu")
                .containsEntry("external-resource.gpu.amount", "1")
                .containsEntry("metrics.reporter.prom.factory.class", "org.apache.flink.metrics.prometheus.PrometheusReporterFactory");
        assertThat(flink.get("execution.checkpointing.dir")).startsWith("file:///flink-data/");
        assertThat(strings(services.at("/taskmanager/volumes"))).anyMatch(v -> v.endsWith(":/flink-data"));
        assertThat(services.at("/jobmanager/build/dockerfile").asText()).isEqualTo("infra/docker/Dockerfile");
    }

    @Test
    void localClusterCreatesTheJobsTopicsAndEnablesPrometheus() throws IOException {
        // infra/cluster declares its topics as "name:partitions:config" in a bash array.
        String script = Files.readString(INFRA.resolve("cluster"));
        Matcher m = Pattern.compile("\"(kairos-[a-z-]+):(\\d+):([^\"]*)\"").matcher(script);
        Map<String, String> topics = new LinkedHashMap<>();
        while (m.find()) topics.put(m.group(1), m.group(2) + ":" + m.group(3));
        ServingConfig defaults = serveConfig(List.of());
        assertThat(topics.keySet()).containsExactlyInAnyOrderElementsOf(defaults.topics());
        assertThat(topics.get(defaults.controlTopic)).startsWith("1:").contains("cleanup.policy=compact");
        assertThat(defaults.bootstrapServers).as("the job's default broker is the local cluster's").isEqualTo("127.0.0.1:9092");

        JsonNode flink = documents(INFRA.resolve("conf/flink/config.yaml")).get(0);
        assertThat(flink.path("metrics.reporter.prom.factory.class").asText()).isEqualTo("org.apache.flink.metrics.prometheus.PrometheusReporterFactory");
        assertThat(flink.path("rest.port").asInt()).isEqualTo(8081);
        assertThat(flink.path("taskmanager.numberOfTaskSlots").asInt()).as("slots for the default --devices").isGreaterThanOrEqualTo(defaults.devices);
        assertThat(flink.path("no-such-key")).isInstanceOf(MissingNode.class);
    }
}
