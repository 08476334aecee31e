package io.kairos.jobs;

import io.kairos.core.model.ModelCatalog;
import io.kairos.jobs.config.ServingConfig;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/** The exchange after the requests' source waits its own timeout; every other exchange, the pipeline hops' source's too, the job's. */
class BufferTimeoutsTest {

    private static Map<String, Long> timeouts(long bufferTimeoutMs, long sourceBufferTimeoutMs) {
        ServingConfig.Builder c = ServingConfig.builder();
        c.bufferTimeoutMs = bufferTimeoutMs;
        c.sourceBufferTimeoutMs = sourceBufferTimeoutMs;
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        ServingJob.onKafka(c.build(), ModelCatalog.builtIn()).build(env);
        return env.getStreamGraph().getStreamNodes().stream()
                .collect(Collectors.toMap(StreamNode::getOperatorName, StreamNode::getBufferTimeout, (a, b) -> a));
    }

    @Test
    void theRequestSourceGathersAPollAndEveryOtherExchangeShipsAtOnce() {
        Map<String, Long> t = timeouts(0, 1);
        assertThat(t).containsEntry("Source: requests", 1L).containsEntry("Source: pipeline hops", 0L)
                .containsEntry("Source: control decisions", 0L)
                .containsEntry("decode + validate + route", 0L).containsEntry("group scheduler", 0L)
                .containsEntry("inference", 0L).containsEntry("results per request", 0L);
    }

    @Test
    void bothTimeoutsAreTheOperatorsOwn() {
        Map<String, Long> t = timeouts(5, 20);
        assertThat(t).containsEntry("Source: requests", 20L).containsEntry("Source: pipeline hops", 5L)
                .containsEntry("group scheduler", 5L).containsEntry("results per request", 5L);
    }
}
