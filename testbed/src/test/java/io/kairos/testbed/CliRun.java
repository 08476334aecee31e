package io.kairos.testbed;

import io.kairos.jobs.cli.Kairos;
import io.kairos.tools.KairosCli;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.function.BiFunction;

/**
 * One run of a Kairos command line in this JVM, as a user calls it, with its exit code and what it
 * printed: the job jar's ({@link #job}, {@code jobs.cli.Kairos}), the checkout's
 * ({@link #checkout}, {@link KairosCli}, which adds the user's tools) or the lab's ({@link #lab}, {@link KairosLab}).
 */
public record CliRun(int code, String out, String err) {

    /** {@code kairos ARGS} as the job jar runs it. */
    public static CliRun job(String... args) {
        return run(Kairos::commandLine, Kairos::execute, args);
    }

    /** {@code bin/kairos ARGS} as the checkout runs it. */
    public static CliRun checkout(String... args) {
        return run(KairosCli::commandLine, KairosCli::execute, args);
    }

    /** {@code bin/kairos-lab ARGS} as the checkout runs it. */
    public static CliRun lab(String... args) {
        return run(KairosLab::commandLine, KairosLab::execute, args);
    }

    private interface Execute {
        int execute(CommandLine cl, String... args);
    }

    private static CliRun run(BiFunction<PrintWriter, PrintWriter, CommandLine> commandLine, Execute execute, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = execute.execute(commandLine.apply(new PrintWriter(out, true), new PrintWriter(err, true)), args);
        return new CliRun(code, out.toString(), err.toString());
    }
}
