package io.kairos.jobs;

import io.kairos.core.PackageGraph;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The jobs module's packages depend on each other without cycles, read from the imports of its
 * sources (the core's {@link PackageGraph}): the job's configuration ({@code config}) is below the
 * job and the option groups that fill it, and the product's command line ({@code cli}) is above
 * them all, so that the job jar can leave the command line out.
 */
class PackageDependenciesTest {

    @Test
    void theJobsPackagesHaveNoCycles() {
        Map<String, Set<String>> deps = PackageGraph.dependencies(Path.of("src/main/java"), "io.kairos.jobs");
        assertThat(deps).containsKeys("io.kairos.jobs", "io.kairos.jobs.config", "io.kairos.jobs.options", "io.kairos.jobs.cli");
        assertThat(PackageGraph.cycles(deps)).as("package cycles in %s", deps).isEmpty();
        assertThat(deps.get("io.kairos.jobs.config")).as("the configuration depends on no other package of the module").isEmpty();
        assertThat(deps.get("io.kairos.jobs")).as("the job (in the job jar) knows nothing of the command line").doesNotContain("io.kairos.jobs.cli");
    }
}
