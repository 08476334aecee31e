package io.kairos.jobs.cli;

import io.kairos.jobs.ServeCommand;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;

/**
 * The product's command line, {@code kairos}: the commands a user runs against a production
 * deployment ({@code serve}, {@code profile}, {@code control}, {@code plan}, {@code topics}). Each subcommand is a class of its
 * own; this one gathers them and decides how errors look: a bad argument is one line naming it,
 * exit code 2; a failure while running is one line too, exit code 1, with the stack trace in the
 * log. The testbed adds its own commands (demo, load generator, experiments) to the same root.
 */
@Command(name = "kairos", mixinStandardHelpOptions = true, version = "kairos 0.1.0",
        description = "Kairos: deep-learning inference under latency SLOs on Kafka and Flink.",
        subcommands = {ServeCommand.class, ProfileCommand.class, ControlCommand.class, PlanCommand.class, TopicsCommand.class})
public class Kairos implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(Kairos.class);

    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "missing command: one of " + spec.subcommands().keySet());
    }

    public static void main(String[] args) {
        System.exit(execute(commandLine(new PrintWriter(System.out, true), new PrintWriter(System.err, true)), args));
    }

    /** Runs {@code args} on {@code cl}; {@code serve --config FILE} takes its defaults from FILE. */
    public static int execute(CommandLine cl, String... args) {
        try {
            ServeCommand.useConfigFile(cl.getSubcommands().get("serve"), args);
        } catch (CommandLine.ParameterException e) {
            cl.getErr().println("kairos serve: " + e.getMessage());
            return CommandLine.ExitCode.USAGE;
        }
        return cl.execute(args);
    }

    /** The product's command line with its error handling, writing to {@code out} and {@code err} (tests pass their own). */
    public static CommandLine commandLine(PrintWriter out, PrintWriter err) {
        return withErrorHandling(new CommandLine(new Kairos()), out, err);
    }

    /** Sets the output streams and the one-line error handling on {@code cl} (the testbed's root uses the same). */
    public static CommandLine withErrorHandling(CommandLine cl, PrintWriter out, PrintWriter err) {
        cl.setOut(out);
        cl.setErr(err);
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        cl.setParameterExceptionHandler((ex, args) -> {
            String command = ex.getCommandLine().getCommandSpec().qualifiedName();
            ex.getCommandLine().getErr().println(command + ": " + oneLine(ex.getMessage()) + " (see '" + command + " --help')");
            return CommandLine.ExitCode.USAGE;
        });
        cl.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
            LOG.error("{} failed", commandLine.getCommandSpec().qualifiedName(), ex);
            String message = ex.getMessage() == null ? ex.getClass().getSimpleName() : oneLine(ex.getMessage());
            commandLine.getErr().println(commandLine.getCommandSpec().qualifiedName() + ": error: " + message);
            return CommandLine.ExitCode.SOFTWARE;
        });
        return cl;
    }

    private static String oneLine(String message) {
        return message == null ? "" : message.strip().replaceAll("\\s*\\R\\s*", " ");
    }
}
