package io.kairos.testbed.docs;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The documentation's check on small trees written here, each worked out by hand: what resolves
 * passes, and each kind of problem is one line naming the file, the line and the target.
 */
class DocsCheckTest {
    @TempDir
    Path dir;

    @Command(name = "kairos", subcommands = {Serve.class, Control.class})
    static final class Root {}

    @Command(name = "serve")
    static final class Serve {
        @Option(names = {"-c", "--config"}) Path config;
        @Option(names = "--warmup", negatable = true) boolean warmup;
    }

    @Command(name = "control", subcommands = Show.class)
    static final class Control {}

    @Command(name = "show")
    static final class Show {}

    private static CommandSpec commandLine() {
        return new CommandLine(new Root()).getCommandSpec();
    }

    private static final String GOOD_CLI = """
            # Command-line reference

            ## kairos serve

            ```text
            Usage: kairos serve [--[no-]warmup] [-c=<config>]
                  --config
            ```

            ## kairos control

            ## kairos control show
            """;

    /** A tree whose every link resolves: a page, an anchor on it, one on BENCHMARKS.md, the page's own, a folder, absolute URLs. */
    private void writeGoodTree() throws IOException {
        write("README.md", """
                # Kairos

                See [the guide](docs/guide.md) and [its broker](docs/guide.md#set-up-a-broker).
                Benchmarks: [devices](BENCHMARKS.md#devices), [top](#kairos), the [docs folder](docs/).
                Absolute: [site](https://example.org/x#y), [mail](mailto:someone@example.org), <https://example.org>.
                An [explicit anchor](docs/guide.md#custom) and an image ![chart](docs/chart.png "Chart").
                """);
        write("BENCHMARKS.md", """
                # Benchmarks

                ## Devices
                """);
        write("docs/guide.md", """
                # Guide

                ## Set up a broker

                <a id="custom"></a>
                Back to [the README](../README.md) and [the reference](reference/cli.md#kairos-serve).
                """);
        write("docs/chart.png", "not really a picture");
        write("docs/reference/cli.md", GOOD_CLI);
    }

    private void write(String path, String text) throws IOException {
        Path file = dir.resolve(path);
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
    }

    /** Every problem the check finds but pages out of the README's reach: each test here adds pages of its own, and one test checks reach. */
    private List<String> problems() {
        return allProblems().stream().filter(p -> !p.endsWith("not reachable from README.md in 2 links")).toList();
    }

    private List<String> allProblems() {
        return DocsCheck.check(dir, commandLine()).problems().stream().map(DocsCheck.Problem::toString).toList();
    }

    @Test
    void aTreeWhoseLinksAndAnchorsResolvePasses() throws IOException {
        writeGoodTree();
        DocsCheck.Result result = DocsCheck.check(dir, commandLine());
        assertThat(result.problems()).isEmpty();
        // README 7 (the absolute three aside), guide 2, cli none; BENCHMARKS none.
        assertThat(result.files()).isEqualTo(4);
        assertThat(result.links()).isEqualTo(9);
        assertThat(result.commands()).isEqualTo(3);
        assertThat(result.options()).isEqualTo(2);
        assertThat(result.summary()).isEqualTo("docs check: no problems (4 files, 9 relative links, 3 commands, 2 options of serve)");
    }

    @Test
    void aReadmeOver200LinesAndAPageOver400WithoutAReasonFail() throws IOException {
        writeGoodTree();
        write("README.md", "# Kairos\n" + "line\n".repeat(199));   // 200 lines: at the limit
        write("docs/long.md", "# Long\n" + "line\n".repeat(399));  // 400 lines: at the limit
        assertThat(problems()).isEmpty();

        write("README.md", "# Kairos\n" + "line\n".repeat(200));
        write("docs/long.md", "# Long\n" + "line\n".repeat(400));
        assertThat(problems()).containsExactly(
                "README.md: 201 lines, over the README's 200",
                "docs/long.md: 401 lines, over 400, and no reason in its first 20 lines (say why it runs past 400 lines, or split it)");

        write("docs/long.md", "# Long\n\nThis log runs past 400 lines because it is kept whole.\n" + "line\n".repeat(400));
        assertThat(problems()).containsExactly("README.md: 201 lines, over the README's 200");
    }

    @Test
    void aPageMoreThanTwoLinksFromTheReadmeIsNamed() throws IOException {
        writeGoodTree();
        // README -> guide (1) -> deeper (2) -> deepest (3); lost: linked from nowhere.
        write("docs/guide.md", "# Guide\n\n## Set up a broker\n\n<a id=\"custom\"></a>\n[deeper](deeper.md), [the reference](reference/cli.md)\n");
        write("docs/deeper.md", "# Deeper\n\n[deepest](sub/deepest.md)\n");
        write("docs/sub/deepest.md", "# Deepest\n\n[back](../../README.md)\n");
        write("docs/lost.md", "# Lost\n");
        assertThat(allProblems()).containsExactly(
                "docs/lost.md: not reachable from README.md in 2 links",
                "docs/sub/deepest.md: not reachable from README.md in 2 links");
    }

    @Test
    void aDeadFileLinkIsNamedWithItsLine() throws IOException {
        writeGoodTree();
        write("docs/guide.md", """
                # Guide

                ## Set up a broker

                <a id="custom"></a>
                Back to [the README](../README.md) and [the reference](reference/cli.md#kairos-serve).
                Also [the missing page](operations/cluster.md) and [one outside](../../elsewhere.md).
                """);
        assertThat(problems()).containsExactly(
                "docs/guide.md:7: dead link 'operations/cluster.md' (no such file or folder: docs/operations/cluster.md)",
                "docs/guide.md:7: dead link '../../elsewhere.md' (outside the repository)");
    }

