package io.kairos.jobs.options;

import io.kairos.jobs.config.ServingConfig;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * How many device slots the job has: {@code serve} (the job's default), {@code bench} and
 * {@code fidelity} (their own defaults, given when the command creates the group).
 */
public final class DevicesOption {
    @Option(names = "--devices", paramLabel = "N", description = "Number of device slots (default: ${DEFAULT-VALUE}).")
    public int devices;

    public DevicesOption() {
        this(ServingConfig.DEFAULTS.devices);
    }

    public DevicesOption(int defaultDevices) {
        this.devices = defaultDevices;
    }

    /** Fails with a one-line message unless there is at least one device. */
    public void check(CommandLine cl) {
        if (devices < 1) throw new CommandLine.ParameterException(cl, "--devices must be at least 1, got " + devices);
    }
}
