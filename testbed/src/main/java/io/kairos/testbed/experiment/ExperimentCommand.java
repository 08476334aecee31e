package io.kairos.testbed.experiment;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.nio.file.Path;

/**
 * {@code experiment NAME}: runs a policy experiment on the simulator (every policy unless
 * {@code --policies} says otherwise), writes its results, table, figures and shape check into the
 * output folder, and prints the table. Each experiment is a subcommand of its own
 * ({@link ExperimentSubcommand}, all listed by {@link Experiments}) with the options it accepts, so
 * that {@code experiment NAME --help} shows them and a flag it does not take is one line. Every
 * argument is checked before anything runs.
 */
@Command(name = "experiment", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Run a policy experiment on the simulator: results.csv, figures (PNG), attainment table and shape check.")
public class ExperimentCommand implements Runnable {

    @Spec
    CommandSpec spec;

    /** A name that is no experiment's: picocli gives it here, having matched no subcommand. */
    @Parameters(arity = "0..1", paramLabel = "NAME", description = "The experiment, each with its own options (NAME --help).", hidden = true)
    String unknown;

    /** The command with every experiment as a subcommand, named as the experiment, described by it. */
    public static CommandLine commandLine() {
        CommandLine experiment = new CommandLine(new ExperimentCommand());
        for (ExperimentSubcommand e : Experiments.all()) {
            CommandLine sub = new CommandLine(e);
            // picocli formats a description: a percent sign of the text is written twice.
            sub.getCommandSpec().usageMessage().description(e.description().replace("%", "%%") + ".");
            experiment.addSubcommand(e.name(), sub);
        }
        return experiment;
    }

    @Override
    public void run() {
        if (unknown != null) throw new ParameterException(spec.commandLine(), "unknown experiment '" + unknown + "'; known: " + spec.subcommands().keySet());
        throw new ParameterException(spec.commandLine(), "missing experiment: one of " + spec.subcommands().keySet());
    }

    /** {@code testbed/experiments/NAME} of the checkout {@code bin/kairos-lab} runs from, else of the working folder. */
    static Path defaultOut(String name) {
        String home = System.getProperty("kairos.home");
        Path root = home == null ? Path.of("") : Path.of(home);
        return root.resolve("testbed").resolve("experiments").resolve(name);
    }

    static {
        // The figures are drawn off screen.
        System.setProperty("java.awt.headless", "true");
    }
}
