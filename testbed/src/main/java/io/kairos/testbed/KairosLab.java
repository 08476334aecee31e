package io.kairos.testbed;

import io.kairos.jobs.cli.Kairos;
import io.kairos.testbed.bench.BenchCommand;
import io.kairos.testbed.bench.OverloadCommand;
import io.kairos.testbed.bench.SqlPredictCommand;
import io.kairos.testbed.bench.TunerReactionCommand;
import io.kairos.testbed.experiment.ExperimentCommand;
import io.kairos.testbed.faults.CheckResultsCommand;
import io.kairos.testbed.fidelity.FidelityCommand;
import io.kairos.testbed.profile.EfficiencyCommand;
import io.kairos.testbed.rl.RlCommand;
import io.kairos.tools.KairosCli;
import io.kairos.tools.docs.DocsCheck;
import io.kairos.tools.docs.DocsCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;

/**
 * What {@code bin/kairos-lab} runs: the lab's command line, kept off the product's
 * ({@code bin/kairos}, {@link KairosCli}): the benchmarks (bench, overload, tuner-reaction,
 * sql-predict), the experiments, fidelity, efficiency, the fault run's checker and the RL
 * environment, under the product's error handling. Its {@code docs} checks both command lines'
 * references, as only this one sees both.
 */
@Command(name = "kairos-lab", mixinStandardHelpOptions = true, version = "kairos-lab 0.1.0",
        description = "The Kairos lab: benchmarks, policy experiments and fault tools, from a checkout.")
public final class KairosLab implements Runnable {
    /** The lab's command-line reference, relative to the repository's root. */
    public static final String REFERENCE = "docs/reference/lab-cli.md";

    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "missing command: one of " + spec.subcommands().keySet());
    }

    public static void main(String[] args) {
        System.exit(execute(args));
    }

    public static int execute(String... args) {
        return execute(commandLine(new PrintWriter(System.out, true), new PrintWriter(System.err, true)), args);
    }

    public static int execute(CommandLine cl, String... args) {
        return cl.execute(args);
    }

    /** The lab's command line with the product's error handling, writing to {@code out} and {@code err} (tests pass their own). */
    public static CommandLine commandLine(PrintWriter out, PrintWriter err) {
        CommandLine cl = new CommandLine(new KairosLab());
        CommandSpec product = KairosCli.commandLine(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter())).getCommandSpec();
        for (Object command : new Object[] {new BenchCommand(), new OverloadCommand(), new TunerReactionCommand(), new SqlPredictCommand(),
                new FidelityCommand(), ExperimentCommand.commandLine(), new EfficiencyCommand(), new CheckResultsCommand(), new RlCommand(),
                new DocsCommand(REFERENCE, Map.of(DocsCheck.CLI_REFERENCE, product))}) {
            cl.addSubcommand(command);
        }
        return Kairos.withErrorHandling(cl, out, err);
    }
}
