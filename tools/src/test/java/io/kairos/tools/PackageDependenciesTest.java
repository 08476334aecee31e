package io.kairos.tools;

import io.kairos.core.PackageGraph;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The tools' packages depend on each other without cycles, read from the imports of their sources
 * (the core's {@link PackageGraph}): the command line's root registers the commands of every
 * package, so what the commands share lives below them ({@code progress}, {@code options},
 * {@code client}, {@code embedded}). And no package reaches into the lab: the tools are what
 * bin/kairos runs, whose class path holds no testbed class (Maven's graph, in which the testbed
 * depends on the tools, would not build it either; this names the file).
 */
class PackageDependenciesTest {

    @Test
    void theToolsPackagesHaveNoCyclesAndNoLab() {
        Map<String, Set<String>> deps = PackageGraph.dependencies(Path.of("src/main/java"), "io.kairos.tools");
        assertThat(deps).containsKeys("io.kairos.tools", "io.kairos.tools.demo", "io.kairos.tools.docs", "io.kairos.tools.progress");
        assertThat(PackageGraph.cycles(deps)).as("package cycles in %s", deps).isEmpty();
        Map<String, Set<String>> kairos = PackageGraph.dependencies(Path.of("src/main/java"), "io.kairos");
        kairos.forEach((pkg, uses) -> assertThat(uses).as("what %s imports", pkg).noneMatch(p -> p.startsWith("io.kairos.testbed")));
    }
}
