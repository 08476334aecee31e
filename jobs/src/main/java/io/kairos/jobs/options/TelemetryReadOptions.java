package io.kairos.jobs.options;

import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * Where a planner reads the running job's own rate estimates, and how far back: {@code plan smdp}
 * without {@code --rate}, {@code plan herd --rates-from-telemetry}.
 */
public final class TelemetryReadOptions {
    @Option(names = "--telemetry-topic", description = "Where the job's batches report the groups' rate estimates (default: ${DEFAULT-VALUE}).")
    public String topic = "kairos-telemetry";

    @Option(names = "--telemetry-tail", paramLabel = "N", description = "How many of the last records of each partition of the telemetry topic to look through (default: ${DEFAULT-VALUE}).")
    public int tail = 10_000;

    /** @throws CommandLine.ParameterException naming the option that is out of range */
    public void check(CommandLine cl) {
        if (tail < 1) throw new CommandLine.ParameterException(cl, "--telemetry-tail must be at least 1, got " + tail);
    }
}
