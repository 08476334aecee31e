package io.kairos.tools;

import java.nio.file.Path;

/**
 * {@code .kairos/} of the checkout (git-ignored): where the commands leave what a run produces, the
 * log, generated models, collected results. A relative output path given to a command lands
 * there rather than among the sources of whatever folder the command ran in; an absolute path is
 * taken as it is. The checkout is the {@code kairos.home} system property ({@code bin/kairos} sets
 * it), else the working directory.
 */
public final class RunDirectory {
    private RunDirectory() {}

    /** This process's run directory, absolute. */
    public static Path path() {
        String home = System.getProperty("kairos.home");
        return of(home == null || home.isBlank() ? Path.of("") : Path.of(home));
    }

    /** The run directory of a checkout. */
    static Path of(Path home) {
        return home.toAbsolutePath().resolve(".kairos").normalize();
    }

    /** Where an output file named on the command line goes: a relative one under the run directory. */
    public static Path resolve(Path file) {
        return resolve(file, path());
    }

    static Path resolve(Path file, Path runDirectory) {
        return file.isAbsolute() ? file.normalize() : runDirectory.resolve(file).normalize();
    }
}
