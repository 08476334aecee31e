package io.kairos.jobs.options;

import io.kairos.jobs.ServeCommand;
import io.kairos.jobs.ServingJob;
import io.kairos.jobs.cli.KairosRun;
import io.kairos.jobs.config.ServingConfig;
import io.kairos.wire.result.ResultBounds;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code --kafka-config} and {@code --kafka-property}: from the flags to the job's configuration, and their errors. */
class KafkaOptionsTest {

    private static ServingConfig serve(String... args) {
        ServeCommand command = new ServeCommand();
        new CommandLine(command).parseArgs(args);
        return command.config();
    }

    private static Path file(Path dir, String text) throws Exception {
        Path f = dir.resolve("client.properties");
        Files.writeString(f, text);
        return f;
    }

    @Test
    void theFileAndThePairsReachTheJobAndTheLastWordWins(@TempDir Path dir) throws Exception {
        Path f = file(dir, "security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\nssl.truststore.location=/etc/kafka/trust.p12\n");

        ServingConfig c = serve("--kafka-config", f.toString(), "--kafka-property", "sasl.mechanism=SCRAM-SHA-256",
                "--kafka-property", "request.timeout.ms=20000", "--kafka-property", "request.timeout.ms=25000");

        assertThat(c.kafkaProperties).containsExactlyInAnyOrderEntriesOf(Map.of(
                "security.protocol", "SASL_SSL", "sasl.mechanism", "SCRAM-SHA-256",
                "ssl.truststore.location", "/etc/kafka/trust.p12", "request.timeout.ms", "25000"));
        assertThat(serve().kafkaProperties).isEmpty();
    }

    @Test
    void aBadFileOrPairIsAOneLineErrorWithExitCode2(@TempDir Path dir) throws Exception {
        Path missing = dir.resolve("missing.properties");
        KairosRun r = KairosRun.of("serve", "--kafka-config", missing.toString());
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err().strip()).isEqualTo("kairos serve: --kafka-config " + missing + ": no such file (see 'kairos serve --help')");

        r = KairosRun.of("serve", "--kafka-property", "security.protocol");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err().strip()).isEqualTo("kairos serve: --kafka-property 'security.protocol': expected KEY=VALUE (see 'kairos serve --help')");

        r = KairosRun.of("control", "show", "--kafka-property", "bootstrap.servers=elsewhere:9092");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err().strip()).startsWith("kairos control show: --kafka-property bootstrap.servers: 'bootstrap.servers' cannot be set here: --bootstrap-servers sets it");

        // A value Kafka's clients would refuse, refused now rather than by a job that restarts on it.
        r = KairosRun.of("serve", "--kafka-property", "security.protocol=TLS");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("kairos serve: --kafka-config/--kafka-property: Invalid value TLS for configuration security.protocol");

        r = KairosRun.of("serve", "--kafka-property", "max.request.size=100");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("the Kafka property max.request.size: a result of at most");
    }

    @Test
    void aKeyNoKafkaClientKnowsIsPassedOnWithAWarning() {
        CommandLine cl = new CommandLine(new ServeCommand());
        StringWriter err = new StringWriter();
        cl.setErr(new PrintWriter(err, true));
        KafkaOptions options = new KafkaOptions();
        options.kafkaProperties.add("securty.protocol=SASL_SSL");
        assertThat(options.clientProperties(cl)).containsEntry("securty.protocol", "SASL_SSL");
        assertThat(err.toString().strip()).isEqualTo("kairos: warning: 'securty.protocol' is not a Kafka client setting; passed on as it is");
    }

    @Test
    void theResultsAreCutToTheUsersMaxRequestSize() {
        // The same headroom below the limit as below Kafka's default.
        int headroom = ResultBounds.KAFKA_DEFAULT_MAX_REQUEST_SIZE - ResultBounds.DEFAULT.maxRecordBytes();
        assertThat(serve("--kafka-property", "max.request.size=200000").resultBounds().maxRecordBytes()).isEqualTo(200_000 - headroom);
        assertThat(serve().resultBounds().maxRecordBytes()).isEqualTo(ResultBounds.DEFAULT.maxRecordBytes());
    }
}
