package io.kairos.jobs.options;

import io.kairos.jobs.config.ServingConfig;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/** The serving job's restart strategy (exponential delay with a reset): {@code serve}. */
public final class RestartOptions {
    private static final ServingConfig.Restarts DEFAULTS = ServingConfig.Restarts.SERVING;

    @Option(names = "--restart-backoff-ms", description = "Delay of the first restart after a failure; multiplied by 1.5 for each further failure (default: ${DEFAULT-VALUE}).")
    public long initialBackoffMs = DEFAULTS.initialBackoffMs();

    @Option(names = "--restart-max-backoff-ms", description = "Longest delay between restarts while the job keeps failing (default: ${DEFAULT-VALUE}).")
    public long maxBackoffMs = DEFAULTS.maxBackoffMs();

    @Option(names = "--restart-reset-after-ms", description = "Running this long without a failure brings the delay back to --restart-backoff-ms (default: ${DEFAULT-VALUE}).")
    public long resetAfterMs = DEFAULTS.resetAfterMs();

    /** The restart strategy the flags describe; a bad combination is the command line's error, in one line. */
    public ServingConfig.Restarts restarts(CommandLine cl) {
        try {
            return new ServingConfig.Restarts(initialBackoffMs, maxBackoffMs, resetAfterMs);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(cl, "--restart-*: " + e.getMessage());
        }
    }
}
