package io.kairos.jobs.options;

import io.kairos.jobs.config.ServingConfig;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * How each device gathers its reports and telemetry into fewer records on the broker: {@code serve},
 * {@code bench}. The first record after a quiet spell leaves at once; those within the interval
 * after it leave together ({@link io.kairos.core.device.ReportCoalescer}).
 */
public final class ReportCoalescingOptions {
    @Option(names = "--report-coalesce-ms", paramLabel = "MS",
            description = "Each device gathers the reports and telemetry of the batches it ends within this long after its last record "
                    + "into one record of each; the first after a quiet spell leaves at once; 0: off, a record of each per batch (default: ${DEFAULT-VALUE}).")
    public double intervalMs = ServingConfig.DEFAULTS.reportCoalesceMicros / 1e3;

    @Option(names = "--report-coalesce-batches", paramLabel = "N",
            description = "The most batches gathered into one record; a full record leaves at once (default: ${DEFAULT-VALUE}).")
    public int maxBatches = ServingConfig.DEFAULTS.reportCoalesceBatches;

    /**
     * Sets the values on {@code config}, whose build checks their ranges; an interval that is no
     * number ({@code NaN}, which would round to 0) is a usage error naming the option.
     */
    public void applyTo(ServingConfig.Builder config, CommandLine cl) {
        if (Double.isNaN(intervalMs)) throw new CommandLine.ParameterException(cl, "--report-coalesce-ms must be from 0 to 1000 ms, got " + intervalMs);
        config.reportCoalesceMicros = Math.round(intervalMs * 1e3);
        config.reportCoalesceBatches = maxBatches;
    }
}
