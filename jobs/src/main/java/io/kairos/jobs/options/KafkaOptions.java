package io.kairos.jobs.options;

import io.kairos.jobs.ServingConfig;
import picocli.CommandLine.Option;

/** Where the Kafka cluster is: {@code serve}, {@code loadgen}, {@code collect}. */
public final class KafkaOptions {
    @Option(names = "--bootstrap-servers", paramLabel = "HOST:PORT", description = "Kafka bootstrap servers (default: ${DEFAULT-VALUE}).")
    public String bootstrapServers = ServingConfig.DEFAULTS.bootstrapServers;
}
