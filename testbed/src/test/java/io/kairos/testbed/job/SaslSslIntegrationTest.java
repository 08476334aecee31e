package io.kairos.testbed.job;

import io.kairos.testbed.CliRun;
import io.kairos.core.model.ModelCatalog;
import io.kairos.jobs.ServeCommand;
import io.kairos.jobs.config.ServingConfig;
import io.kairos.jobs.ServingJob;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.ResultStatus;
import io.kairos.tools.embedded.EmbeddedKafkaBroker;
import io.kairos.workload.ArrivalSpec;
import io.kairos.workload.Workload;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The serving job and the commands on a broker that only speaks SASL_SSL (SASL/PLAIN over TLS with
 * a self-signed certificate made for the test): everything Kairos sends and reads goes through
 * authenticated, encrypted connections when given the client properties, and a client with wrong
 * or no credentials, or one that does not trust the certificate, gets nothing.
 */
class SaslSslIntegrationTest {

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(
            new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4).build());

    private static final ModelCatalog CATALOG = ModelCatalog.builtIn();
    private static final String USER = "kairos";
    private static final String PASSWORD = "pw-" + UUID.randomUUID();
    private static EmbeddedKafkaBroker broker;

    @BeforeAll
    static void startBroker() {
        broker = EmbeddedKafkaBroker.startSaslSsl(USER, PASSWORD);
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) broker.close();
    }

    /** The broker's client properties in a file, as a user keeps them. */
    private static Path clientConfig(Path dir) throws Exception {
        Properties p = new Properties();
        p.putAll(broker.clientProperties());
        Path file = dir.resolve("client.properties");
        try (var w = Files.newBufferedWriter(file)) {
            p.store(w, null);
        }
        return file;
    }

    @Test
    void theJobServesRequestsSentByLoadgenOverSaslSslAndCollectReadsTheResults(@TempDir Path dir) throws Exception {
        Path clientConfig = clientConfig(dir);
        String prefix = "sasl-";
        // The job's configuration as serve (and the job jar's main, which infra/cluster submit runs) makes it.
        String[] serveArgs = {"--bootstrap-servers", broker.bootstrapServers(), "--kafka-config", clientConfig.toString(),
                "--kafka-property", "client.dns.lookup=use_all_dns_ips",
                "--requests-topic", prefix + "requests", "--results-topic", prefix + "results", "--telemetry-topic", prefix + "telemetry",
                "--control-topic", prefix + "control", "--outcomes-topic", prefix + "control-outcomes",
                "--device-reports-topic", prefix + "device-reports", "--pipeline-hops-topic", prefix + "pipeline-hops", "--group-id", prefix + "serving",
                "--from-earliest", "--devices", "2", "--checkpoint-interval-ms", "0"};
        ServeCommand serve = new ServeCommand();
        ServeCommand.commandLine(serve, serveArgs).parseArgs(serveArgs);
        ServingConfig config = serve.config();
        assertThat(config.kafkaProperties).containsEntry("security.protocol", "SASL_SSL").containsEntry("client.dns.lookup", "use_all_dns_ips");
        for (String topic : config.topics()) broker.createTopic(topic, 1);

        try (TopicClient kafka = new TopicClient(broker.bootstrapServers(), broker.clientProperties())) {
            JobClient job = ServingJob.onKafka(config, CATALOG).start(StreamExecutionEnvironment.getExecutionEnvironment());
            try {
                kafka.send(config.requestsTopic, InferenceRequest.class, ServingJobIntegrationTest.request("warm-up", "mlp", 120_000));
                kafka.flush();
                assertThat(kafka.readUntil(config.resultsTopic, InferenceResult.class, l -> !l.isEmpty(), Duration.ofSeconds(90)))
                        .extracting(InferenceResult::getRequestId).containsExactly("warm-up");

                // The control plane over SASL_SSL: the command publishes, the job reads, decides and answers.
                CliRun policy = CliRun.checkout("control", "set-policy", "--bootstrap-servers", broker.bootstrapServers(),
                        "--kafka-config", clientConfig.toString(), "--control-topic", config.controlTopic,
                        "--outcomes-topic", config.outcomesTopic, "--group", "default", "--policy", "clockwork");
                assertThat(policy.code()).as(policy.err()).isZero();
                assertThat(policy.out()).startsWith("applied policy/default");

                String spec = "mlp:200:2000";
                int planned = Workload.parse(spec, ArrivalSpec.POISSON).arrivalsWithin(5, 1_000_000).size();
                CliRun loadgen = CliRun.checkout("loadgen", "--bootstrap-servers", broker.bootstrapServers(), "--kafka-config", clientConfig.toString(),
                        "--topic", config.requestsTopic, "-w", spec, "--duration", "1", "--seed", "5", "--no-progress");
                assertThat(loadgen.code()).as(loadgen.err()).isZero();
                assertThat(loadgen.out()).contains("acknowledged " + planned + ", failed 0");

                Path rows = dir.resolve("rows.csv");
                // Properties given one by one instead of the file.
                List<String> collect = new java.util.ArrayList<>(List.of("collect", "--bootstrap-servers", broker.bootstrapServers(),
                        "--topic", config.resultsTopic, "--from-earliest", "--expect", Integer.toString(planned + 1),
                        "--idle-timeout", "60", "--csv", rows.toString(), "--no-progress"));
                broker.clientProperties().forEach((k, v) -> collect.addAll(List.of("--kafka-property", k + "=" + v)));
                CliRun collected = CliRun.checkout(collect.toArray(String[]::new));
                assertThat(collected.code()).as(collected.err()).isZero();
                assertThat(collected.out()).contains("received " + (planned + 1) + " distinct results");
                List<String> lines = Files.readAllLines(rows);
                assertThat(lines).hasSize(planned + 2); // the header, the warm-up, the load
                int status = List.of(lines.get(0).split(",")).indexOf("status");
                Set<String> statuses = lines.subList(1, lines.size()).stream().map(l -> l.split(",")[status]).collect(Collectors.toSet());
                assertThat(statuses).containsExactly(ResultStatus.OK.name());
            } finally {
                job.cancel().get();
            }
        }
    }

    @Test
    void aClientWithWrongCredentialsIsRefused() {
        Map<String, Object> wrong = new HashMap<>(broker.clientProperties(USER, "not-" + PASSWORD));
        wrong.put("bootstrap.servers", broker.bootstrapServers());
        try (Admin admin = Admin.create(wrong)) {
            assertThatThrownBy(() -> admin.describeCluster().nodes().get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).cause().isInstanceOf(SaslAuthenticationException.class)
                    .hasMessageContaining("Authentication failed");
        }
        Map<String, Object> stranger = new HashMap<>(broker.clientProperties("mallory", PASSWORD));
        stranger.put("bootstrap.servers", broker.bootstrapServers());
        try (Admin admin = Admin.create(stranger)) {
            assertThatThrownBy(() -> admin.describeCluster().nodes().get(30, TimeUnit.SECONDS))
                    .cause().isInstanceOf(SaslAuthenticationException.class);
        }
    }

    @Test
    void aCommandWithWrongCredentialsFailsInOneLineThatDoesNotShowThePassword() {
        String wrongPassword = "wrong-" + UUID.randomUUID();
        broker.createTopic("sasl-refused", 1);
        List<String> args = new java.util.ArrayList<>(List.of("collect", "--bootstrap-servers", broker.bootstrapServers(),
                "--topic", "sasl-refused", "--idle-timeout", "1", "--no-progress"));
        broker.clientProperties(USER, wrongPassword).forEach((k, v) -> args.addAll(List.of("--kafka-property", k + "=" + v)));
        CliRun r = CliRun.checkout(args.toArray(String[]::new));
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err().strip()).startsWith("kairos collect: error: ").contains("Authentication failed").doesNotContain("\n");
        assertThat(r.out() + r.err()).doesNotContain(wrongPassword);
    }

    @Test
    void aClientWithoutCredentialsGetsNothing() {
        // TLS alone, trusting the broker: the broker waits for a SASL handshake and drops the connection.
        Map<String, Object> noSasl = new HashMap<>(broker.clientProperties());
        noSasl.keySet().removeIf(k -> k.startsWith("sasl."));
        noSasl.put("security.protocol", "SSL");
        // Neither TLS nor SASL.
        Map<String, Object> plaintext = new HashMap<>();
        for (Map<String, Object> settings : List.of(noSasl, plaintext)) {
            settings.put("bootstrap.servers", broker.bootstrapServers());
            settings.put("max.block.ms", 5_000);
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(settings, new ByteArraySerializer(), new ByteArraySerializer())) {
                assertThatThrownBy(() -> producer.partitionsFor("sasl-requests"))
                        .as("a client with %s", settings.get("security.protocol")).isInstanceOf(TimeoutException.class);
            }
        }
    }

    @Test
    void aClientThatDoesNotTrustTheCertificateIsRefused() {
        Map<String, Object> untrusting = new HashMap<>(broker.clientProperties());
        untrusting.keySet().removeIf(k -> k.startsWith("ssl.truststore."));
        untrusting.put("bootstrap.servers", broker.bootstrapServers());
        try (Admin admin = Admin.create(untrusting)) {
            assertThatThrownBy(() -> admin.describeCluster().nodes().get(30, TimeUnit.SECONDS))
                    .cause().isInstanceOf(SslAuthenticationException.class);
        }
    }
}
