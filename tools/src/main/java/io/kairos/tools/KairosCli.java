package io.kairos.tools;

import io.kairos.jobs.cli.Kairos;
import io.kairos.tools.demo.DemoCommand;
import io.kairos.tools.docs.DocsCommand;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.util.List;

/**
 * What {@code bin/kairos} runs: the product's command line ({@link Kairos}: serve, profile,
 * control, plan, topics) with the user's tools of a checkout added to it (the demo, the load
 * generator, the collector, the probe, the sandbox for clients' tests, the documentation's check),
 * under the same error handling. The lab's commands (benchmarks, experiments, fault tools) are not
 * on this command line: {@code bin/kairos-lab} runs them, and a lab command given here is answered
 * with one line saying so.
 */
public final class KairosCli {
    private KairosCli() {}

    /**
     * The commands {@code bin/kairos-lab} runs, which this command line points to instead of
     * running them (the lab's own test checks that the list is the lab's).
     */
    public static final List<String> LAB_COMMANDS = List.of("bench", "overload", "tuner-reaction", "sql-predict", "fidelity", "experiment",
            "efficiency", "check-results", "rl");

    public static void main(String[] args) {
        System.exit(execute(args));
    }

    public static int execute(String... args) {
        return execute(commandLine(new PrintWriter(System.out, true), new PrintWriter(System.err, true)), args);
    }

    /** Runs {@code args} on {@code cl}; a lab command is one line naming the lab's entry, exit code 2. */
    public static int execute(CommandLine cl, String... args) {
        if (args.length > 0 && LAB_COMMANDS.contains(args[0])) {
            cl.getErr().println("kairos: '" + args[0] + "' is a lab command: run bin/kairos-lab " + String.join(" ", args));
            return CommandLine.ExitCode.USAGE;
        }
        return Kairos.execute(cl, args);
    }

    /** The command line with its error handling, writing to {@code out} and {@code err} (tests pass their own). */
    public static CommandLine commandLine(PrintWriter out, PrintWriter err) {
        CommandLine cl = new CommandLine(new Kairos());
        for (Object command : new Object[] {new DemoCommand(), new LoadgenCommand(), new CollectCommand(), new ProbeCommand(), new SandboxCommand(),
                new DocsCommand()}) {
            cl.addSubcommand(command);
        }
        return Kairos.withErrorHandling(cl, out, err);
    }
}
