package io.kairos.tools;

import io.kairos.core.model.ModelCatalog;
import io.kairos.jobs.ServeCommand;
import io.kairos.jobs.config.ServingConfig;
import io.kairos.jobs.ServingJob;
import io.kairos.onnx.examples.ExampleModels;
import io.kairos.tools.client.RequestProducer;
import io.kairos.tools.client.ResultConsumer;
import io.kairos.tools.embedded.EmbeddedKafkaBroker;
import io.kairos.wire.KafkaClientProperties;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.Collections;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/**
 * {@code sandbox}: a Kafka broker (in-process, KRaft) and the serving job on a Flink mini-cluster,
 * kept up for clients of any language to talk to, with no load of its own: what a client's tests
 * run against. It prints {@code bootstrap.servers=HOST:PORT} once the broker is up and
 * {@code serving} once the job has answered a first request, then runs until it is interrupted
 * (or, with {@code --exit-on-stdin-close}, its standard input closes: so that it never outlives a
 * test process that started it).
 * Options after {@code --} are {@code serve}'s (e.g. {@code -- --registry-schema-id 1 --devices 2}).
 */
@Command(name = "sandbox", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Run an embedded Kafka broker and the serving job on a Flink mini-cluster for clients to use, until Ctrl-C.")
public class SandboxCommand implements Callable<Integer> {

    @Option(names = "--onnx", description = "Serve the example ONNX models (mlp, cnn, resnet; generated into .kairos/models if missing) on ONNX Runtime CPU devices, "
            + "so that results carry real outputs; else simulated devices with the built-in profiles (no outputs).")
    boolean onnx;

    @Option(names = "--sasl-ssl", paramLabel = "DIR", description = "Make the broker speak SASL_SSL only (SASL/PLAIN over TLS, a self-signed certificate) "
            + "and write what its clients need into DIR: client.properties (Java clients, --kafka-config), librdkafka.properties "
            + "(confluent-kafka, kcat -F) and ca.pem (the certificate).")
    Path saslSsl;

    @Option(names = "--exit-on-stdin-close", description = "Also stop when standard input closes: a test that starts the sandbox as a child "
            + "with a pipe on its stdin never leaves it running, whatever way the test ends.")
    boolean exitOnStdinClose;

    @Parameters(paramLabel = "SERVE_OPTION", description = "serve's options, after --; --bootstrap-servers is the sandbox's broker.")
    List<String> serveOptions = new ArrayList<>();

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        ServingConfig.Builder config = serveConfig().toBuilder();
        if (onnx && config.modelRepository == null) {
            config.modelRepository = ExampleModels.writeRepository(Path.of(System.getProperty("kairos.home", "."), ".kairos", "models"))
                    .toAbsolutePath().toString();
        }
        ModelCatalog catalog = ServeCommand.catalog(config.build());
        // Requests sent while the job starts wait in the topic rather than being skipped.
        config.fromEarliest = true;
        CountDownLatch stop = new CountDownLatch(1);
        String password = UUID.randomUUID().toString();
        try (ShutdownHook hook = ShutdownHook.install();
             EmbeddedKafkaBroker broker = saslSsl == null ? EmbeddedKafkaBroker.start() : EmbeddedKafkaBroker.startSaslSsl(SASL_USER, password)) {
            hook.onStop(stop::countDown); // Ctrl-C or SIGTERM: wind down (job, then broker) before the JVM exits
            config.bootstrapServers = broker.bootstrapServers();
            config.kafkaProperties.putAll(broker.clientProperties());
            if (saslSsl != null) writeClientFiles(broker, password);
            for (String topic : config.topics()) broker.createTopic(topic, 1);
            out.println("bootstrap.servers=" + broker.bootstrapServers());
            out.println("topics: requests " + config.requestsTopic + ", results " + config.resultsTopic + ", control " + config.controlTopic
                    + ", outcomes " + config.outcomesTopic + ", telemetry " + config.telemetryTopic);
            out.println("models: " + catalog.names());
            out.flush();
            Configuration flink = new Configuration();
            flink.set(RestOptions.BIND_PORT, "0");
            StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(config.devices, flink);
            JobClient job = ServingJob.onKafka(config.build(), catalog).start(env);
            try {
                try (RequestProducer producer = new RequestProducer(KafkaClientProperties.over(RequestProducer.lowLatencyConfig(broker.bootstrapServers()),
                        config.kafkaProperties), config.requestsTopic, catalog);
                     ResultConsumer results = new ResultConsumer(KafkaClientProperties.over(ResultConsumer.lowLatencyConfig(broker.bootstrapServers()),
                             config.kafkaProperties), config.resultsTopic, ResultConsumer.StartAt.EARLIEST)) {
                    producer.idPrefix("sandbox-warm-up-");
                    results.awaitServing(producer, catalog.names().iterator().next(), Duration.ofSeconds(90));
                }
                out.println("serving (job " + job.getJobID() + "); " + (exitOnStdinClose ? "close stdin or " : "") + "press Ctrl-C to stop");
                out.flush();
                if (exitOnStdinClose) awaitEndOfInput(stop);
                stop.await();
            } finally {
                job.cancel().get();
            }
        }
        return 0;
    }

    /** The user the SASL_SSL sandbox's clients log in as; the password is new each run. */
    static final String SASL_USER = "kairos";

    /** What a client of the SASL_SSL broker needs, for Java clients and for librdkafka's (confluent-kafka, kcat), into {@link #saslSsl}. */
    private void writeClientFiles(EmbeddedKafkaBroker broker, String password) throws Exception {
        Files.createDirectories(saslSsl);
        Map<String, String> java = broker.clientProperties();
        Path pem = saslSsl.resolve("ca.pem").toAbsolutePath();
        KeyStore truststore = KeyStore.getInstance(java.get("ssl.truststore.type"));
        try (InputStream in = Files.newInputStream(Path.of(java.get("ssl.truststore.location")))) {
            truststore.load(in, java.get("ssl.truststore.password").toCharArray());
        }
        StringBuilder certificates = new StringBuilder();
        for (String alias : Collections.list(truststore.aliases())) {
            Certificate c = truststore.getCertificate(alias);
            if (c == null) continue;
            certificates.append("-----BEGIN CERTIFICATE-----\n")
                    .append(Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(c.getEncoded()))
                    .append("\n-----END CERTIFICATE-----\n");
        }
        Files.writeString(pem, certificates);
        Properties javaFile = new Properties();
        javaFile.putAll(java);
        try (var out = Files.newBufferedWriter(saslSsl.resolve("client.properties"))) {
            javaFile.store(out, "Java Kafka clients of the Kairos sandbox (--kafka-config)");
        }
        Files.writeString(saslSsl.resolve("librdkafka.properties"), "# librdkafka clients of the Kairos sandbox (confluent-kafka, kcat -F)\n"
                + "security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\nsasl.username=" + SASL_USER + "\nsasl.password=" + password + "\n"
                + "ssl.ca.location=" + pem + "\n");
        spec.commandLine().getOut().println("client.config=" + saslSsl.resolve("librdkafka.properties").toAbsolutePath()
                + " (Java: " + saslSsl.resolve("client.properties").toAbsolutePath() + ")");
    }

    /** serve's configuration from the options after {@code --}, checked as serve checks them. */
    private ServingConfig serveConfig() {
        try {
            return ServeCommand.configOf(serveOptions);
        } catch (CommandLine.ParameterException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "serve option: " + e.getMessage());
        }
    }

    /** Counts {@code stop} down when standard input reaches its end (or breaks). */
    private static void awaitEndOfInput(CountDownLatch stop) {
        Thread stdin = new Thread(() -> {
            try (InputStream in = System.in) {
                while (in.read() >= 0) {
                    // anything written is ignored; only the end counts
                }
            } catch (IOException e) {
                // a broken stdin ends the sandbox too
            }
            stop.countDown();
        }, "sandbox-stdin");
        stdin.setDaemon(true);
        stdin.start();
    }
}
