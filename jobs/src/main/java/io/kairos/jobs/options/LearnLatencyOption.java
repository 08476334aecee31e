package io.kairos.jobs.options;

import io.kairos.jobs.config.ServingConfig;
import picocli.CommandLine.Option;

/** Whether the schedulers learn the latency profiles from the devices' reports: {@code serve}, {@code demo}. */
public final class LearnLatencyOption {
    @Option(names = "--learn-latency", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Correct the latency profiles from the devices' reports: the 99th percentile of the last 10 batches per model and batch size (default: on; --no-learn-latency: the catalog's profiles stay).")
    public boolean learnLatency = ServingConfig.DEFAULTS.learnLatency;
}
