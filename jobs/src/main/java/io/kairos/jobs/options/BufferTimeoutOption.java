package io.kairos.jobs.options;

import io.kairos.jobs.config.ServingConfig;
import picocli.CommandLine.Option;

/** Flink's network buffer timeout, the latency floor of each hop: {@code serve}, {@code bench}. */
public final class BufferTimeoutOption {
    @Option(names = "--buffer-timeout-ms", description = "Flink network buffer timeout (default: ${DEFAULT-VALUE}).")
    public long bufferTimeoutMs = ServingConfig.DEFAULTS.bufferTimeoutMs;
}
