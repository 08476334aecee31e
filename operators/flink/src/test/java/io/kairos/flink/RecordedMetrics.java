package io.kairos.flink;

import org.apache.flink.api.common.JobID;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.clusterframework.types.ResourceID;
import org.apache.flink.runtime.executiongraph.ExecutionAttemptID;
import org.apache.flink.runtime.metrics.groups.TaskManagerMetricGroup;
import org.apache.flink.runtime.metrics.groups.TaskMetricGroup;
import org.apache.flink.runtime.metrics.util.TestingMetricRegistry;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.runtime.operators.testutils.MockEnvironmentBuilder;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The metrics an operator registers, read through a metric registry that records every
 * registration (what a Prometheus reporter would be handed). Give a test harness
 * {@link #environment()}, then read the operator's {@code kairos} metrics by name.
 */
final class RecordedMetrics implements AutoCloseable {
    private final Map<String, Metric> registered = new ConcurrentHashMap<>();
    private final MockEnvironment environment;

    RecordedMetrics(String taskName) {
        TestingMetricRegistry registry = TestingMetricRegistry.builder()
                .setRegisterConsumer((metric, name, group) -> registered.put(group.getMetricIdentifier(name), metric))
                .build();
        TaskMetricGroup task = TaskManagerMetricGroup.createTaskManagerMetricGroup(registry, "localhost", ResourceID.generate())
                .addJob(new JobID(), "job")
                .addTask(ExecutionAttemptID.randomId(), taskName);
        environment = new MockEnvironmentBuilder().setMetricGroup(task).build();
    }

    MockEnvironment environment() {
        return environment;
    }

    /** The metric of the operator's {@code kairos} group with this name. */
    Metric kairos(String name) {
        List<Metric> found = new ArrayList<>();
        registered.forEach((id, m) -> { if (id.endsWith(".kairos." + name)) found.add(m); });
        assertThat(found).as("metric kairos.%s among %s", name, registered.keySet()).hasSize(1);
        return found.get(0);
    }

    /** The identifiers of every metric registered so far. */
    java.util.Set<String> registered() {
        return java.util.Set.copyOf(registered.keySet());
    }

    long count(String name) {
        return ((Counter) kairos(name)).getCount();
    }

    double gauge(String name) {
        return ((Number) ((Gauge<?>) kairos(name)).getValue()).doubleValue();
    }

    @Override
    public void close() throws Exception {
        environment.close();
    }
}
