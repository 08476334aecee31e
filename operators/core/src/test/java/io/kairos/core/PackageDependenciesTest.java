package io.kairos.core;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The core's packages depend on each other without cycles, read from the imports of its sources
 * ({@link PackageGraph}): the scheduler's view of devices lives with the scheduler, executors
 * apart, so that {@code scheduling} may use {@code device} and never the other way round.
 */
class PackageDependenciesTest {

    @Test
    void theCorePackagesHaveNoCycles() {
        Map<String, Set<String>> deps = PackageGraph.dependencies(Path.of("src/main/java"), "io.kairos.core");
        assertThat(deps).containsKeys("io.kairos.core.device", "io.kairos.core.scheduling");
        assertThat(PackageGraph.cycles(deps)).as("package cycles in %s", deps).isEmpty();
        assertThat(deps.get("io.kairos.core.device")).as("executors know nothing of the scheduler").doesNotContain("io.kairos.core.scheduling");
    }

    @Test
    void theCycleFinderFindsACycle() {
        assertThat(PackageGraph.cycles(Map.of("a", Set.of("b"), "b", Set.of("c"), "c", Set.of("a"), "d", Set.of("a"))))
                .containsExactly(List.of("a", "b", "c", "a"));
    }
}
