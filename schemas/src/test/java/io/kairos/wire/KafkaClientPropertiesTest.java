package io.kairos.wire;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class KafkaClientPropertiesTest {

    private static Map<String, String> read(Path file, String... pairs) {
        return KafkaClientProperties.read(file, List.of(pairs), "--kafka-config", "--kafka-property");
    }

    @Test
    void pairsWinOverTheFileAndLaterPairsOverEarlierOnes(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("client.properties");
        Files.writeString(file, """
                security.protocol=SASL_SSL
                sasl.mechanism=PLAIN
                # a comment
                sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="p=q";
                """);

        Map<String, String> p = read(file, "sasl.mechanism=SCRAM-SHA-512", "linger.ms=5", "linger.ms=7", "ssl.truststore.password=a=b");

        assertThat(p).containsExactlyInAnyOrderEntriesOf(Map.of(
                "security.protocol", "SASL_SSL",
                "sasl.mechanism", "SCRAM-SHA-512",
                "sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\"p=q\";",
                "linger.ms", "7",
                "ssl.truststore.password", "a=b"));
    }

    @Test
    void noFileAndNoPairsIsNothing() {
        assertThat(read(null)).isEmpty();
    }

    @Test
    void aPairWithoutEqualsIsNamedButASecretOneIsNotEchoed() {
        assertThatThrownBy(() -> read(null, "linger.ms"))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("--kafka-property 'linger.ms': expected KEY=VALUE");
        assertThatThrownBy(() -> read(null, "ssl.key.password:hunter2"))
                .hasMessage("--kafka-property '******': expected KEY=VALUE");
        assertThatThrownBy(() -> read(null, "=x")).hasMessage("--kafka-property '=x': the key is empty");
    }

    @Test
    void keysKairosSetsItselfAreRefusedWhereverTheyComeFrom(@TempDir Path dir) throws Exception {
        assertThatThrownBy(() -> read(null, "bootstrap.servers=b:9092"))
                .hasMessage("--kafka-property bootstrap.servers: 'bootstrap.servers' cannot be set here: --bootstrap-servers sets it");
        Path file = dir.resolve("c.properties");
        Files.writeString(file, "group.id=mine\n");
        assertThatThrownBy(() -> read(file)).hasMessageStartingWith("--kafka-config " + file + ": 'group.id' cannot be set here");
    }

    @Test
    void aFileThatCannotBeReadIsNamed(@TempDir Path dir) throws Exception {
        Path missing = dir.resolve("missing.properties");
        assertThatThrownBy(() -> read(missing)).hasMessage("--kafka-config " + missing + ": no such file");
        Path bad = dir.resolve("bad.properties");
        Files.writeString(bad, "a=\\u12\n");
        assertThatThrownBy(() -> read(bad)).hasMessageStartingWith("--kafka-config " + bad + ": not a properties file (");
        assertThatThrownBy(() -> read(dir)).hasMessageStartingWith("--kafka-config " + dir + ": cannot read (");
    }

    @Test
    void theUsersPropertiesOverrideAClientsOwnWithoutChangingThem() {
        Map<String, Object> own = Map.of("linger.ms", 0, "acks", "all");
        assertThat(KafkaClientProperties.over(own, Map.of("linger.ms", "5", "security.protocol", "SSL")))
                .containsExactlyInAnyOrderEntriesOf(Map.of("linger.ms", "5", "acks", "all", "security.protocol", "SSL"));
        Properties props = new Properties();
        props.setProperty("fetch.max.wait.ms", "5");
        Properties merged = KafkaClientProperties.over(props, Map.of("security.protocol", "SASL_SSL"));
        assertThat(merged).containsEntry("fetch.max.wait.ms", "5").containsEntry("security.protocol", "SASL_SSL");
        assertThat(props).doesNotContainKey("security.protocol");
    }
}
