package io.kairos.tools.docs;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code kairos docs}: the documentation's own checks and generated pages, from a checkout. Both
 * subcommands read the command line they run in from picocli's model of it (its root), so that
 * the reference and its check cover whatever the script that runs it holds: bin/kairos's page, or
 * on bin/kairos-lab the lab's page and, given to it, the product's too.
 */
@Command(name = "docs", mixinStandardHelpOptions = true,
        description = "Check the documentation (links, length, the benchmarks dashboard and its quotes, lab-log words) and its coverage of the command line, and write the command-line reference.",
        subcommands = {DocsCommand.CheckCommand.class, DocsCommand.CliCommand.class})
public class DocsCommand implements Runnable {
    @Spec
    CommandSpec spec;

    /** This command line's reference page, relative to the repository's root. */
    private final String page;
    /** Other command lines the check covers, each by its reference page. */
    private final Map<String, CommandSpec> others;

    /** The docs of bin/kairos's command line: its reference is {@link DocsCheck#CLI_REFERENCE}. */
    public DocsCommand() {
        this(DocsCheck.CLI_REFERENCE, Map.of());
    }

    /** The docs of a command line whose reference is {@code page}, whose check covers the {@code others} too (page to root command). */
    public DocsCommand(String page, Map<String, CommandSpec> others) {
        this.page = page;
        this.others = Map.copyOf(others);
    }

    /** Every reference page the check covers, each with its command line: the others', then this one's ({@code root}). */
    private Map<String, CommandSpec> references(CommandSpec root) {
        Map<String, CommandSpec> references = new LinkedHashMap<>(others);
        references.put(page, root);
        return references;
    }

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "missing command: one of " + spec.subcommands().keySet());
    }

    /** The repository's root: kairos.home (bin/kairos sets it), else the current folder. */
    static Path defaultRoot() {
        return Path.of(System.getProperty("kairos.home", "."));
    }

    @Command(name = "check", mixinStandardHelpOptions = true,
            description = {"Check that every relative link and #anchor of README.md, BENCHMARKS.md and docs/**/*.md resolves "
                    + "(links in code and absolute URLs aside), and that the command line's reference (" + DocsCheck.CLI_REFERENCE + " for bin/kairos) "
                    + "names every command and every option of serve; that BENCHMARKS.md has at most " + DocsCheck.PAGE_LINES + " lines and a well-formed "
                    + "dashboard, that every link to a dashboard row sits beside the row's figure and status, and that the user "
                    + "pages hold no commit hashes or lab-log words. Prints one line per problem and a summary; exit code 1 on any problem."})
    static final class CheckCommand implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @ParentCommand
        DocsCommand docs;

        @Option(names = "--root", paramLabel = "DIR", description = "The repository's root (default: the checkout bin/kairos runs from, else the current folder).")
        Path root;

        @Override
        public Integer call() {
            Path at = root == null ? defaultRoot() : root;
            if (!Files.isDirectory(at)) throw new ParameterException(spec.commandLine(), "--root: not a folder: " + at);
            DocsCheck.Result result = DocsCheck.check(at, docs.references(spec.root()));
            PrintWriter out = spec.commandLine().getOut();
            result.problems().forEach(out::println);
            out.println(result.summary());
            out.flush();
            return result.problems().isEmpty() ? 0 : 1;
        }
    }

    @Command(name = "cli", mixinStandardHelpOptions = true,
            description = "Write the command line's reference (" + DocsCheck.CLI_REFERENCE + " for bin/kairos) from the commands' own usage text, "
                    + CliReference.WIDTH + " columns wide whatever the terminal.")
    static final class CliCommand implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @ParentCommand
        DocsCommand docs;

        @Option(names = "--output", paramLabel = "FILE", description = "Write the page to FILE (default: print it).")
        Path output;

        @Override
        public Integer call() throws Exception {
            String page = CliReference.generate(spec.root(), docs.page);
            if (output == null) {
                spec.commandLine().getOut().print(page);
                spec.commandLine().getOut().flush();
            } else {
                Path parent = output.toAbsolutePath().getParent();
                if (parent != null) Files.createDirectories(parent);
                Files.writeString(output, page, StandardCharsets.UTF_8);
                spec.commandLine().getErr().println(spec.qualifiedName() + ": wrote " + output);
            }
            return 0;
        }
    }
}
