package io.kairos.jobs;

import io.kairos.core.model.ModelCatalog;
import io.kairos.jobs.config.ServingConfig;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamingJobGraphGenerator;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.stream.StreamSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which operators share a task: every exchange between tasks is a hand-over between threads and
 * an encode and decode of each record, so the hot path's chains are part of its latency.
 */
class ServingJobChainsTest {

    private static List<String> tasks(ServingConfig c) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(new Configuration());
        ServingJob.onKafka(c, ModelCatalog.builtIn()).build(env);
        JobGraph graph = StreamingJobGraphGenerator.createJobGraph(env.getStreamGraph());
        return StreamSupport.stream(graph.getVertices().spliterator(), false).map(JobVertex::getName).toList();
    }

    private static String taskOf(List<String> tasks, String operator) {
        return tasks.stream().filter(t -> t.startsWith(operator)).findFirst()
                .orElseThrow(() -> new AssertionError("no task starts with " + operator + ": " + tasks));
    }

    @Test
    void anExecutedRequestsResultIsWrittenInItsDevicesTask() {
        ServingConfig c = new ServingConfig();
        List<String> tasks = tasks(c);
        String device = taskOf(tasks, "inference");
        assertThat(device).contains("results per request", "results within the size limit", "results not yet out", "results: Writer")
                .doesNotContain("other results");
        assertThat(taskOf(tasks, "other results within the size limit")).contains("other results not yet out", "other results: Writer");
    }

    @Test
    void withoutCheckpointsNoResultIsHeldBackAndTheChainIsShorter() {
        ServingConfig c = new ServingConfig();
        c.checkpointIntervalMs = 0;
        String device = taskOf(tasks(c), "inference");
        assertThat(device).contains("results within the size limit", "results: Writer").doesNotContain("results not yet out");
    }
}
