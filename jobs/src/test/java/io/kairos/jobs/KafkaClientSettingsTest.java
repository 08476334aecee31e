package io.kairos.jobs;

import io.kairos.jobs.ServingJob.Endpoints.ProducerRole;
import io.kairos.jobs.config.ServingConfig;
import org.junit.jupiter.api.Test;

import io.kairos.flink.kafka.ResultsTopicLog;

import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;

/** The settings of the job's Kafka producers, and the user's over them. */
class KafkaClientSettingsTest {

    @Test
    void onlyTheTelemetryLingersAndOnlyWhatSomeoneWaitsForKeepsOneRequestInFlight() {
        ServingConfig config = ServingConfig.DEFAULTS;
        Properties results = ServingJob.Endpoints.producerSettings(ProducerRole.RESULTS, config);
        Properties reports = ServingJob.Endpoints.producerSettings(ProducerRole.DEVICE_REPORTS, config);
        Properties telemetry = ServingJob.Endpoints.producerSettings(ProducerRole.TELEMETRY, config);
        Properties other = ServingJob.Endpoints.producerSettings(ProducerRole.OTHER, config);

        assertThat(results.getProperty("linger.ms")).isEqualTo("0");
        assertThat(reports.getProperty("linger.ms")).isEqualTo("0");
        assertThat(other.getProperty("linger.ms")).isEqualTo("0");
        assertThat(telemetry.getProperty("linger.ms")).isEqualTo("20");

        assertThat(results.getProperty("max.in.flight.requests.per.connection")).isEqualTo("1");
        assertThat(reports.getProperty("max.in.flight.requests.per.connection")).isEqualTo("1");
        assertThat(telemetry.getProperty("max.in.flight.requests.per.connection")).isNull();
        assertThat(other.getProperty("max.in.flight.requests.per.connection")).isNull();

        for (Properties p : new Properties[]{results, reports, telemetry, other}) {
            assertThat(p.getProperty("max.request.size")).isEqualTo(Integer.toString(ServingJob.RESULTS_MAX_REQUEST_SIZE));
        }
    }

    @Test
    void everyProducerWaitsForEveryInSyncReplicaAndRetriesWithoutWritingTwice() {
        ServingConfig config = ServingConfig.DEFAULTS;
        for (ProducerRole role : ProducerRole.values()) {
            Properties p = ServingJob.Endpoints.producerSettings(role, config);
            assertThat(p.getProperty("acks")).as(role.name()).isEqualTo("all");
            assertThat(p.getProperty("enable.idempotence")).as(role.name()).isEqualTo("true");
            assertThat(p.getProperty("request.timeout.ms")).as(role.name()).isEqualTo("5000");
        }
        // The user's properties still win: a deployment that accepts losing a result for latency says so.
        ServingConfig.Builder user = config.toBuilder();
        user.kafkaProperties.put("acks", "1");
        user.kafkaProperties.put("enable.idempotence", "false");
        Properties results = ServingJob.Endpoints.producerSettings(ProducerRole.RESULTS, user.build());
        assertThat(results.getProperty("acks")).isEqualTo("1");
        assertThat(results.getProperty("enable.idempotence")).isEqualTo("false");
    }

    @Test
    void consumersFetchAtOnceAndLeaveASilentBrokerAfterFiveSeconds() {
        ServingConfig config = ServingConfig.DEFAULTS;
        Properties c = ServingJob.Endpoints.consumerSettings(config);

        assertThat(c.getProperty("fetch.max.wait.ms")).as("parked at the broker, answered when a record comes").isEqualTo("500");
        assertThat(c.getProperty("fetch.min.bytes")).isEqualTo("1");
        assertThat(c.getProperty("max.partition.fetch.bytes")).isEqualTo(Integer.toString(4 << 20));
        assertThat(c.getProperty("fetch.max.bytes")).as("a whole response fits the JDK's cached direct buffer")
                .isEqualTo(Integer.toString(4 << 20)).satisfies(b -> assertThat(Integer.parseInt(b)).isLessThan(ServingJob.MAX_CACHED_DIRECT_BUFFER));
        assertThat(c.getProperty("request.timeout.ms")).isEqualTo("5000");
        ServingConfig.Builder user = config.toBuilder();
        user.kafkaProperties.put("request.timeout.ms", "30000");
        assertThat(ServingJob.Endpoints.consumerSettings(user.build()).getProperty("request.timeout.ms")).isEqualTo("30000");
    }

    @Test
    void noClientOfTheJobRegistersItsMetricsInJmxUnlessTheUserAsks() {
        ServingConfig config = ServingConfig.DEFAULTS;
        List<Properties> clients = new ArrayList<>();
        for (ProducerRole role : ProducerRole.values()) clients.add(ServingJob.Endpoints.producerSettings(role, config));
        clients.add(ServingJob.Endpoints.consumerSettings(config));
        for (Properties p : clients) assertThat(p.getProperty("auto.include.jmx.reporter")).isEqualTo("false");
        assertThat(ServingJob.Endpoints.resultLog(config)).isEqualTo(new ResultsTopicLog(config.resultsTopic,
                props("bootstrap.servers", config.bootstrapServers, "auto.include.jmx.reporter", "false")));

        ServingConfig.Builder user = config.toBuilder();
        user.kafkaProperties.put("auto.include.jmx.reporter", "true");
        assertThat(ServingJob.Endpoints.consumerSettings(user.build()).getProperty("auto.include.jmx.reporter")).isEqualTo("true");
        assertThat(ServingJob.Endpoints.producerSettings(ProducerRole.RESULTS, user.build()).getProperty("auto.include.jmx.reporter")).isEqualTo("true");
    }

    private static Properties props(String... keysAndValues) {
        Properties p = new Properties();
        for (int i = 0; i < keysAndValues.length; i += 2) p.setProperty(keysAndValues[i], keysAndValues[i + 1]);
        return p;
    }

    @Test
    void theUsersKafkaPropertiesGoOverEveryProducersOwn() {
        ServingConfig.Builder builder = ServingConfig.builder();
        builder.kafkaProperties.put("linger.ms", "3");
        builder.kafkaProperties.put("max.in.flight.requests.per.connection", "5");
        ServingConfig config = builder.build();
        for (ProducerRole role : ProducerRole.values()) {
            Properties p = ServingJob.Endpoints.producerSettings(role, config);
            assertThat(p.getProperty("linger.ms")).as(role.name()).isEqualTo("3");
            assertThat(p.getProperty("max.in.flight.requests.per.connection")).as(role.name()).isEqualTo("5");
        }
    }

}
