package io.kairos.jobs.options;

import io.kairos.jobs.config.ServingConfig;
import io.kairos.wire.KafkaClientProperties;
import io.kairos.wire.Secrets;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import picocli.CommandLine;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Where the Kafka cluster is and how to reach it: {@code serve}, {@code loadgen}, {@code collect},
 * {@code control}. The client properties (SASL, TLS, anything else a Kafka client takes) go to
 * every Kafka client the command makes, over the client's own settings.
 */
public final class KafkaOptions {
    @Option(names = "--bootstrap-servers", paramLabel = "HOST:PORT", description = "Kafka bootstrap servers (default: ${DEFAULT-VALUE}).")
    public String bootstrapServers = ServingConfig.DEFAULTS.bootstrapServers;

    @Option(names = "--kafka-config", paramLabel = "FILE", description = "Kafka client properties (e.g. security.protocol, sasl.*, ssl.*) "
            + "for every Kafka client of the command; read where the command starts.")
    public Path kafkaConfig;

    @Option(names = "--kafka-property", paramLabel = "KEY=VALUE", description = "A Kafka client property for every Kafka client of the command, "
            + "over --kafka-config (repeatable; a later one wins).")
    public List<String> kafkaProperties = new ArrayList<>();

    /** Every setting a Kafka 3.9 producer, consumer or admin client knows. */
    private static final Set<String> KNOWN = known();

    private static Set<String> known() {
        Set<String> names = new HashSet<>(ProducerConfig.configNames());
        names.addAll(ConsumerConfig.configNames());
        names.addAll(AdminClientConfig.configNames());
        return Set.copyOf(names);
    }

    /**
     * The client properties these options give, file first and pairs over it. A key no Kafka
     * client knows is passed on (a plugin may read it) with a warning on {@code cl}'s error stream,
     * since a misspelt {@code security.protocol} otherwise shows only as a client that never connects.
     *
     * @throws CommandLine.ParameterException one line naming the file or the pair that is wrong
     */
    public Map<String, String> clientProperties(CommandLine cl) {
        Map<String, String> properties;
        try {
            properties = KafkaClientProperties.read(kafkaConfig, kafkaProperties, "--kafka-config", "--kafka-property");
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(cl, e.getMessage());
        }
        for (String key : properties.keySet()) {
            if (!KNOWN.contains(key)) cl.getErr().println("kairos: warning: '" + key + "' is not a Kafka client setting; passed on as it is");
        }
        // Values checked as the clients will check them, now rather than in a job that restarts on them.
        Map<String, Object> probe = new HashMap<>(properties);
        probe.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        probe.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        probe.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        probe.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        probe.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        for (ConfigDef client : List.of(ProducerConfig.configDef(), ConsumerConfig.configDef(), AdminClientConfig.configDef())) {
            try {
                client.parse(probe);
            } catch (ConfigException e) { // names the key; a password's value shows as [hidden]
                throw new CommandLine.ParameterException(cl, "--kafka-config/--kafka-property: " + e.getMessage());
            }
        }
        return properties;
    }

    /** The client properties for a message, every credential masked. */
    public static String describe(Map<String, String> clientProperties) {
        return Secrets.masked(clientProperties).toString();
    }
}
