package io.kairos.testbed.embedded;

import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.utils.Time;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.stream.Stream;

/**
 * A real Kafka broker in this JVM: one KRaft node that is both controller and broker, listening on
 * free loopback ports, with its log in a folder of its own. The same broker code as a standalone
 * one; only the process is shared. For the demo and the integration tests.
 */
public final class EmbeddedKafkaBroker implements AutoCloseable {
    private final KafkaRaftServer server;
    private final String bootstrapServers;
    private final Path dataDir;
    private final boolean deleteOnClose;

    private EmbeddedKafkaBroker(KafkaRaftServer server, String bootstrapServers, Path dataDir, boolean deleteOnClose) {
        this.server = server;
        this.bootstrapServers = bootstrapServers;
        this.dataDir = dataDir;
        this.deleteOnClose = deleteOnClose;
    }

    /** Starts a broker in a fresh temporary folder, removed again on close. */
    public static EmbeddedKafkaBroker start() {
        return start(Map.of());
    }

    /** Starts a broker in a fresh temporary folder with {@code overrides} of its settings (e.g. {@code log.cleaner.backoff.ms}). */
    public static EmbeddedKafkaBroker start(Map<String, String> overrides) {
        try {
            return start(Files.createTempDirectory("kairos-kafka-"), true, overrides);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static EmbeddedKafkaBroker start(Path dataDir) {
        return start(dataDir, false, Map.of());
    }

    private static EmbeddedKafkaBroker start(Path dataDir, boolean deleteOnClose, Map<String, String> overrides) {
        int brokerPort = freePort();
        int controllerPort = freePort();
        Path logDir = dataDir.resolve("log");
        Properties props = new Properties();
        props.put("process.roles", "broker,controller");
        props.put("node.id", "1");
        props.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
        props.put("listeners", "PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
        props.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort);
        props.put("controller.listener.names", "CONTROLLER");
        props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        props.put("inter.broker.listener.name", "PLAINTEXT");
        props.put("log.dirs", logDir.toString());
        // One node: every internal topic must live with one replica.
        props.put("offsets.topic.replication.factor", "1");
        props.put("offsets.topic.num.partitions", "1");
        props.put("transaction.state.log.replication.factor", "1");
        props.put("transaction.state.log.min.isr", "1");
        props.put("group.initial.rebalance.delay.ms", "0");
        props.put("num.partitions", "1");
        props.put("auto.create.topics.enable", "false");
        props.put("log.flush.interval.messages", Long.toString(Long.MAX_VALUE));
        props.putAll(overrides);
        try {
            Files.createDirectories(dataDir);
            Path config = dataDir.resolve("server.properties");
            try (var out = Files.newBufferedWriter(config)) {
                props.store(out, "Kairos embedded broker");
            }
            ByteArrayOutputStream log = new ByteArrayOutputStream();
            int rc = StorageTool.execute(new String[] {"format", "-t", Uuid.randomUuid().toString(), "-c", config.toString(), "--ignore-formatted"},
                    new PrintStream(log, true, StandardCharsets.UTF_8));
            if (rc != 0) throw new IllegalStateException("formatting the broker's storage failed: " + log);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        KafkaRaftServer server = new KafkaRaftServer(KafkaConfig.fromProps(props, false), Time.SYSTEM);
        server.startup();
        EmbeddedKafkaBroker broker = new EmbeddedKafkaBroker(server, "127.0.0.1:" + brokerPort, dataDir, deleteOnClose);
        broker.awaitReady();
        return broker;
    }

    public String bootstrapServers() {
        return bootstrapServers;
    }

    /** Creates a topic (one replica) unless it exists. */
    public void createTopic(String name, int partitions) {
        createTopic(name, partitions, Map.of());
    }

    public void createTopic(String name, int partitions, Map<String, String> configs) {
        try (Admin admin = admin()) {
            try {
                admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1).configs(configs))).all().get();
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) throw new IllegalStateException("cannot create topic " + name, e.getCause());
            }
            awaitLeaders(admin, name);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * The controller answers a creation before the broker leads the new partitions; a client that
     * asks for the topic's metadata in between finds no partition. Returns once every partition
     * has its leader.
     */
    private static void awaitLeaders(Admin admin, String topic) throws InterruptedException {
        long until = System.currentTimeMillis() + 30_000;
        while (true) {
            try {
                var description = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
                if (!description.partitions().isEmpty() && description.partitions().stream().allMatch(p -> p.leader() != null && !p.leader().isEmpty())) return;
            } catch (ExecutionException e) {
                // not known to the broker yet
            }
            if (System.currentTimeMillis() > until) throw new IllegalStateException("topic " + topic + " has no leader for every partition after 30 s");
            Thread.sleep(20);
        }
    }

    private Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers));
    }

    /** The broker answers metadata requests once it has registered with its own controller. */
    private void awaitReady() {
        long until = System.currentTimeMillis() + 60_000;
        while (true) {
            try (Admin admin = admin()) {
                if (!admin.describeCluster().nodes().get().isEmpty()) return;
            } catch (ExecutionException e) {
                // not ready yet
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            if (System.currentTimeMillis() > until) throw new IllegalStateException("embedded Kafka broker did not become ready in 60 s");
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    @Override
    public void close() {
        server.shutdown();
        server.awaitShutdown();
        if (deleteOnClose) {
            try (Stream<Path> files = Files.walk(dataDir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException ignored) {
                // a leftover temp folder is not worth failing a shutdown for
            }
        }
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
