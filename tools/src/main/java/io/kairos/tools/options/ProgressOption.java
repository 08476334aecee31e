package io.kairos.tools.options;

import picocli.CommandLine.Option;

/** Whether to draw a progress bar: {@code loadgen}, {@code collect}, {@code experiment}. */
public final class ProgressOption {
    @Option(names = "--no-progress", description = "No progress bar (for logs and scripts).")
    public boolean noProgress;
}
