package io.kairos.tools.options;

import picocli.CommandLine.Option;

/**
 * How long a command offers load, and for how long before that it warms up without counting:
 * {@code demo} and {@code fidelity}, each with its own defaults, given when it creates the group.
 */
public final class RunLengthOptions {
    @Option(names = "--duration", paramLabel = "SECONDS", description = "Seconds of measured load (default: ${DEFAULT-VALUE}).")
    public int durationSeconds;

    @Option(names = "--warmup", paramLabel = "SECONDS", description = "Seconds of the same load before, not counted: the JIT compiles the hot paths meanwhile (default: ${DEFAULT-VALUE}).")
    public int warmupSeconds;

    public RunLengthOptions(int durationSeconds, int warmupSeconds) {
        this.durationSeconds = durationSeconds;
        this.warmupSeconds = warmupSeconds;
    }
}
