package io.kairos.testbed.infra;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import io.kairos.jobs.ServeCommand;
import io.kairos.jobs.config.ServingConfig;
import io.kairos.jobs.ServingJobMain;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.HeartbeatManagerOptions;
import org.apache.flink.configuration.HighAvailabilityOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
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
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
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

    /** Where every manifest mounts the model repository, and what it passes as --model-repository. */
    private static final String MODELS_IN_POD = "/models";

    /**
     * The pod mounts the model repository read-only where the job's --model-repository says, from
     * a claim that exists; the job serves ONNX models, not simulated devices.
     */
    private static void mountsTheModelRepository(JsonNode fd, ServingConfig config) throws IOException {
        assertThat(config.modelRepository).isEqualTo(MODELS_IN_POD);
        JsonNode pod = fd.at("/spec/podTemplate/spec");
        JsonNode mount = null;
        for (JsonNode m : pod.at("/containers/0/volumeMounts")) if (m.path("mountPath").asText().equals(MODELS_IN_POD)) mount = m;
        assertThat(mount).as("a volume mounted at %s", MODELS_IN_POD).isNotNull();
        assertThat(mount.path("readOnly").asBoolean()).isTrue();
        String claim = null;
        for (JsonNode v : pod.path("volumes")) if (v.path("name").asText().equals(mount.path("name").asText())) claim = v.at("/persistentVolumeClaim/claimName").asText();
        assertThat(ofKind(k8sResources(), "PersistentVolumeClaim")).extracting(c -> c.at("/metadata/name").asText()).contains(claim);
    }

    @Test
    void dockerfilePutsTheJobJarWhereTheManifestsLookForIt() throws IOException {
        String dockerfile = Files.readString(INFRA.resolve("docker/Dockerfile"));
        // The image's Flink is the build's (the root pom's flink.version).
        java.util.regex.Matcher flink = Pattern.compile("<flink.version>([^<]+)</flink.version>").matcher(Files.readString(ROOT.resolve("pom.xml")));
        assertThat(flink.find()).isTrue();
        assertThat(dockerfile).containsPattern("(?m)^FROM flink:" + Pattern.quote(flink.group(1)) + "-java17$");
        assertThat(dockerfile).containsPattern("(?m)^COPY jobs/target/kairos-jobs-0\\.1\\.0-SNAPSHOT-job\\.jar " + Pattern.quote(JAR_IN_IMAGE) + "$");
        // The jar that `mvn package` builds has that name (docs/operations/cluster.md and infra/cluster name it too).
        String pom = Files.readString(ROOT.resolve("jobs/pom.xml"));
        assertThat(pom).contains("<shadedClassifierName>job</shadedClassifierName>");
        assertThat(Files.readString(ROOT.resolve("pom.xml"))).contains("<version>0.1.0-SNAPSHOT</version>");
    }

    @Test
    void theCudaImageAddsTheLibrariesOnnxRuntimesCudaBuildLoadsAndPutsTheJarInTheSamePlace() throws IOException {
        String dockerfile = Files.readString(INFRA.resolve("docker/Dockerfile.cuda"));
        // The image's Flink is the build's (the root pom's flink.version), as the CPU image's.
        java.util.regex.Matcher flink = Pattern.compile("<flink.version>([^<]+)</flink.version>").matcher(Files.readString(ROOT.resolve("pom.xml")));
        assertThat(flink.find()).isTrue();
        assertThat(dockerfile).containsPattern("(?m)^FROM flink:" + Pattern.quote(flink.group(1)) + "-java17$");
        assertThat(dockerfile).containsPattern("(?m)^COPY jobs/target/kairos-jobs-0\\.1\\.0-SNAPSHOT-job\\.jar " + Pattern.quote(JAR_IN_IMAGE) + "$");
        // ONNX Runtime 1.20's CUDA 12 build: the CUDA 12 runtime, cuBLAS, cuFFT, cuRAND and cuDNN 9.
        assertThat(Files.readString(ROOT.resolve("pom.xml"))).contains("<onnxruntime.version>1.20.0</onnxruntime.version>");
        assertThat(dockerfile).contains("ARG CUDA_MINOR=12-").contains("\"cuda-cudart-${CUDA_MINOR}\"").contains("\"libcublas-${CUDA_MINOR}\"")
                .contains("\"libcufft-${CUDA_MINOR}\"").contains("\"libcurand-${CUDA_MINOR}\"").contains("libcudnn9-cuda-12");
        // The CPU image has none of it: ONNX Runtime's CPU build, no GPU needed.
        assertThat(Files.readString(INFRA.resolve("docker/Dockerfile"))).doesNotContain("cuda").doesNotContain("nvidia");
    }

    @Test
    void flinkDeploymentRunsTheJobJarWithValidFlagsOnCpusWithTheModelRepositoryAndCheckpoints() throws IOException {
        List<JsonNode> resources = k8sResources();
        List<JsonNode> deployments = ofKind(resources, "FlinkDeployment");
        assertThat(deployments).hasSize(1);
        JsonNode fd = deployments.get(0);
        assertThat(fd.path("apiVersion").asText()).isEqualTo("flink.apache.org/v1beta1");
        // The operator's name of the build's Flink line (2.2.1: v2_2).
        java.util.regex.Matcher line = Pattern.compile("<flink.version>(\\d+)\\.(\\d+)\\.").matcher(Files.readString(ROOT.resolve("pom.xml")));
        assertThat(line.find()).isTrue();
        assertThat(fd.at("/spec/flinkVersion").asText()).isEqualTo("v" + line.group(1) + "_" + line.group(2));

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
        JsonNode outcomes = topics.stream().filter(t -> t.at("/metadata/name").asText().equals(config.outcomesTopic)).findFirst().orElseThrow();
        assertThat(outcomes.at("/spec/config/cleanup.policy").isMissingNode()).as("outcomes are a log, not state").isTrue();

        JsonNode flink = fd.at("/spec/flinkConfiguration");
        // The CPU image: no pod asks for a GPU, so none stays Pending on a cluster without them.
        assertThat(fd.at("/spec/image").asText()).isEqualTo("kairos/flink:0.1.0");
        flink.fieldNames().forEachRemaining(key -> assertThat(key).as("a CPU deployment reserves no GPU").doesNotStartWith("external-resource"));
        assertThat(fd.toString()).doesNotContain("nvidia.com/gpu");
        mountsTheModelRepository(fd, config);
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
    void theCudaVariantIsTheDefaultDeploymentWithTheCudaImageAndAGpuPerDeviceSlot() throws IOException {
        List<JsonNode> docs = documents(INFRA.resolve("k8s/cuda/flink-deployment.yaml"));
        assertThat(docs).hasSize(1);
        JsonNode fd = docs.get(0);
        JsonNode base = ofKind(k8sResources(), "FlinkDeployment").get(0);
        assertThat(fd.at("/metadata/name").asText()).as("it replaces the default deployment").isEqualTo(base.at("/metadata/name").asText());
        assertThat(fd.at("/spec/image").asText()).isEqualTo("kairos/flink-cuda:0.1.0");
        JsonNode flink = fd.at("/spec/flinkConfiguration");
        assertThat(flink.path("external-resources").asText()).isEqualTo("gpu");
        assertThat(flink.path("external-resource.gpu.kubernetes.config-key").asText()).isEqualTo("nvidia.com/gpu");
        assertThat(flink.path("external-resource.gpu.driver-factory.class").asText()).isEqualTo("org.apache.flink.externalresource.gpu.GPUDriverFactory");
        ServingConfig config = serveConfig(strings(fd.at("/spec/job/args")));
        assertThat(config.devices).as("a GPU per device slot")
                .isEqualTo(fd.at("/spec/taskManager/replicas").asInt() * flink.path("external-resource.gpu.amount").asInt());
        mountsTheModelRepository(fd, config);
        // Everything else as the CPU deployment: its arguments, its Flink configuration but the GPUs.
        assertThat(strings(fd.at("/spec/job/args"))).isEqualTo(strings(base.at("/spec/job/args")));
        base.at("/spec/flinkConfiguration").fieldNames().forEachRemaining(key ->
                assertThat(flink.path(key).asText()).as(key).isEqualTo(base.at("/spec/flinkConfiguration").path(key).asText()));
        assertThat(fd.at("/spec/podTemplate")).isEqualTo(base.at("/spec/podTemplate"));
    }

    @Test
    void theGroupsVariantRunsOneTaskManagerPerSchedulerSubtaskWithADeviceSlotPerGpu() throws IOException {
        List<JsonNode> docs = documents(INFRA.resolve("k8s/groups/flink-deployment.yaml"));
        assertThat(docs).hasSize(1);
        JsonNode fd = docs.get(0);
        JsonNode base = ofKind(k8sResources(), "FlinkDeployment").get(0);
        assertThat(fd.at("/metadata/name").asText()).as("it replaces the default deployment").isEqualTo(base.at("/metadata/name").asText());
        ServingConfig config = serveConfig(strings(fd.at("/spec/job/args")));
        int taskManagers = fd.at("/spec/taskManager/replicas").asInt();
        JsonNode flink = fd.at("/spec/flinkConfiguration");
        int slots = flink.path("taskmanager.numberOfTaskSlots").asInt();
        int gpus = flink.path("external-resource.gpu.amount").asInt();
        assertThat(taskManagers).as("TaskManagers").isGreaterThan(1);
        assertThat(config.schedulerParallelism).as("a scheduler subtask per TaskManager's group").isEqualTo(taskManagers);
        assertThat(config.devices).as("every slot a device").isEqualTo(taskManagers * slots);
        assertThat(gpus).as("a GPU per device slot").isEqualTo(slots);
        assertThat(fd.at("/spec/job/parallelism").asInt()).isEqualTo(config.devices);
        // Everything else as the default deployment: HA, checkpoints, the image's jar, Kafka.
        for (String key : List.of("high-availability.type", "taskmanager.slot.timeout", "execution.checkpointing.dir")) {
            assertThat(flink.path(key).asText()).as(key).isEqualTo(base.at("/spec/flinkConfiguration").path(key).asText());
        }
        // Its GPUs as the CUDA variant's, with the CUDA image.
        JsonNode cuda = documents(INFRA.resolve("k8s/cuda/flink-deployment.yaml")).get(0);
        for (String key : List.of("external-resources", "external-resource.gpu.kubernetes.config-key", "external-resource.gpu.driver-factory.class")) {
            assertThat(flink.path(key).asText()).as(key).isEqualTo(cuda.at("/spec/flinkConfiguration").path(key).asText());
        }
        assertThat(fd.at("/spec/image").asText()).isEqualTo(cuda.at("/spec/image").asText());
        mountsTheModelRepository(fd, config);
        assertThat(fd.at("/spec/job/jarURI").asText()).isEqualTo(base.at("/spec/job/jarURI").asText());
        assertThat(config.bootstrapServers).isEqualTo(serveConfig(strings(base.at("/spec/job/args"))).bootstrapServers);
        // The README's plan herd line plans those devices with a group no larger than a TaskManager.
        String readme = Files.readString(INFRA.resolve("k8s/README.md"));
        assertThat(readme).contains("--devices " + config.devices + " --max-group " + slots + " --taskmanagers-from http://" + fd.at("/metadata/name").asText() + "-rest:8081");
    }

    @Test
    void kubernetesRunsAStandbyJobManagerThreeBrokersApartFromTheirControllersAndTopicsOnAllThree() throws IOException {
        List<JsonNode> resources = k8sResources();
        JsonNode fd = ofKind(resources, "FlinkDeployment").get(0);
        JsonNode flink = fd.at("/spec/flinkConfiguration");
        assertThat(flink.path("high-availability.type").asText()).isEqualTo("kubernetes");
        assertThat(flink.path("high-availability.storageDir").asText()).startsWith("file:///flink-data/");
        assertThat(fd.at("/spec/jobManager/replicas").asInt()).as("a leader and a standby").isGreaterThanOrEqualTo(2);
        assertThat(fd.at("/spec/taskManager/replicas").asInt()).as("one TaskManager may die").isGreaterThanOrEqualTo(2);
        Configuration ha = Configuration.fromMap(flatStrings(flink));
        Duration lease = ha.get(ConfigOptions.key("high-availability.kubernetes.leader-election.lease-duration").durationType().noDefaultValue());
        Duration renew = ha.get(ConfigOptions.key("high-availability.kubernetes.leader-election.renew-deadline").durationType().noDefaultValue());
        assertThat(renew).as("the leader gives the lease up before a standby may take it").isLessThan(lease);
        assertThat(ha.get(TaskManagerOptions.SLOT_TIMEOUT)).as("slots kept for the next leader as on the local HA cluster")
                .isEqualTo(localHaFlink().get(TaskManagerOptions.SLOT_TIMEOUT));

        // Controllers and brokers in pools of their own, three of each.
        List<JsonNode> pools = ofKind(resources, "KafkaNodePool");
        int controllers = 0, brokers = 0;
        for (JsonNode pool : pools) {
            List<String> roles = strings(pool.at("/spec/roles"));
            assertThat(roles).as("pool %s has one role", pool.at("/metadata/name").asText()).hasSize(1);
            if (roles.contains("controller")) controllers += pool.at("/spec/replicas").asInt();
            if (roles.contains("broker")) brokers += pool.at("/spec/replicas").asInt();
        }
        assertThat(controllers).isEqualTo(3);
        assertThat(brokers).isEqualTo(3);
        JsonNode kafka = ofKind(resources, "Kafka").get(0).at("/spec/kafka/config");
        assertThat(kafka.path("default.replication.factor").asInt()).isEqualTo(3);
        assertThat(kafka.path("min.insync.replicas").asInt()).isEqualTo(2);
        assertThat(kafka.path("transaction.state.log.min.isr").asInt()).isEqualTo(2);
        // The brokers are of the version of the build's Kafka clients (the root pom's kafka.version),
        // on Strimzi's v1 API, and are fenced as the local HA cluster's are.
        java.util.regex.Matcher clients = Pattern.compile("<kafka.version>([^<]+)</kafka.version>").matcher(Files.readString(ROOT.resolve("pom.xml")));
        assertThat(clients.find()).isTrue();
        JsonNode spec = ofKind(resources, "Kafka").get(0).at("/spec/kafka");
        assertThat(spec.path("version").asText()).isEqualTo(clients.group(1));
        String[] release = clients.group(1).split("\\.");
        assertThat(spec.path("metadataVersion").asText()).startsWith(release[0] + "." + release[1] + "-IV");
        for (JsonNode r : resources) {
            if (r.path("apiVersion").asText().startsWith("kafka.strimzi.io/")) {
                assertThat(r.path("apiVersion").asText()).as("apiVersion of %s", r.at("/metadata/name").asText()).isEqualTo("kafka.strimzi.io/v1");
            }
        }
        assertThat(kafka.path("broker.session.timeout.ms").asText())
                .isEqualTo(properties("kafka/controller-ha.properties").get("broker.session.timeout.ms"));
        assertThat(kafka.path("broker.heartbeat.interval.ms").asText())
                .isEqualTo(properties("kafka/server-ha.properties").get("broker.heartbeat.interval.ms"));
        for (JsonNode t : ofKind(resources, "KafkaTopic")) {
            assertThat(t.at("/spec/replicas").asInt()).as("replicas of %s", t.at("/metadata/name").asText()).isEqualTo(3);
            assertThat(t.at("/spec/config/min.insync.replicas").asInt()).as("min.insync.replicas of %s", t.at("/metadata/name").asText()).isEqualTo(2);
        }
    }

    /** Flink's HA over config.yaml, as infra/cluster writes it: the keys of ha.yaml win. */
    private static Configuration localHaFlink() throws IOException {
        Map<String, String> merged = flatStrings(documents(INFRA.resolve("conf/flink/config.yaml")).get(0));
        merged.putAll(flatStrings(documents(INFRA.resolve("conf/flink/ha.yaml")).get(0)));
        return Configuration.fromMap(merged);
    }

    /** A Java properties file of infra/conf, as a map. */
    private static Map<String, String> properties(String file) throws IOException {
        Properties p = new Properties();
        try (Reader in = Files.newBufferedReader(INFRA.resolve("conf").resolve(file))) {
            p.load(in);
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (String k : p.stringPropertyNames()) out.put(k, p.getProperty(k));
        return out;
    }

    @Test
    void theLocalHaClusterAgreesWithItselfOnPortsQuorumsAndTimeouts() throws IOException {
        Configuration flink = localHaFlink();
        assertThat(flink.get(HighAvailabilityOptions.HA_MODE)).isEqualTo("zookeeper");
        assertThat(flink.get(HighAvailabilityOptions.ZOOKEEPER_TOLERATE_SUSPENDED_CONNECTIONS)).isTrue();
        assertThat(flink.get(HighAvailabilityOptions.HA_STORAGE_PATH)).startsWith("file://__STATE__/");
        assertThat(flink.getString("rest.port", "")).as("apart from the plain cluster's 8081").isEqualTo("8181");
        // A TaskManager keeps the job's slots for the next leader longer than a takeover takes on
        // a busy 2-core machine (BENCHMARKS.md, "Faults on the HA cluster"), or the job restarts a
        // second time.
        assertThat(flink.get(TaskManagerOptions.SLOT_TIMEOUT)).isGreaterThanOrEqualTo(Duration.ofSeconds(30));
        // The job jar's copy on every process's class path wins over a jar that goes with a job
        // (the tuner's): parent first, or a connector from the copy meets a Kafka client of the jar's.
        assertThat(flink.get(CoreOptions.CLASSLOADER_RESOLVE_ORDER)).isEqualTo("parent-first");

        // Flink's quorum is the ensemble infra/cluster starts: node i on port 12180 + i.
        String cluster = Files.readString(INFRA.resolve("cluster"));
        assertThat(cluster).contains("zookeeper_port() { echo $((12180 + ${1#zookeeper-})); }");
        assertThat(flink.get(HighAvailabilityOptions.HA_ZOOKEEPER_QUORUM))
                .isEqualTo("127.0.0.1:12181,127.0.0.1:12182,127.0.0.1:12183");
        Map<String, String> zoo = properties("zookeeper/zoo.cfg");
        assertThat(zoo).containsKeys("server.1", "server.2", "server.3").containsEntry("clientPort", "__CLIENT_PORT__");
        // ZooKeeper grants sessions of 2 to 20 ticks: Flink's must fall within.
        long tick = Long.parseLong(zoo.get("tickTime"));
        long session = flink.get(HighAvailabilityOptions.ZOOKEEPER_SESSION_TIMEOUT).toMillis();
        assertThat(session).isBetween(2 * tick, 20 * tick);

        // Brokers and controllers name the same voters; every write needs two of three replicas.
        Map<String, String> broker = properties("kafka/server-ha.properties");
        Map<String, String> controller = properties("kafka/controller-ha.properties");
        assertThat(broker).containsEntry("process.roles", "broker").containsEntry("default.replication.factor", "3")
                .containsEntry("min.insync.replicas", "2").containsEntry("transaction.state.log.min.isr", "2");
        assertThat(controller).containsEntry("process.roles", "controller");
        assertThat(broker.get("controller.quorum.voters")).isEqualTo(controller.get("controller.quorum.voters"))
                .isEqualTo("101@127.0.0.1:19192,102@127.0.0.1:19193,103@127.0.0.1:19194");
        // A broker is fenced by the active controller: the session is a controller's setting.
        assertThat(Integer.parseInt(controller.get("broker.session.timeout.ms")))
                .isGreaterThan(2 * Integer.parseInt(broker.get("broker.heartbeat.interval.ms")));
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

        // The CPU image reserves no GPU; every Flink container mounts the model repository the job serves.
        assertThat(services.at("/taskmanager/deploy").isMissingNode()).as("no device reservation").isTrue();
        Map<String, String> flink = flinkProperties(services.at("/taskmanager/environment/FLINK_PROPERTIES").asText());
        assertThat(flink.keySet()).noneMatch(k -> k.startsWith("external-resource"));
        assertThat(flink).containsEntry("metrics.reporter.prom.factory.class", "org.apache.flink.metrics.prometheus.PrometheusReporterFactory");
        assertThat(config.modelRepository).isEqualTo(MODELS_IN_POD);
        for (String service : List.of("jobmanager", "taskmanager", "submit")) {
            assertThat(strings(services.at("/" + service + "/volumes"))).as(service).anyMatch(v -> v.endsWith(":" + MODELS_IN_POD + ":ro"));
        }
        assertThat(flink.get("execution.checkpointing.dir")).startsWith("file:///flink-data/");
        assertThat(strings(services.at("/taskmanager/volumes"))).anyMatch(v -> v.endsWith(":/flink-data"));
        assertThat(services.at("/jobmanager/build/dockerfile").asText()).isEqualTo("infra/docker/Dockerfile");
    }

    @Test
    void composesCudaFileGivesTheTaskManagerAGpuAndTheCudaImage() throws IOException {
        JsonNode services = documents(INFRA.resolve("docker-compose.cuda.yml")).get(0).path("services");
        assertThat(services.at("/jobmanager/build/dockerfile").asText()).isEqualTo("infra/docker/Dockerfile.cuda");
        for (String service : List.of("jobmanager", "taskmanager", "submit")) {
            assertThat(services.at("/" + service + "/image").asText()).as(service).isEqualTo("kairos/flink-cuda:0.1.0");
        }
        JsonNode gpu = services.at("/taskmanager/deploy/resources/reservations/devices/0");
        assertThat(gpu.path("driver").asText()).isEqualTo("nvidia");
        assertThat(gpu.path("count").asInt()).isEqualTo(1);
        assertThat(strings(gpu.path("capabilities"))).contains("gpu");
        // Flink knows that GPU as an external resource, from the TaskManager's dynamic properties.
        List<String> command = strings(services.at("/taskmanager/command"));
        assertThat(command.get(0)).isEqualTo("taskmanager");
        assertThat(command).contains("-Dexternal-resources=gpu", "-Dexternal-resource.gpu.amount=1",
                "-Dexternal-resource.gpu.driver-factory.class=org.apache.flink.externalresource.gpu.GPUDriverFactory");
    }

    @Test
    void localClusterCreatesTheJobsTopicsAndEnablesPrometheus() throws IOException {
        // infra/cluster makes the job's topics with the product's own command (whose topics and
        // settings TopicsCreateOnBrokerTest checks on a broker), with its cluster's replicas.
        String script = Files.readString(INFRA.resolve("cluster"));
        assertThat(script).containsPattern("\"\\$root/bin/kairos\" topics create \\\\\n\\s*--bootstrap-servers \"\\$kafka_bootstrap\" --replication-factor \"\\$replication\"");
        assertThat(script).doesNotContain("TopicCommand --bootstrap-server \"$kafka_bootstrap\" --create");
        ServingConfig defaults = serveConfig(List.of());
        assertThat(defaults.bootstrapServers).as("the job's default broker is the local cluster's").isEqualTo("127.0.0.1:9092");

        JsonNode flink = documents(INFRA.resolve("conf/flink/config.yaml")).get(0);
        assertThat(flink.path("metrics.reporter.prom.factory.class").asText()).isEqualTo("org.apache.flink.metrics.prometheus.PrometheusReporterFactory");
        assertThat(flink.path("rest.port").asInt()).isEqualTo(8081);
        assertThat(flink.path("taskmanager.numberOfTaskSlots").asInt()).as("slots for the default --devices").isGreaterThanOrEqualTo(defaults.devices);
        assertThat(flink.path("no-such-key")).isInstanceOf(MissingNode.class);
    }

    @Test
    void everyFlinkConfigurationRestartsForeverWithTheJobsOwnDelays() throws IOException {
        // The cluster's strategy is the job's, for a job that sets none: the same delays, as Flink reads them.
        ServingConfig.Restarts job = serveConfig(List.of()).restarts;
        assertThat(job).isEqualTo(ServingConfig.Restarts.SERVING);
        Map<String, Configuration> configs = new LinkedHashMap<>();
        configs.put("infra/conf/flink/config.yaml", Configuration.fromMap(flatStrings(documents(INFRA.resolve("conf/flink/config.yaml")).get(0))));
        JsonNode compose = documents(INFRA.resolve("docker-compose.yml")).get(0);
        configs.put("docker-compose.yml", Configuration.fromMap(flinkProperties(compose.at("/x-flink-config/FLINK_PROPERTIES").asText())));
        for (var e : configs.entrySet()) {
            Configuration c = e.getValue();
            assertThat(c.get(RestartStrategyOptions.RESTART_STRATEGY)).as(e.getKey()).isEqualTo("exponential-delay");
            assertThat(c.get(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_INITIAL_BACKOFF)).as(e.getKey()).isEqualTo(Duration.ofMillis(job.initialBackoffMs()));
            assertThat(c.get(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_MAX_BACKOFF)).as(e.getKey()).isEqualTo(Duration.ofMillis(job.maxBackoffMs()));
            assertThat(c.get(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_RESET_BACKOFF_THRESHOLD)).as(e.getKey()).isEqualTo(Duration.ofMillis(job.resetAfterMs()));
            assertThat(c.get(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_ATTEMPTS)).as("%s: no count of attempts", e.getKey()).isEqualTo(Integer.MAX_VALUE);
            // A killed TaskManager is found by refused heartbeats within a few seconds; a silent one
            // only after the timeout, which must stay above a pause the job would survive.
            assertThat(c.get(HeartbeatManagerOptions.HEARTBEAT_INTERVAL)).as(e.getKey()).isLessThanOrEqualTo(Duration.ofSeconds(1));
            assertThat(c.get(HeartbeatManagerOptions.HEARTBEAT_TIMEOUT)).as(e.getKey()).isBetween(Duration.ofSeconds(5), Duration.ofSeconds(15));
        }
    }

    @Test
    void localClusterResetsOffsetsOnlyWhenToldWhereAndNamesTheMistake() throws Exception {
        String script = Files.readString(INFRA.resolve("cluster"));
        assertThat(script).as("the default group is the job's").contains("group=" + ServingConfig.DEFAULTS.consumerGroup + " ")
                .contains("topic=" + ServingConfig.DEFAULTS.requestsTopic);
        // Argument errors are found before anything is started or asked: one line, exit code 2.
        assertThat(cluster("reset-offsets")).isEqualTo(new Run(2, "cluster: reset-offsets needs --to-latest or --to-earliest"));
        assertThat(cluster("reset-offsets", "--to-latest", "--to-earliest")).isEqualTo(new Run(2, "cluster: reset-offsets: one of --to-latest and --to-earliest"));
        assertThat(cluster("reset-offsets", "--to-latest", "--group")).isEqualTo(new Run(2, "cluster: --group needs a consumer group"));
        assertThat(cluster("reset-offsets", "--to-latest", "--group", "a b")).isEqualTo(new Run(2, "cluster: --group: 'a b' is not a consumer group name"));
        assertThat(cluster("reset-offsets", "--to-earliest", "--topic", "x")).isEqualTo(new Run(2, "cluster: reset-offsets: unknown argument '--topic'"));
    }

    private record Run(int exitCode, String firstLine) {}

    /** Runs infra/cluster with a cluster home of its own (nothing there runs): the exit code and the first line of stderr, up to the usage. */
    private static Run cluster(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("bash", INFRA.resolve("cluster").toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD);
        Path home = Files.createTempDirectory("cluster-home");
        pb.environment().put("KAIROS_CLUSTER_HOME", home.toString());
        Process p = pb.start();
        String err = new String(p.getErrorStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        String first = err.lines().findFirst().orElse("");
        int usage = first.indexOf(" (usage: ");
        return new Run(p.exitValue(), usage < 0 ? first : first.substring(0, usage));
    }

    /** A flat YAML mapping (Flink's config.yaml) as the strings Flink's configuration parses. */
    private static Map<String, String> flatStrings(JsonNode mapping) {
        Map<String, String> out = new LinkedHashMap<>();
        mapping.fields().forEachRemaining(f -> out.put(f.getKey(), f.getValue().asText()));
        return out;
    }
}
