package io.kairos.jobs;

/** Entry point of the job jar: {@code flink run kairos-jobs-*-job.jar [flags]} runs {@link ServeCommand}. */
public final class ServingJobMain {
    private ServingJobMain() {}

    public static void main(String[] args) {
        int rc;
        try {
            rc = ServeCommand.commandLine(new ServeCommand(), args).execute(args);
        } catch (picocli.CommandLine.ParameterException e) {
            System.err.println("kairos: " + e.getMessage());
            rc = 2;
        }
        if (rc != 0) System.exit(rc);
    }
}
