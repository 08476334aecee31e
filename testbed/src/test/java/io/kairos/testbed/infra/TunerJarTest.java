package io.kairos.testbed.infra;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * The tuner job's jar ({@code infra/cluster submit-tuner} runs it): the tuner, the planner it plans
 * with and the Kafka connector, run by {@code TunerJobMain}; none of the devices (ONNX Runtime) or
 * the solver, and no class of it names one.
 */
class TunerJarTest {
    private static final List<String> LEFT_OUT = List.of("io/kairos/onnx/", "ai/onnxruntime/", "io/kairos/jobs/cli/", "io/kairos/testbed/",
            "com/google/ortools/", "me/tongfei/", "io/kairos/control/herd/", "io/kairos/flink/RepositoryCopy");

    private static Path jar;

    @BeforeAll
    static void findJar() throws IOException {
        jar = JobsJars.find("-tuner.jar");
        assumeThat(jar).as("the tuner jar in jobs/target (built by mvn package)").isNotNull();
    }

    @Test
    void holdsTheTunerWhatItPlansWithAndItsMain() throws IOException {
        try (JarFile zip = new JarFile(jar.toFile())) {
            assertThat(zip.getManifest().getMainAttributes().getValue("Main-Class")).isEqualTo("io.kairos.jobs.tuner.TunerJobMain");
            for (String c : List.of("io/kairos/jobs/tuner/TuneCommand.class", "io/kairos/control/tuner/Tuner.class",
                    "io/kairos/control/inferline/InferLinePlanner.class", "io/kairos/sim/pipeline/PipelineEstimator.class",
                    "io/kairos/flink/kafka/AvroRecordSerializer.class", "org/apache/flink/connector/kafka/source/KafkaSource.class",
                    "kairos/models.json")) {
                assertThat(zip.getEntry(c)).as(c).isNotNull();
            }
        }
    }

    @Test
    void holdsNoDeviceNorSolverAndNoClassNamesThem() throws IOException {
        List<String> found = new ArrayList<>();
        try (JarFile zip = new JarFile(jar.toFile())) {
            zip.stream().map(ZipEntry::getName).filter(n -> LEFT_OUT.stream().anyMatch(n::startsWith)).forEach(found::add);
            found.addAll(JobsJars.kairosClassesNaming(zip, LEFT_OUT));
        }
        assertThat(found).as("entries of %s", jar.getFileName()).isEmpty();
    }
}
