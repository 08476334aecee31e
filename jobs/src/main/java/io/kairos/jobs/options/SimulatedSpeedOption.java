package io.kairos.jobs.options;

import io.kairos.jobs.config.ServingConfig;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/** How fast simulated devices run: {@code serve}, {@code demo}. */
public final class SimulatedSpeedOption {
    @Option(names = "--simulated-speed", description = "Simulated devices take the profiled latency times this; 0 = zero-latency devices (default: ${DEFAULT-VALUE}).")
    public double simulatedSpeed = ServingConfig.DEFAULTS.simulatedSpeed;

    /** Fails with a one-line message if the speed is negative: the job's configuration's own check. */
    public void check(CommandLine cl) {
        ServingConfig.Builder config = ServingConfig.builder();
        config.simulatedSpeed = simulatedSpeed;
        ConfigFlags.build(config, cl);
    }
}
