package io.kairos.jobs.options;

import picocli.CommandLine.Option;

import java.nio.file.Path;

/** The profiles file of the models: {@code serve} serves them, {@code loadgen} checks its workload against them. */
public final class ModelsOption {
    @Option(names = "--models", paramLabel = "FILE", description = "Profiles file (JSON) of the models; default: the built-in catalog.")
    public Path modelsFile;
}
