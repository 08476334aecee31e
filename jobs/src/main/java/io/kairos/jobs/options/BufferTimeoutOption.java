package io.kairos.jobs.options;

import io.kairos.jobs.config.ServingConfig;
import picocli.CommandLine.Option;

/** Flink's network buffer timeouts, the latency floor of each hop: {@code serve}, {@code bench}. */
public final class BufferTimeoutOption {
    @Option(names = "--buffer-timeout-ms", description = "Flink network buffer timeout of every exchange but the one after the requests' source (default: ${DEFAULT-VALUE}).")
    public long bufferTimeoutMs = ServingConfig.DEFAULTS.bufferTimeoutMs;

    @Option(names = "--source-buffer-timeout-ms", description = "Flink network buffer timeout of the exchange after the requests' Kafka source, "
            + "which hands a whole poll on at once (default: ${DEFAULT-VALUE}).")
    public long sourceBufferTimeoutMs = ServingConfig.DEFAULTS.sourceBufferTimeoutMs;

    public void applyTo(ServingConfig.Builder config) {
        config.bufferTimeoutMs = bufferTimeoutMs;
        config.sourceBufferTimeoutMs = sourceBufferTimeoutMs;
    }
}
