package io.kairos.jobs;

import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.assertj.core.api.Assertions.assertThat;

/** What {@code serve} says of flags its configuration refuses, with the job jar's error handling. */
final class ServeConfigErrors {
    private ServeConfigErrors() {}

    /** The one-line error for {@code args} ({@code --config FILE} among them read as serve reads it), after checking that they exit with code 2 and start nothing. */
    static String of(String... args) {
        StringWriter err = new StringWriter();
        CommandLine cl = ServeCommand.commandLine(new ServeCommand() {
            @Override
            public Integer call() {
                config();
                return 0;
            }
        }, args);
        cl.setErr(new PrintWriter(err, true));
        assertThat(cl.execute(args)).isEqualTo(2);
        return err.toString().strip();
    }
}
