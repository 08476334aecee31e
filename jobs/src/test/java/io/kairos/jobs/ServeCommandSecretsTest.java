package io.kairos.jobs;

import io.kairos.flink.RepositoryCopy;
import io.kairos.jobs.config.ServingConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Credentials given to {@code serve} (Kafka client properties, the user information of a model
 * repository's URI) never reach what it prints or what a logger writes of its errors.
 */
class ServeCommandSecretsTest {
    private static final String JAAS_PASSWORD = "jaas-pw-4711";
    private static final String KEY_PASSWORD = "key-pw-0815";
    private static final String TRUSTSTORE_PASSWORD = "trust-pw-2342";
    private static final String S3_SECRET = "s3-secret-1234";
    private static final String REPOSITORY = "s3://AKIAEXAMPLE:" + S3_SECRET + "@models-bucket/models";

    private static void assertNoSecretIn(String text) {
        assertThat(text).doesNotContain(JAAS_PASSWORD).doesNotContain(KEY_PASSWORD).doesNotContain(TRUSTSTORE_PASSWORD)
                .doesNotContain(S3_SECRET).doesNotContain("AKIAEXAMPLE");
    }

    /** What a logger writes of an exception: its class, message and stack, and every cause's. */
    private static String logged(Throwable t) {
        StringWriter w = new StringWriter();
        t.printStackTrace(new PrintWriter(w));
        return w.toString();
    }

    @Test
    void serveShowsItsKafkaPropertiesMaskedAndItsFailureWithoutTheRepositorysCredentials(@TempDir Path dir) throws Exception {
        Path clientConfig = dir.resolve("client.properties");
        Files.writeString(clientConfig, String.join("\n",
                "security.protocol=SASL_SSL",
                "sasl.mechanism=PLAIN",
                "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"kairos\" password=\"" + JAAS_PASSWORD + "\";",
                "ssl.keystore.location=/etc/kafka/client.p12"));
        String[] args = {"--kafka-config", clientConfig.toString(), "--kafka-property", "ssl.key.password=" + KEY_PASSWORD,
                "--kafka-property", "ssl.truststore.password=" + TRUSTSTORE_PASSWORD, "--model-repository", REPOSITORY};
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();

        // As the job jar's main runs it (flink run, infra/cluster submit).
        var cl = ServeCommand.commandLine(new ServeCommand(), args);
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute(args);

        assertThat(code).isEqualTo(2); // no file system for s3 here: the repository cannot be read
        assertThat(out.toString()).contains("serve: Kafka client properties {")
                .contains("security.protocol=SASL_SSL").contains("sasl.jaas.config=******").contains("ssl.key.password=******")
                .contains("ssl.truststore.password=******").contains("ssl.keystore.location=******");
        assertThat(err.toString()).startsWith("kairos: model repository s3://******@models-bucket/models: ");
        assertNoSecretIn(out.toString());
        assertNoSecretIn(err.toString());
    }

    @Test
    void theRepositorysErrorsAndNameNeverShowItsCredentials() {
        ServingConfig.Builder b = ServingConfig.builder();
        b.modelRepository = REPOSITORY;
        ServingConfig c = b.build();
        Throwable unreadable = catchThrowable(() -> ServeCommand.catalog(c));
        assertThat(unreadable).isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("model repository s3://******@models-bucket/models: ");
        assertNoSecretIn(logged(unreadable));

        Throwable notAUri = catchThrowable(() -> RepositoryCopy.of("s3://AKIAEXAMPLE:" + S3_SECRET + "@models-bucket/my models"));
        assertThat(notAUri).hasMessageStartingWith("model repository s3://******@models-bucket/my models: not a URI");
        assertNoSecretIn(logged(notAUri));

        assertThat(RepositoryCopy.of(REPOSITORY)).hasToString("s3://******@models-bucket/models");
    }
}
