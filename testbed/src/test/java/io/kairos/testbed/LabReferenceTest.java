package io.kairos.testbed;

import io.kairos.tools.KairosCli;
import io.kairos.tools.docs.CliReference;
import io.kairos.tools.docs.DocsCheck;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.Model.CommandSpec;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lab's command-line reference is what its commands print today, and the lab's docs check
 * ({@code bin/kairos-lab docs check}) covers both entries' references: bin/kairos's check sees only
 * the product's command line, which holds no lab class.
 */
class LabReferenceTest {
    /** The checkout's root: kairos.home when set, else the parent of the testbed module, where tests run. */
    private static Path repository() {
        return Path.of(System.getProperty("kairos.home", "..")).toAbsolutePath().normalize();
    }

    private static CommandSpec lab() {
        return KairosLab.commandLine(new PrintWriter(Writer.nullWriter()), new PrintWriter(Writer.nullWriter())).getCommandSpec();
    }

    @Test
    void theCommittedLabReferenceIsTheGeneratedOne() throws IOException {
        Path committed = repository().resolve(KairosLab.REFERENCE);
        String regenerate = DocsCheck.regenerate("kairos-lab", KairosLab.REFERENCE);
        assertThat(committed).as("%s is missing; write it with %s", KairosLab.REFERENCE, regenerate).isRegularFile();
        String page = CliReference.generate(lab(), KairosLab.REFERENCE);
        assertThat(Files.readString(committed))
                .as("%s differs from the commands' usage text; write it again with %s", KairosLab.REFERENCE, regenerate)
                .isEqualTo(page);
        assertThat(page).contains("generated from the commands' own help by\n`" + regenerate + "`")
                .contains("| [`kairos-lab experiment`](#kairos-lab-experiment) | lab |");
    }

    @Test
    void theLabsDocsCheckCoversBothEntries() {
        CommandSpec product = KairosCli.commandLine(new PrintWriter(Writer.nullWriter()), new PrintWriter(Writer.nullWriter())).getCommandSpec();
        DocsCheck.Result result = DocsCheck.check(repository(), Map.of(DocsCheck.CLI_REFERENCE, product, KairosLab.REFERENCE, lab()));
        assertThat(result.commands()).isGreaterThan(DocsCheck.check(repository(), product).commands());
        assertThat(result.problems())
                .as("%s:%n%s%n(bin/kairos-lab docs check prints the same)", result.summary(),
                        result.problems().stream().map(Object::toString).collect(Collectors.joining("\n")))
                .isEmpty();
    }
}
