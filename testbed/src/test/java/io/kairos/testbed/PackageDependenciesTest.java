package io.kairos.testbed;

import io.kairos.core.PackageGraph;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The testbed's packages depend on each other without cycles, read from the imports of its
 * sources (the core's {@link PackageGraph}): the command line's root registers the commands of
 * every package, so nothing the commands share may live in the root; it lives below them
 * ({@code progress}, {@code options}, {@code client}, {@code embedded}).
 */
class PackageDependenciesTest {

    @Test
    void theTestbedPackagesHaveNoCycles() {
        Map<String, Set<String>> deps = PackageGraph.dependencies(Path.of("src/main/java"), "io.kairos.testbed");
        assertThat(deps).containsKeys("io.kairos.testbed", "io.kairos.testbed.bench", "io.kairos.testbed.demo", "io.kairos.testbed.progress");
        assertThat(PackageGraph.cycles(deps)).as("package cycles in %s", deps).isEmpty();
    }
}
