package io.kairos.testbed;

import io.kairos.jobs.cli.Kairos;
import io.kairos.testbed.bench.BenchCommand;
import io.kairos.testbed.bench.OverloadCommand;
import io.kairos.testbed.bench.SqlPredictCommand;
import io.kairos.testbed.bench.TunerReactionCommand;
import io.kairos.testbed.demo.DemoCommand;
import io.kairos.testbed.docs.DocsCommand;
import io.kairos.testbed.experiment.ExperimentCommand;
import io.kairos.testbed.faults.CheckResultsCommand;
import io.kairos.testbed.fidelity.FidelityCommand;
import io.kairos.testbed.profile.EfficiencyCommand;
import io.kairos.testbed.rl.RlCommand;
import picocli.CommandLine;

import java.io.PrintWriter;

/**
 * What {@code bin/kairos} runs: the product's command line ({@link Kairos}: serve, profile,
 * control, plan) with the testbed's commands added to it (demo, load generator, collector, benchmarks,
 * overload, experiments, fidelity, efficiency, the fault run's checker, the sandbox for clients' tests, the documentation's check), under the same error handling.
 */
public final class KairosCli {
    private KairosCli() {}

    public static void main(String[] args) {
        System.exit(execute(args));
    }

    public static int execute(String... args) {
        return Kairos.execute(commandLine(new PrintWriter(System.out, true), new PrintWriter(System.err, true)), args);
    }

    public static int execute(CommandLine cl, String... args) {
        return Kairos.execute(cl, args);
    }

    /** The command line with its error handling, writing to {@code out} and {@code err} (tests pass their own). */
    public static CommandLine commandLine(PrintWriter out, PrintWriter err) {
        CommandLine cl = new CommandLine(new Kairos());
        for (Object command : new Object[] {new DemoCommand(), new LoadgenCommand(), new CollectCommand(), new BenchCommand(), new OverloadCommand(), new TunerReactionCommand(), new SqlPredictCommand(),
                new FidelityCommand(), new ExperimentCommand(), new EfficiencyCommand(), new CheckResultsCommand(), new ProbeCommand(), new SandboxCommand(), new DocsCommand(), new RlCommand()}) {
            cl.addSubcommand(command);
        }
        return Kairos.withErrorHandling(cl, out, err);
    }
}
