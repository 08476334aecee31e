package io.kairos.tools.docs;

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

    /**
     * A BENCHMARKS.md of the contract's form: the machine table, the dashboard (line 10 its header,
     * rows on lines 12 to 15: met, not met, met, watched), a section.
     */
    static final String GOOD_BENCHMARKS = """
            # Benchmarks

            | machine | what it is |
            | --- | --- |
            | `vm` | the development VM: 2 cores, no GPU |
            | `sim` | the deterministic simulator |

            ## Dashboard

            | row | what | target | today | status | date | machine | section |
            | --- | --- | --- | --- | --- | --- | --- | --- |
            | <a id="serving-mbps"></a>serving-mbps | MB/s, pipeline / bare | ≥ 0.7 | **0.78** at 150 kB | met | 2026-11-28 | `vm` | [serving](#devices) |
            | <a id="cold-starts"></a>cold-starts | Cold starts, fewer than LRU | ≥ 6x | 5.26x | not met | 2026-11-27 | `sim` | [devices](#devices) |
            | <a id="demo-slos-met"></a>demo-slos-met | The demo: SLOs met | ≥ 99 % | 99.97 % | met | 2026-11-28 | `vm` | [devices](#devices) |
            | <a id="idle-cpu"></a>idle-cpu | An idle job's CPU | — | 0.17–0.21 cores | — | 2026-11-26 | `vm` | [devices](#devices) |

            ## Devices

            Method, command, today's table.
            """;

    /** GOOD_BENCHMARKS with {@code rows} added after its last dashboard row (line 15): they are lines 16, 17 ... */
    static String benchmarksWith(String rows) {
        String last = "[devices](#devices) |\n\n## Devices";
        return GOOD_BENCHMARKS.replace(last, "[devices](#devices) |\n" + rows + "\n## Devices");
    }

    /**
     * A tree whose every link resolves: a page, an anchor on it, a quote of a dashboard row and the
     * bare BENCHMARKS.md, the page's own, a folder, absolute URLs.
     */
    private void writeGoodTree() throws IOException {
        write("README.md", """
                # Kairos

                See [the guide](docs/guide.md) and [its broker](docs/guide.md#set-up-a-broker).
                [Benchmarks](BENCHMARKS.md): MB/s **0.78** at 150 kB, met ([row](BENCHMARKS.md#serving-mbps)); [top](#kairos), the [docs folder](docs/).
                Absolute: [site](https://example.org/x#y), [mail](mailto:someone@example.org), <https://example.org>.
                An [explicit anchor](docs/guide.md#custom) and an image ![chart](docs/chart.png "Chart").
                """);
        write("BENCHMARKS.md", GOOD_BENCHMARKS);
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
        // README 8 (the absolute three aside), guide 2, cli none; BENCHMARKS 4 (each row's section).
        assertThat(result.files()).isEqualTo(4);
        assertThat(result.links()).isEqualTo(14);
        assertThat(result.commands()).isEqualTo(3);
        assertThat(result.options()).isEqualTo(2);
        assertThat(result.rows()).isEqualTo(4);
        assertThat(result.quotes()).isEqualTo(1);
        assertThat(result.summary()).isEqualTo(
                "docs check: no problems (4 files, 14 relative links, 3 commands, 2 options of serve, 4 dashboard rows, 1 quote)");
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
        write("BENCHMARKS.md", GOOD_BENCHMARKS.replace("## Devices", "## Devices and hosts").replace("(#devices)", "(#devices-and-hosts)"));
        write("docs/extra.md", """
                # Extra

                [Here](#Extra) and [there](#nowhere), [devices](../BENCHMARKS.md#devices).
                """);
        assertThat(problems()).containsExactly(
                "docs/extra.md:3: dead link '#Extra' (no heading or anchor '#Extra' in this page; anchors are lower case)",
                "docs/extra.md:3: dead link '#nowhere' (no heading or anchor '#nowhere' in this page)",
                "docs/extra.md:3: dead link '../BENCHMARKS.md#devices' (no heading or anchor '#devices' in BENCHMARKS.md)");
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
        assertThat(out.toString()).isEqualTo(
                "docs check: no problems (4 files, 21 relative links, 6 commands, 2 options of serve, 4 dashboard rows, 1 quote)\n");

        out.getBuffer().setLength(0);
        write("BENCHMARKS.md", GOOD_BENCHMARKS.replace("**0.78** at 150 kB", "0.81"));
        assertThat(cl.execute("docs", "check", "--root", dir.toString())).isEqualTo(1);
        assertThat(out.toString()).isEqualTo("""
                README.md:4: quote of BENCHMARKS.md#serving-mbps lacks the row's today '0.81' (BENCHMARKS.md:12): quote today's figure as the row writes it
                docs check: 1 problem (4 files, 21 relative links, 6 commands, 2 options of serve, 4 dashboard rows, 1 quote)
                """);
    }

    // --- BENCHMARKS.md: its length, its machine table and dashboard -----------------------------

    @Test
    void benchmarksOver400LinesFailsWhateverItsHeadSays() throws IOException {
        writeGoodTree();
        int good = GOOD_BENCHMARKS.split("\n", -1).length - 1;   // 21 lines
        write("BENCHMARKS.md", GOOD_BENCHMARKS + "line\n".repeat(400 - good));
        assertThat(problems()).isEmpty();

        write("BENCHMARKS.md", "This page runs past 400 lines because it holds six subjects.\n" + GOOD_BENCHMARKS + "line\n".repeat(400 - good));
        assertThat(problems()).containsExactly(
                "BENCHMARKS.md: 401 lines, over 400, with no exception for this page: move every earlier figure to docs/benchmarks/history.md");
    }

    @Test
    void aBenchmarksPageWithoutDashboardOrMachineTableFails() throws IOException {
        writeGoodTree();
        write("README.md", "# Kairos\n\n[Guide](docs/guide.md), [benchmarks](BENCHMARKS.md).\n");
        write("BENCHMARKS.md", "# Benchmarks\n\n## Devices\n");
        assertThat(problems()).containsExactly(
                "BENCHMARKS.md: no machine table above the dashboard: a table whose header is exactly '| machine | what it is |', one row per machine label the dashboard uses",
                "BENCHMARKS.md: no dashboard: a '## Dashboard' heading and under it a table whose header is exactly "
                        + "'| row | what | target | today | status | date | machine | section |' (the one source of the figures other pages quote)");

        // The machine table below the dashboard does not count: the labels are defined before they are used.
        write("BENCHMARKS.md", GOOD_BENCHMARKS.replace("| machine | what it is |\n| --- | --- |\n| `vm` | the development VM: 2 cores, no GPU |\n| `sim` | the deterministic simulator |\n", "")
                .replace("Method, command, today's table.", "| machine | what it is |\n| --- | --- |\n| `vm` | the VM |\n| `sim` | the simulator |"));
        assertThat(problems()).startsWith(
                "BENCHMARKS.md: no machine table above the dashboard: a table whose header is exactly '| machine | what it is |', one row per machine label the dashboard uses",
                "BENCHMARKS.md:8: machine 'vm' is not a label of the machine table (): name one label, defined in the table");
    }

    @Test
    void aDashboardWhoseHeaderIsNotExactlyTheContractsFails() throws IOException {
        writeGoodTree();
        write("README.md", "# Kairos\n\n[Guide](docs/guide.md), [benchmarks](BENCHMARKS.md).\n");
        write("BENCHMARKS.md", GOOD_BENCHMARKS.replace("| row | what | target | today | status | date | machine | section |",
                "| what | target | today | status | date | machine | section |"));
        assertThat(problems()).containsExactly(
                "BENCHMARKS.md:10: the dashboard's header is not exactly '| row | what | target | today | status | date | machine | section |': "
                        + "write that header (the check and the quotes read its columns by position)");

        write("BENCHMARKS.md", GOOD_BENCHMARKS.replace("| row | what |", "| **row** | what |"));
        assertThat(problems()).hasSize(1).allMatch(p -> p.startsWith("BENCHMARKS.md:10: the dashboard's header is not exactly"));

        write("BENCHMARKS.md", GOOD_BENCHMARKS.replace("| row | what | target | today | status | date | machine | section |", "Nothing yet.")
                .replaceAll("(?m)^\\|.*\\| \\[.*\n", "").replace("| --- | --- | --- | --- | --- | --- | --- | --- |\n", ""));
        assertThat(problems()).containsExactly(
                "BENCHMARKS.md:8: no table under '## Dashboard': write the dashboard as a table whose header is exactly "
                        + "'| row | what | target | today | status | date | machine | section |'");
    }

    @Test
    void eachMalformedDashboardRowIsNamedWithItsLine() throws IOException {
        writeGoodTree();
        write("BENCHMARKS.md", benchmarksWith("""
                | <a id="Idle-CPU"></a>Idle-CPU | x | — | 1 | — | 2026-11-26 | `vm` | [d](#devices) |
                | <a id="idle-cpu"></a>idle-cpu | x | — | 1 | — | 2026-11-26 | `vm` | [d](#devices) |
                | <a id="a"></a>a | x | ≥ 1 | 1 | partly | 2026-11-26 | `vm` | [d](#devices) |
                | <a id="b"></a>b | x | ≥ 1 | 1 | — | 2026-11-26 | `vm` | [d](#devices) |
                | <a id="c"></a>c | x | ≥ 1 | 1 | met | 2026-11-31 | `vm` | [d](#devices) |
                | <a id="d"></a>d | x | ≥ 1 | 1 | **not met** | 28 Nov | `vm` | [d](#devices) |
                | <a id="e"></a>e | x | ≥ 1 | 1 | met | 2026-11-26 | VM, loaded | [d](#devices) |
                | <a id="f"></a>f | x | ≥ 1 | 1 | met | 2026-11-26 | `sim` | devices |
                | <a id="g"></a>g | x | ≥ 1 | 1.5 s (2.0 s on 2026-11-27) | not met | 2026-11-28 | `vm` | [d](#devices) |
                | <a id="h"></a>h | x | ≥ 1 | 1 | met | 2026-11-26 | `vm` |
                """));
        assertThat(problems()).containsExactly(
                "BENCHMARKS.md:16: row cell '<a id=\"Idle-CPU\"></a>Idle-CPU' is not <a id=\"ID\"></a>ID with ID of a-z, 0-9 and '-': give the row an id to link to",
                "BENCHMARKS.md:17: row id 'idle-cpu' is also on line 15: give each row an id of its own",
                "BENCHMARKS.md:18: status 'partly' is none of met, not met, —: write one of them (the detail goes to the section)",
                "BENCHMARKS.md:19: status — with the target '≥ 1': a row with a target is met or not met",
                "BENCHMARKS.md:20: date '2026-11-31' is not a day written YYYY-MM-DD: write the day of today's figure",
                "BENCHMARKS.md:21: date '28 Nov' is not a day written YYYY-MM-DD: write the day of today's figure",
                "BENCHMARKS.md:22: machine 'VM, loaded' is not a label of the machine table (vm, sim): name one label, defined in the table",
                "BENCHMARKS.md:23: section cell 'devices' links no section of this page: link the section ([subject](#heading))",
                "BENCHMARKS.md:24: 'today' cell holds the date 2026-11-27: a row holds today's figure only; move earlier ones to docs/benchmarks/history.md",
                "BENCHMARKS.md:25: row of 7 cells, not 8: one cell per column of '| row | what | target | today | status | date | machine | section |'");
    }

    @Test
    void aCellOf80VisibleCharactersPassesAnd81Fails() throws IOException {
        writeGoodTree();
        // Ten characters each, however written: code (backticks not counted), bold, a link (its text
        // only, not its target), HTML (tags not counted), _emphasis_; then four spaces between them
        // and one before the tail: 54 + 1 + 25 = 80.
        String counted = "`aaaaaaaaaa` **bbbbbbbbbb** [cccccccccc](docs/guide.md#set-up-a-broker) <sup>dddddddddd</sup> _eeeeeeeeee_ ";
        write("BENCHMARKS.md", GOOD_BENCHMARKS.replace("0.17–0.21 cores", counted + "x".repeat(25)));
        assertThat(problems()).isEmpty();

        write("BENCHMARKS.md", GOOD_BENCHMARKS.replace("0.17–0.21 cores", counted + "x".repeat(26)));
        assertThat(problems()).containsExactly("BENCHMARKS.md:15: 'today' cell of 81 visible characters, over 80: move the detail to the section");

        // An escaped pipe is one character of the cell, not a column.
        write("BENCHMARKS.md", GOOD_BENCHMARKS.replace("An idle job's CPU", "a \\| b " + "w".repeat(75)));
        assertThat(problems()).containsExactly("BENCHMARKS.md:15: 'what' cell of 81 visible characters, over 80: move the detail to the section");
    }

    // --- Quotes of the dashboard ------------------------------------------------------------------

    /** A page quoting each row: in a paragraph, a list item and a table cell, from a page under docs/. */
    private static final String QUOTING_PAGE = """
            # Figures

            The pipeline sustains **0.78** at 150 kB of bare Kafka's MB/s: the target is
            met ([dashboard](../BENCHMARKS.md#serving-mbps)).

            - Cold starts: 5.26x fewer than LRU, not met ([row](../BENCHMARKS.md#cold-starts)).
            - The demo's SLOs: `99.97 %`, met
              ([row](../BENCHMARKS.md#demo-slos-met)).

            | figure | Kairos | status |
            | --- | --- | --- |
            | idle CPU | 0.17–0.21 cores ([row](../BENCHMARKS.md#idle-cpu)) | watched |
            """;

    @Test
    void quotesHoldingTheRowsTodayAndStatusPass() throws IOException {
        writeGoodTree();
        write("docs/figures.md", QUOTING_PAGE);
        DocsCheck.Result result = DocsCheck.check(dir, commandLine());
        assertThat(problems()).isEmpty();
        assertThat(result.quotes()).isEqualTo(5);   // the README's one and these four
    }

    @Test
    void aQuoteOfAnotherFigureThanTodaysFails() throws IOException {
        writeGoodTree();
        write("docs/figures.md", QUOTING_PAGE.replace("**0.78** at 150 kB", "0.74 at 150 kB").replace("0.17–0.21 cores", "0.70–0.79 cores"));
        assertThat(problems()).containsExactly(
                "docs/figures.md:4: quote of BENCHMARKS.md#serving-mbps lacks the row's today '0.78 at 150 kB' (BENCHMARKS.md:12): quote today's figure as the row writes it",
                "docs/figures.md:12: quote of BENCHMARKS.md#idle-cpu lacks the row's today '0.17–0.21 cores' (BENCHMARKS.md:15): quote today's figure as the row writes it");

        // The row changes; the page that quoted it fails until it says the same.
        writeGoodTree();
        write("docs/figures.md", QUOTING_PAGE);
        write("BENCHMARKS.md", GOOD_BENCHMARKS.replace("| 5.26x |", "| 5.3x |"));
        assertThat(problems()).containsExactly(
                "docs/figures.md:6: quote of BENCHMARKS.md#cold-starts lacks the row's today '5.3x' (BENCHMARKS.md:13): quote today's figure as the row writes it");
    }

    @Test
    void aQuoteSaysMetOrNotMetAsTheRowDoesBothWays() throws IOException {
        writeGoodTree();
        // A row not met quoted as met; a row met quoted as not met; a met row quoted with no status
        // (the link's target holds "met", which is not counted; "metric" is not the word).
        write("docs/figures.md", QUOTING_PAGE
                .replace("5.26x fewer than LRU, not met", "5.26x fewer than LRU, met")
                .replace("the target is\nmet", "the target is\nnot met")
                .replace("`99.97 %`, met", "`99.97 %` by the metric"));
        assertThat(problems()).containsExactly(
                "docs/figures.md:4: quote of BENCHMARKS.md#serving-mbps says 'not met' where the row is met: say 'met'",
                "docs/figures.md:6: quote of BENCHMARKS.md#cold-starts does not say 'not met', the row's status: say it",
                "docs/figures.md:8: quote of BENCHMARKS.md#demo-slos-met does not say 'met', the row's status: say it");

        // The statuses turned round: the page now agrees with the rows.
        write("BENCHMARKS.md", GOOD_BENCHMARKS.replace("| ≥ 0.7 | **0.78** at 150 kB | met |", "| ≥ 0.7 | **0.78** at 150 kB | not met |")
                .replace("| 5.26x | not met |", "| 5.26x | met |")
                .replace("| ≥ 99 % | 99.97 % | met |", "| — | 99.97 % | — |"));
        write("README.md", "# Kairos\n\n[Guide](docs/guide.md), [benchmarks](BENCHMARKS.md).\n");
        assertThat(problems()).isEmpty();
    }

    @Test
    void aQuoteIsReadInItsOwnUnitOnly() throws IOException {
        writeGoodTree();
        // The figure in the row's other cell, in the list item before, in the paragraph before: none is the quote's unit.
        write("docs/figures.md", """
                # Figures

                | figure | Kairos | source |
                | --- | --- | --- |
                | 5.26x, not met | cold starts | [row](../BENCHMARKS.md#cold-starts) |

                - The demo: 99.97 %, met.
                - Its SLOs, met ([row](../BENCHMARKS.md#demo-slos-met)).

                0.78 at 150 kB.
                Still the paragraph: met ([row](../BENCHMARKS.md#serving-mbps)).

                0.17–0.21 cores.

                Another paragraph ([row](../BENCHMARKS.md#idle-cpu)).
                """);
        assertThat(problems()).containsExactly(
                "docs/figures.md:5: quote of BENCHMARKS.md#cold-starts lacks the row's today '5.26x' (BENCHMARKS.md:13): quote today's figure as the row writes it",
                "docs/figures.md:8: quote of BENCHMARKS.md#demo-slos-met lacks the row's today '99.97 %' (BENCHMARKS.md:14): quote today's figure as the row writes it",
                "docs/figures.md:15: quote of BENCHMARKS.md#idle-cpu lacks the row's today '0.17–0.21 cores' (BENCHMARKS.md:15): quote today's figure as the row writes it");
    }

    @Test
    void theReadmesLinksIntoBenchmarksNameARowOrTheBarePage() throws IOException {
        writeGoodTree();
        write("README.md", """
                # Kairos

                [Guide](docs/guide.md). [Benchmarks](BENCHMARKS.md), [its devices](BENCHMARKS.md#devices), [a typo](BENCHMARKS.md#device).
                Cold starts 5.26x fewer, not met ([row](BENCHMARKS.md#cold-starts)).
                """);
        // Another page may link a section: the rule is the README's.
        write("docs/guide.md", "# Guide\n\n## Set up a broker\n\n<a id=\"custom\"></a>\nSee [the devices](../BENCHMARKS.md#devices).\n");
        assertThat(problems()).containsExactly(
                "README.md:3: dead link 'BENCHMARKS.md#device' (no heading or anchor '#device' in BENCHMARKS.md)",
                "README.md:3: link 'BENCHMARKS.md#devices' into BENCHMARKS.md names no dashboard row: link the row whose figure this is, or the bare page");
    }

    // --- Lab words -------------------------------------------------------------------------------

    @Test
    void labWordsAndCommitHashesOnAUserPageAreNamedWithTheirLine() throws IOException {
        writeGoodTree();
        write("docs/notes.md", """
                # Notes

                Measured this
                evening at 05:06 UTC, on `49f7407`; settled in issue 14 and Issues #28.
                With a helper's builds beside it (the helpers' and the Helpers too).
                Yesterday, tonight, last night, in the morning, earlier today, earlier that day.

                ```text
                commit 3fa2b1c09e this evening, issue 3, a helper
                ```

                Not words of the log: deadbeef, 2026-11-28, ResNet50, x49f7407, KafkaHelper,
                0x1f2e3d4, the cafe, abc123 (six), issue-free, 12:30 local, helpful.
                A full hash: 1f2e3d4c5b6a7980f1e2d3c4b5a69788f0e1d2c3.
                """);
        assertThat(problems()).containsExactly(
                "docs/notes.md:3: time of day 'this evening' on a user page: say the date, or nothing: the page describes today",
                "docs/notes.md:4: clock time '05:06 UTC' on a user page: the date is enough; drop the time of day",
                "docs/notes.md:4: commit hash '49f7407' on a user page: name the version or the date, not the commit",
                "docs/notes.md:4: issue number 'issue 14' on a user page: say what was decided, not where",
                "docs/notes.md:4: issue number 'Issues #28' on a user page: say what was decided, not where",
                "docs/notes.md:5: the lab's helper 'helper's' on a user page: say what ran beside it (e.g. other builds sharing the cores)",
                "docs/notes.md:5: the lab's helper 'helpers'' on a user page: say what ran beside it (e.g. other builds sharing the cores)",
                "docs/notes.md:5: the lab's helper 'Helpers' on a user page: say what ran beside it (e.g. other builds sharing the cores)",
                "docs/notes.md:6: time of day 'Yesterday' on a user page: say the date, or nothing: the page describes today",
                "docs/notes.md:6: time of day 'tonight' on a user page: say the date, or nothing: the page describes today",
                "docs/notes.md:6: time of day 'last night' on a user page: say the date, or nothing: the page describes today",
                "docs/notes.md:6: time of day 'in the morning' on a user page: say the date, or nothing: the page describes today",
                "docs/notes.md:6: time of day 'earlier today' on a user page: say the date, or nothing: the page describes today",
                "docs/notes.md:6: time of day 'earlier that day' on a user page: say the date, or nothing: the page describes today",
                "docs/notes.md:14: commit hash '1f2e3d4c5b6a7980f1e2d3c4b5a69788f0e1d2c3' on a user page: name the version or the date, not the commit");
    }

    @Test
    void theHistoryMayHoldWhatTheUserPagesMayNot() throws IOException {
        writeGoodTree();
        write("docs/benchmarks/history.md", "# History\n\n2026-11-27, this evening at 05:06 UTC, `49f7407`, issue 28, a helper.\n");
        assertThat(problems()).isEmpty();
        // The same words on BENCHMARKS.md and the README are named.
        write("README.md", "# Kairos\n\n[Guide](docs/guide.md), [benchmarks](BENCHMARKS.md) as of `49f7407`.\n");
        write("BENCHMARKS.md", GOOD_BENCHMARKS.replace("Method, command, today's table.", "Measured this morning."));
        assertThat(problems()).containsExactly(
                "README.md:3: commit hash '49f7407' on a user page: name the version or the date, not the commit",
                "BENCHMARKS.md:19: time of day 'this morning' on a user page: say the date, or nothing: the page describes today");
    }

    @Test
    void visibleTextCountsWhatAReaderSees() {
        assertThat(Markdown.visible("**0.78** at [150 kB](x.md#y) <sup>a</sup> `b_c` _d_ snake_case \\| &amp;")).isEqualTo("0.78 at 150 kB a b_c d snake_case | &");
        assertThat(Markdown.normalised("  two\n  lines  ")).isEqualTo("two lines");
        assertThat(Markdown.cells("| a | `b` \\| c | d |")).containsExactly("a", "`b` \\| c", "d");
    }
}
