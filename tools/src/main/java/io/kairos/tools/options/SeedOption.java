package io.kairos.tools.options;

import picocli.CommandLine.Option;

/** The seed of the arrival times: {@code demo}, {@code loadgen}, {@code fidelity}. */
public final class SeedOption {
    @Option(names = "--seed", description = "Seed of the arrival times; the same seed sends the same schedule (default: ${DEFAULT-VALUE}).")
    public long seed = 1;
}
