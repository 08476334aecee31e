package io.kairos.wire;

import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class SecretsTest {

    @Test
    void credentialsAreMaskedAndEverythingElseIsKept() {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("security.protocol", "SASL_SSL");
        p.put("sasl.jaas.config", "PlainLoginModule required username=\"u\" password=\"hunter2\";");
        p.put("ssl.truststore.password", "tpass");
        p.put("ssl.keystore.key", "-----BEGIN PRIVATE KEY-----");
        p.put("ssl.key.password", "kpass");
        p.put("sasl.oauthbearer.client.secret", "s");
        p.put("basic.auth.user.info", "u:p");
        p.put("ssl.truststore.location", "/etc/kafka/truststore.p12");

        assertThat(Secrets.masked(p)).containsExactly(
                Map.entry("security.protocol", "SASL_SSL"),
                Map.entry("sasl.jaas.config", Secrets.MASK),
                Map.entry("ssl.truststore.password", Secrets.MASK),
                Map.entry("ssl.keystore.key", Secrets.MASK),
                Map.entry("ssl.key.password", Secrets.MASK),
                Map.entry("sasl.oauthbearer.client.secret", Secrets.MASK),
                Map.entry("basic.auth.user.info", Secrets.MASK),
                Map.entry("ssl.truststore.location", "/etc/kafka/truststore.p12"));
    }

    @Test
    void theUserInformationOfEveryUriIsMasked() {
        assertThat(Secrets.maskUris("s3://AKIA:secret@bucket/models")).isEqualTo("s3://******@bucket/models");
        assertThat(Secrets.maskUris("model repository https://u:p@host:8443/m: no such folder; also hdfs://a@nn/x"))
                .isEqualTo("model repository https://******@host:8443/m: no such folder; also hdfs://******@nn/x");
        assertThat(Secrets.maskUris("s3://bucket/models/v@2")).isEqualTo("s3://bucket/models/v@2");
        assertThat(Secrets.maskUris("/local/models")).isEqualTo("/local/models");
        assertThat(Secrets.maskUris(null)).isNull();
    }
}
