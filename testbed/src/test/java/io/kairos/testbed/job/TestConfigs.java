package io.kairos.testbed.job;

import io.kairos.jobs.config.ServingConfig;
import io.kairos.tools.embedded.EmbeddedKafkaBroker;

/** Serving configurations for the integration tests: their own topics on the test broker, created here. */
public final class TestConfigs {
    private TestConfigs() {}

    /**
     * Topics and consumer group named with {@code prefix} (a prefix per test, so that tests on one
     * broker never read each other's records), read from the earliest offset, 2 devices, no
     * checkpoints; {@code adjust} changes the rest before the topics are created.
     */
    public static ServingConfig onBroker(EmbeddedKafkaBroker broker, String prefix, java.util.function.Consumer<ServingConfig.Builder> adjust) {
        ServingConfig.Builder b = ServingConfig.builder();
        b.bootstrapServers = broker.bootstrapServers();
        b.kafkaProperties = new java.util.LinkedHashMap<>(broker.clientProperties());
        b.topicsNamed(prefix);
        b.consumerGroup = prefix + "serving";
        b.fromEarliest = true;
        b.devices = 2;
        b.checkpointIntervalMs = 0;
        adjust.accept(b);
        ServingConfig c = b.build();
        for (String topic : c.topics()) broker.createTopic(topic, 1);
        return c;
    }
}
