package io.kairos.tools.docs;

import io.kairos.tools.KairosCli;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.Model.CommandSpec;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The committed command-line reference is what the commands print today, the same on every machine and terminal. */
class DocsCliReferenceTest {
    /** The checkout's root: kairos.home when set, else the parent of the testbed module, where tests run. */
    static Path repository() {
        return Path.of(System.getProperty("kairos.home", "..")).toAbsolutePath().normalize();
    }

    static CommandSpec kairos() {
        return KairosCli.commandLine(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter())).getCommandSpec();
    }

    @Test
    void theCommittedReferenceIsTheGeneratedOne() throws IOException {
        Path committed = repository().resolve(DocsCheck.CLI_REFERENCE);
        assertThat(committed).as("%s is missing; write it with %s", DocsCheck.CLI_REFERENCE, DocsCheck.REGENERATE).isRegularFile();
        assertThat(Files.readString(committed))
                .as("%s differs from the commands' usage text; write it again with %s", DocsCheck.CLI_REFERENCE, DocsCheck.REGENERATE)
                .isEqualTo(CliReference.generate(kairos(), DocsCheck.CLI_REFERENCE));
    }

    @Test
    void theReferenceDoesNotDependOnTheTerminal() {
        String page = CliReference.generate(kairos(), DocsCheck.CLI_REFERENCE);
        String old = System.getProperty("picocli.usage.width");
        System.setProperty("picocli.usage.width", "60");
        try {
            assertThat(CliReference.generate(kairos(), DocsCheck.CLI_REFERENCE)).isEqualTo(page);
        } finally {
            if (old == null) System.clearProperty("picocli.usage.width"); else System.setProperty("picocli.usage.width", old);
        }
        // Usage blocks are 100 columns at most; the live command line keeps its own width.
        boolean[] inFence = {false};
        page.lines().forEach(line -> {
            if (line.startsWith("```")) inFence[0] = !inFence[0];
            else if (inFence[0]) assertThat(line.length()).as(line).isLessThanOrEqualTo(CliReference.WIDTH);
        });
    }

    @Test
    void theReferenceCoversEveryCommandAndMarksWhoseItIs() {
        String page = CliReference.generate(kairos(), DocsCheck.CLI_REFERENCE);
        assertThat(page).startsWith("# Command-line reference\n")
                .contains("generated from the commands' own help by\n`bin/kairos docs cli --output docs/reference/cli.md`; do not edit it by hand")
                .contains("| [`kairos serve`](#kairos-serve) | product |")
                .contains("| [`kairos control show`](#kairos-control-show) | product |")
                .contains("| [`kairos plan smdp`](#kairos-plan-smdp) | product |")
                .contains("| [`kairos demo`](#kairos-demo) | checkout |")
                .contains("| [`kairos docs check`](#kairos-docs-check) | checkout |")
                .contains("\n## kairos control show\n\n```text\nUsage: kairos control show ");
        assertThat(Markdown.parse(page).anchors()).contains("kairos", "kairos-serve", "kairos-control-status", "kairos-docs-cli");
    }
}
