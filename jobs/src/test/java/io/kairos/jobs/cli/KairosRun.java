package io.kairos.jobs.cli;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One run of the product command line in-process, as {@code kairos ARGS} runs it: its exit code
 * and what it printed on each stream.
 */
public record KairosRun(int code, String out, String err) {

    /** A broker address nothing listens on: a command that got past its arguments fails with 1, not 2. */
    public static final String NOWHERE = "127.0.0.1:1";

    public static KairosRun of(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Kairos.execute(Kairos.commandLine(new PrintWriter(out, true), new PrintWriter(err, true)), args);
        return new KairosRun(code, out.toString(), err.toString());
    }

    /** Exit code 2 and one line on the error stream that contains {@code message}. */
    public static void assertUsageError(KairosRun run, String message) {
        assertThat(run.code()).as(run.err()).isEqualTo(2);
        assertThat(run.err().strip()).doesNotContain("\n").contains(message);
    }
}
