package io.kairos.wire;

import io.kairos.core.PackageGraph;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** The wire module's packages depend on each other without cycles, as the core's do ({@link PackageGraph}). */
class PackageDependenciesTest {

    @Test
    void theWirePackagesHaveNoCycles() {
        Map<String, Set<String>> deps = PackageGraph.dependencies(Path.of("src/main/java"), "io.kairos.wire");
        assertThat(deps).containsKeys("io.kairos.wire.plan", "io.kairos.wire.result", "io.kairos.wire.device");
        assertThat(PackageGraph.cycles(deps)).as("package cycles in %s", deps).isEmpty();
    }
}
