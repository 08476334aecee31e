package io.kairos.testbed;

import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * Test-only: one KRaft node (broker and controller in one) in this JVM on free loopback ports.
 * Stands in for io.kairos.jobs.embedded.EmbeddedKafkaBroker until that class is on this branch;
 * the tests then switch to it and this file goes. (A copy of the one in the jobs module's tests,
 * which this module cannot see.)
 */
public final class TestKafkaBroker implements AutoCloseable {
    private final KafkaRaftServer server;
    private final String bootstrapServers;

    private TestKafkaBroker(KafkaRaftServer server, String bootstrapServers) {
        this.server = server;
        this.bootstrapServers = bootstrapServers;
    }

    private static TestKafkaBroker shared;

    /**
     * One broker for every test class of this module (surefire runs them in one JVM): starting a
     * broker costs seconds, the tests seconds less. Closed when the JVM exits. Tests keep apart by
     * topic names.
     */
    public static synchronized TestKafkaBroker shared() throws Exception {
        if (shared == null) {
            Path dir = Files.createTempDirectory("kairos-test-kafka-");
            shared = start(dir);
            TestKafkaBroker broker = shared;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                broker.close();
                try (var files = Files.walk(dir)) {
                    files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
                } catch (IOException ignored) {
                    // a leftover temp folder is not worth failing the build for
                }
            }, "test-kafka-shutdown"));
        }
        return shared;
    }

    public static TestKafkaBroker start(Path dataDir) throws Exception {
        int brokerPort = freePort();
        int controllerPort = freePort();
        Properties props = new Properties();
        props.put("process.roles", "broker,controller");
        props.put("node.id", "1");
        props.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
        props.put("listeners", "PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
        props.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort);
        props.put("controller.listener.names", "CONTROLLER");
        props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        props.put("log.dirs", dataDir.resolve("log").toString());
        props.put("offsets.topic.replication.factor", "1");
        props.put("transaction.state.log.replication.factor", "1");
        props.put("transaction.state.log.min.isr", "1");
        props.put("group.initial.rebalance.delay.ms", "0");
        props.put("auto.create.topics.enable", "false");
        Path config = dataDir.resolve("server.properties");
        try (var out = Files.newBufferedWriter(config)) {
            props.store(out, null);
        }
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        int rc = StorageTool.execute(new String[] {"format", "-t", Uuid.randomUuid().toString(), "-c", config.toString()},
                new PrintStream(log, true, StandardCharsets.UTF_8));
        if (rc != 0) throw new IllegalStateException("formatting the broker's storage failed: " + log);
        KafkaRaftServer server = new KafkaRaftServer(KafkaConfig.fromProps(props, false), Time.SYSTEM);
        server.startup();
        TestKafkaBroker broker = new TestKafkaBroker(server, "127.0.0.1:" + brokerPort);
        try (Admin admin = broker.admin()) {
            long until = System.currentTimeMillis() + 30_000;
            while (admin.describeCluster().nodes().get().isEmpty()) {
                if (System.currentTimeMillis() > until) throw new IllegalStateException("test broker not ready in 30 s");
                Thread.sleep(50);
            }
        }
        return broker;
    }

    public String bootstrapServers() {
        return bootstrapServers;
    }

    public void createTopic(String name, int partitions) throws Exception {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get();
        }
    }

    private Admin admin() {
        return Admin.create(Map.of("bootstrap.servers", bootstrapServers));
    }

    @Override
    public void close() {
        server.shutdown();
        server.awaitShutdown();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