    @Test
    void aDeadAnchorIsNamedWithThePageItLooksIn() throws IOException {
        writeGoodTree();
        write("BENCHMARKS.md", """
                # Benchmarks

                ## Devices (issue 9)
                """);
        write("docs/extra.md", """
                # Extra

                [Here](#Extra) and [there](#nowhere).
                """);
        assertThat(problems()).containsExactly(
                "README.md:4: dead link 'BENCHMARKS.md#devices' (no heading or anchor '#devices' in BENCHMARKS.md)",
                "docs/extra.md:3: dead link '#Extra' (no heading or anchor '#Extra' in this page; anchors are lower case)",
                "docs/extra.md:3: dead link '#nowhere' (no heading or anchor '#nowhere' in this page)");
    }

    @Test
    void aRepeatedHeadingsAnchorTakesASuffix() throws IOException {
        writeGoodTree();
        write("docs/options.md", """
                # Options

                ## Serve
                ### Options
                ## Profile
                ### Options

                [First](#options), [second](#options-1), [third](#options-2), [none](#options-3).
                """);
        assertThat(problems()).containsExactly(
                "docs/options.md:8: dead link '#options-3' (no heading or anchor '#options-3' in this page)");
    }

    @Test
    void linksInCodeAreNotLinks() throws IOException {
        writeGoodTree();
        write("docs/code.md", """
                # Code

                ```markdown
                [in a fence](nowhere.md)
                ```

                ~~~
                [in a tilde fence](nowhere.md)
                ```
                still in it: [a fence closes with its own character](nowhere.md)
                ~~~

                Inline: `[in code](nowhere.md)` and ``[in double ticks `x`](nowhere.md)``.
                <!-- [in a comment](nowhere.md) -->
                After the fences, [a dead one](after.md).
                """);
        assertThat(problems()).containsExactly("docs/code.md:15: dead link 'after.md' (no such file or folder: docs/after.md)");
    }

    @Test
    void aLinkWrappedOverTwoLinesIsNamedAtItsTargetsLine() throws IOException {
        writeGoodTree();
        write("docs/wrapped.md", """
                # Wrapped

                A sentence with [a link whose text
                wraps](missing.md#x) onto a second line.
                """);
        assertThat(problems()).containsExactly("docs/wrapped.md:4: dead link 'missing.md#x' (no such file or folder: docs/missing.md)");
    }

    @Test
    void aMissingSubcommandOrServeOptionFails() throws IOException {
        writeGoodTree();
        write("docs/reference/cli.md", GOOD_CLI.replace("## kairos control show\n", "").replace("      --config\n", ""));
        assertThat(problems()).containsExactly(
                "docs/reference/cli.md: missing command 'kairos control show' (regenerate with bin/kairos docs cli --output docs/reference/cli.md)",
                "docs/reference/cli.md: missing option '--config' of 'kairos serve' (regenerate with bin/kairos docs cli --output docs/reference/cli.md)");
    }

    @Test
    void serveOptionsAreLookedForInServesSection() throws IOException {
        writeGoodTree();
        // --config now appears only under another command's heading.
        write("docs/reference/cli.md", GOOD_CLI.replace("      --config\n", "") + "\n## kairos other\n\n--config\n");
        assertThat(problems()).containsExactly(
                "docs/reference/cli.md: missing option '--config' of 'kairos serve' (regenerate with bin/kairos docs cli --output docs/reference/cli.md)");
    }

    @Test
    void slugsFollowGitHubsRule() {
        assertThat(Markdown.slug("The smdp policy's deadline guard (issue 13)")).isEqualTo("the-smdp-policys-deadline-guard-issue-13");
        assertThat(Markdown.slug("Serving path — against Kafka")).isEqualTo("serving-path--against-kafka");
        assertThat(Markdown.slug("p99 & goodput: 1.5x, snake_case")).isEqualTo("p99--goodput-15x-snake_case");
        assertThat(Markdown.slug(Markdown.headingText("`kairos control` and [its page](x.md) <sup>new</sup> _now_"))).isEqualTo("kairos-control-and-its-page-new-now");
        assertThat(Markdown.parse("# A\n## A\n## A\n<a name=\"b\"></a>\n").anchors()).containsExactly("a", "a-1", "a-2", "b");
        // GitHub counts per heading text: the third takes -2, as -1 is taken by "A 1".
        assertThat(Markdown.parse("# A\n## A 1\n## A\n").anchors()).containsExactly("a", "a-1", "a-2");
    }

    @Test
    void theCommandPrintsEachProblemAndASummaryAndExitsOneOnAny() throws IOException {
        writeGoodTree();
        @Command(name = "kairos", subcommands = {Serve.class, Control.class, DocsCommand.class})
        final class WithDocs {}
        StringWriter out = new StringWriter();
        CommandLine cl = new CommandLine(new WithDocs());
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(new StringWriter(), true));
        // The reference written by the command itself covers the command line, docs included.
        assertThat(cl.execute("docs", "cli", "--output", dir.resolve("docs/reference/cli.md").toString())).isZero();
        assertThat(cl.execute("docs", "check", "--root", dir.toString())).as(out.toString()).isZero();
        assertThat(out.toString()).isEqualTo("docs check: no problems (4 files, 16 relative links, 6 commands, 2 options of serve)\n");

        out.getBuffer().setLength(0);
        write("BENCHMARKS.md", "# Benchmarks\n");
        assertThat(cl.execute("docs", "check", "--root", dir.toString())).isEqualTo(1);
        assertThat(out.toString()).isEqualTo("""
                README.md:4: dead link 'BENCHMARKS.md#devices' (no heading or anchor '#devices' in BENCHMARKS.md)
                docs check: 1 problem (4 files, 16 relative links, 6 commands, 2 options of serve)
                """);
    }
}
