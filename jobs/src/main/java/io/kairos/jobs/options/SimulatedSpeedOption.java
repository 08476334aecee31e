package io.kairos.jobs.options;

import io.kairos.jobs.config.ServingConfig;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/** How fast simulated devices run: {@code serve}, {@code demo}. */
public final class SimulatedSpeedOption {
    @Option(names = "--simulated-speed", description = "Simulated devices take the profiled latency times this; 0 = zero-latency devices (default: ${DEFAULT-VALUE}).")
    public double simulatedSpeed = ServingConfig.DEFAULTS.simulatedSpeed;

    /** Fails with a one-line message if the speed is negative. */
    public void check(CommandLine cl) {
        if (!(simulatedSpeed >= 0)) throw new CommandLine.ParameterException(cl, "--simulated-speed must not be negative");
    }
}
