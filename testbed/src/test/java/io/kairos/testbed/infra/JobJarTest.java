package io.kairos.testbed.infra;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * The job jar ({@code flink run} takes it) holds what runs in Flink and nothing else: the serving
 * job, the Flink functions, the engine-free core and the ONNX Runtime devices, but no simulator,
 * workload, experiment, demo, client, embedded broker, command line or example-model generator,
 * and no class in it refers to one; nor Herd's ILP solver, OR-Tools, its native libraries or their
 * loader. (The jobs module is packaged before the testbed's tests run.)
 */
class JobJarTest {
    /** Packages and libraries that do not run in Flink, as they appear in class files. */
    private static final List<String> NOT_IN_FLINK = List.of(
            "io/kairos/sim/", "io/kairos/workload/", "io/kairos/testbed/", "io/kairos/control/",
            "io/kairos/jobs/cli/", "io/kairos/onnx/examples/", "com/google/protobuf/", "org/tribuo/",
            "kafka/server/", "me/tongfei/", "com/google/ortools/", "com/sun/jna/");

    private static Path jar;

    @BeforeAll
    static void findJar() throws IOException {
        jar = JobsJars.find("-job.jar");
        assumeThat(jar).as("the job jar in jobs/target (built by mvn package)").isNotNull();
    }

    @Test
    void holdsTheServingJobAndWhatItRuns() throws IOException {
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            assertThat(zip.getEntry("io/kairos/jobs/ServingJobMain.class")).isNotNull();
            assertThat(zip.getEntry("io/kairos/flink/GroupSchedulerFunction.class")).isNotNull();
            assertThat(zip.getEntry("io/kairos/core/scheduling/GroupScheduler.class")).isNotNull();
            assertThat(zip.getEntry("io/kairos/onnx/OnnxDevice.class")).isNotNull();
            assertThat(zip.getEntry("kairos/models.json")).isNotNull();
        }
    }

    @Test
    void holdsNothingThatDoesNotRunInFlink() throws IOException {
        List<String> found = new ArrayList<>();
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            zip.stream().map(ZipEntry::getName).filter(n -> NOT_IN_FLINK.stream().anyMatch(n::startsWith)).forEach(found::add);
        }
        assertThat(found).as("entries of %s", jar.getFileName()).isEmpty();
    }

    @Test
    void holdsNoSolver() throws IOException {
        // OR-Tools is the command line's (kairos plan herd): its Java classes and its native
        // libraries (tens of megabytes, under ortools-linux-*/ and as libortools.so) stay out.
        List<String> found = new ArrayList<>();
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            zip.stream().map(ZipEntry::getName)
                    .filter(n -> n.startsWith("com/google/ortools/") || n.startsWith("ortools-") || n.contains("libortools") || n.contains("com.google.ortools"))
                    .forEach(found::add);
        }
        assertThat(found).as("OR-Tools entries of %s", jar.getFileName()).isEmpty();
    }

    @Test
    void noKairosClassRefersToWhatIsNotThere() throws IOException {
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            assertThat(JobsJars.kairosClassesNaming(zip, NOT_IN_FLINK)).isEmpty();
        }
    }
}
