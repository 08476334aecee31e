package io.kairos.tools.embedded;

import io.kairos.wire.KafkaClientProperties;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.stream.Stream;

/**
 * A real Kafka broker in this JVM: one KRaft node that is both controller and broker, listening on
 * free loopback ports, with its log in a folder of its own. The same broker code as a standalone
 * one; only the process is shared. For the demo and the integration tests; {@link #startSaslSsl}
 * starts one whose clients must authenticate over TLS.
 */
public final class EmbeddedKafkaBroker implements AutoCloseable {
    private final KafkaRaftServer server;
    private final String bootstrapServers;
    private final Path dataDir;
    private final boolean deleteOnClose;
    /** Null for a plaintext broker. */
    private final SaslSsl security;

    private EmbeddedKafkaBroker(KafkaRaftServer server, String bootstrapServers, Path dataDir, boolean deleteOnClose, SaslSsl security) {
        this.server = server;
        this.bootstrapServers = bootstrapServers;
        this.dataDir = dataDir;
        this.deleteOnClose = deleteOnClose;
        this.security = security;
    }

    /**
     * How a SASL_SSL broker is reached: its self-signed certificate in a truststore, and the one
     * user it knows besides itself (SASL/PLAIN).
     */
    private record SaslSsl(Path truststore, String storePassword, String user, String password) {
        /** What a client needs to connect as {@code user} with {@code password}, trusting the broker's certificate. */
        Map<String, String> clientProperties(String user, String password) {
            Map<String, String> p = new LinkedHashMap<>();
            p.put("security.protocol", "SASL_SSL");
            p.put("sasl.mechanism", "PLAIN");
            p.put("sasl.jaas.config", plainLogin(user, password, Map.of()));
            p.put("ssl.truststore.type", "PKCS12");
            p.put("ssl.truststore.location", truststore.toString());
            p.put("ssl.truststore.password", storePassword);
            return p;
        }
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
        return start(dataDir, false, Map.of(), null);
    }

    /**
     * Starts a broker whose clients must use SASL_SSL: TLS with a self-signed certificate made
     * here for 127.0.0.1 (with the JDK's keytool), and SASL/PLAIN with {@code user} and
     * {@code password} as the only client credentials. The broker talks to itself over the same
     * listener with credentials of its own; only the KRaft controller listener is plaintext, on
     * loopback. {@link #clientProperties()} is what a client needs to connect.
     */
    public static EmbeddedKafkaBroker startSaslSsl(String user, String password) {
        try {
            Path dataDir = Files.createTempDirectory("kairos-kafka-");
            String storePassword = UUID.randomUUID().toString();
            Path tls = dataDir.resolve("tls");
            Path keystore = tls.resolve("broker.p12");
            Path truststore = tls.resolve("truststore.p12");
            SelfSignedCertificate.make(keystore, truststore, storePassword);
            return start(dataDir, true, Map.of(), new SaslSsl(truststore, storePassword, user, password));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static EmbeddedKafkaBroker start(Path dataDir, boolean deleteOnClose, Map<String, String> overrides) {
        return start(dataDir, deleteOnClose, overrides, null);
    }

    private static EmbeddedKafkaBroker start(Path dataDir, boolean deleteOnClose, Map<String, String> overrides, SaslSsl security) {
        int brokerPort = freePort();
        int controllerPort = freePort();
        Path logDir = dataDir.resolve("log");
        String listener = security == null ? "PLAINTEXT" : "SASL_SSL";
        Properties props = new Properties();
        props.put("process.roles", "broker,controller");
        props.put("node.id", "1");
        props.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
        props.put("listeners", listener + "://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
        props.put("advertised.listeners", listener + "://127.0.0.1:" + brokerPort);
        props.put("controller.listener.names", "CONTROLLER");
        props.put("listener.security.protocol.map", listener + ":" + listener + ",CONTROLLER:PLAINTEXT");
        props.put("inter.broker.listener.name", listener);
        if (security != null) {
            String brokerPassword = UUID.randomUUID().toString();
            props.put("sasl.enabled.mechanisms", "PLAIN");
            props.put("sasl.mechanism.inter.broker.protocol", "PLAIN");
            // The broker's own login (username, password) and the users it accepts (user_NAME).
            props.put("listener.name.sasl_ssl.plain.sasl.jaas.config", plainLogin("broker", brokerPassword,
                    Map.of("broker", brokerPassword, security.user(), security.password())));
            Path keystore = security.truststore().resolveSibling("broker.p12");
            props.put("ssl.keystore.type", "PKCS12");
            props.put("ssl.keystore.location", keystore.toString());
            props.put("ssl.keystore.password", security.storePassword());
            props.put("ssl.key.password", security.storePassword());
            props.put("ssl.truststore.type", "PKCS12");
            props.put("ssl.truststore.location", security.truststore().toString());
            props.put("ssl.truststore.password", security.storePassword());
        }
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
        EmbeddedKafkaBroker broker = new EmbeddedKafkaBroker(server, "127.0.0.1:" + brokerPort, dataDir, deleteOnClose, security);
        broker.awaitReady();
        return broker;
    }

    public String bootstrapServers() {
        return bootstrapServers;
    }

    /**
     * The Kafka client properties a client of this broker needs besides its bootstrap servers:
     * none for a plaintext broker; for a SASL_SSL one, the protocol, the user's credentials and
     * the truststore with the broker's certificate.
     */
    public Map<String, String> clientProperties() {
        return security == null ? Map.of() : security.clientProperties(security.user(), security.password());
    }

    /** {@link #clientProperties()} of a SASL_SSL broker with other credentials, for a client that is to be refused. */
    public Map<String, String> clientProperties(String user, String password) {
        if (security == null) throw new IllegalStateException("a plaintext broker takes no credentials");
        return security.clientProperties(user, password);
    }

    /** The JAAS configuration of a SASL/PLAIN login as {@code user}, accepting {@code users} (name to password) when a broker's. */
    private static String plainLogin(String user, String password, Map<String, String> users) {
        StringBuilder b = new StringBuilder("org.apache.kafka.common.security.plain.PlainLoginModule required username=\"")
                .append(user).append("\" password=\"").append(password).append('"');
        new TreeMap<>(users).forEach((name, pass) -> b.append(" user_").append(name).append("=\"").append(pass).append('"'));
        return b.append(';').toString();
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
        return Admin.create(KafkaClientProperties.over(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers), clientProperties()));
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
