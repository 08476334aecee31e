package io.kairos.testbed;

import io.kairos.core.PackageGraph;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lab's packages depend on each other without cycles, read from the imports of their
 * sources (the core's {@link PackageGraph}): the lab's command line's root registers the commands
 * of every package, so nothing the commands share may live in the root; it lives below them, or
 * in the tools the lab builds on ({@code io.kairos.tools}: progress, options, clients, the
 * embedded broker), which in turn know nothing of the lab (their own test).
 */
class PackageDependenciesTest {

    @Test
    void theTestbedPackagesHaveNoCycles() {
        Map<String, Set<String>> deps = PackageGraph.dependencies(Path.of("src/main/java"), "io.kairos.testbed");
        assertThat(deps).containsKeys("io.kairos.testbed", "io.kairos.testbed.bench", "io.kairos.testbed.experiment", "io.kairos.testbed.fidelity");
        assertThat(PackageGraph.cycles(deps)).as("package cycles in %s", deps).isEmpty();
    }
}
