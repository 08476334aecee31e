package io.kairos.jobs.tuner;

import picocli.CommandLine;

/** Entry point of the tuner jar: {@code flink run kairos-jobs-*-tuner.jar [flags]} runs {@link TuneCommand}. */
public final class TunerJobMain {
    private TunerJobMain() {}

    public static void main(String[] args) {
        int rc = commandLine().execute(args);
        if (rc != 0) System.exit(rc);
    }

    /** The tune command; bad input: one line and exit code 2, as the serving job's jar answers (infra/cluster reads it). */
    static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new TuneCommand());
        cl.setParameterExceptionHandler((ex, a) -> {
            ex.getCommandLine().getErr().println("kairos: " + ex.getMessage());
            return 2;
        });
        return cl;
    }
}
