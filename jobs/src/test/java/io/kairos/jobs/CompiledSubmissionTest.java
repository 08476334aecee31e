package io.kairos.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.flink.client.program.StreamContextEnvironment;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.configuration.HighAvailabilityOptions;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.core.execution.DefaultExecutorServiceLoader;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The compiled submission is taken only under {@code flink run} against a remote session cluster
 * with HA services: there a standby JobManager would otherwise compile the job again when it
 * takes over. Everywhere else the job is executed as Flink executes it (the fault suite's HA
 * scenarios exercise the submission itself on a real cluster).
 */
class CompiledSubmissionTest {

    private static StreamContextEnvironment flinkRun(String target, String haType) {
        Configuration config = new Configuration();
        config.set(DeploymentOptions.TARGET, target);
        config.set(DeploymentOptions.ATTACHED, false);
        if (haType != null) config.set(HighAvailabilityOptions.HA_MODE, haType);
        return new StreamContextEnvironment(new DefaultExecutorServiceLoader(), config, CompiledSubmissionTest.class.getClassLoader(), true, false);
    }

    @Test
    void flinkRunOnAnHaSessionClusterSubmitsTheCompiledGraph() {
        assertTrue(CompiledSubmission.applies(flinkRun("remote", "zookeeper")));
        assertTrue(CompiledSubmission.applies(flinkRun("remote", "kubernetes")));
    }

    @Test
    void withoutHaServicesTheJobIsExecutedAsUsual() {
        assertFalse(CompiledSubmission.applies(flinkRun("remote", null)));
        assertFalse(CompiledSubmission.applies(flinkRun("remote", "NONE")));
    }

    @Test
    void theJobGraphCarriesTheJarUnlessTheClusterHasItsClasses(@TempDir Path dir) throws Exception {
        Path jar = Files.write(dir.resolve("job.jar"), new byte[] {1});
        for (boolean onCluster : new boolean[] {false, true}) {
            StreamContextEnvironment env = flinkRun("remote", "zookeeper");
            Configuration config = new Configuration();
            config.set(PipelineOptions.JARS, List.of(jar.toUri().toURL().toString()));
            config.set(CompiledSubmission.JOB_CLASSES_ON_CLUSTER, onCluster);
            env.configure(config);
            env.fromSequence(1, 2).sinkTo(new DiscardingSink<>());

            List<Path> jars = CompiledSubmission.jobGraph(env, "kairos-serving").getUserJars().stream()
                    .map(p -> Path.of(p.toUri())).toList();

            if (onCluster) assertEquals(List.of(), jars, "the cluster's own classes: no jar goes with the job");
            else assertEquals(List.of(jar), jars, "flink run's jar goes with the job");
        }
    }

    @Test
    void anotherTargetOrALocalEnvironmentIsExecutedAsUsual() {
        assertFalse(CompiledSubmission.applies(flinkRun("kubernetes-application", "kubernetes")));
        assertFalse(CompiledSubmission.applies(StreamExecutionEnvironment.getExecutionEnvironment()));
    }
}
