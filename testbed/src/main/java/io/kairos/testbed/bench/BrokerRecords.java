package io.kairos.testbed.bench;

import io.kairos.tools.embedded.EmbeddedKafkaBroker;
import io.kairos.wire.KafkaClientProperties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;

/**
 * How many records a set of topics took on the broker: the sum of their partitions' end offsets,
 * read before and after a run. The pipeline writes every record it makes to one of its topics
 * (requests, results, telemetry, device reports, ...), so the difference over a run is what the
 * run cost the broker in records, to compare with the bare round trip's two per request.
 */
final class BrokerRecords implements AutoCloseable {
    private final Admin admin;
    private final List<String> topics;

    BrokerRecords(EmbeddedKafkaBroker broker, List<String> topics) {
        this.admin = Admin.create(KafkaClientProperties.over(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()), broker.clientProperties()));
        this.topics = List.copyOf(topics);
    }

    /** Each topic's end offsets summed over its partitions, now. */
    Map<String, Long> endOffsets() {
        try {
            Map<TopicPartition, OffsetSpec> ask = new HashMap<>();
            admin.describeTopics(topics).allTopicNames().get().forEach((name, d) ->
                    d.partitions().forEach(p -> ask.put(new TopicPartition(name, p.partition()), OffsetSpec.latest())));
            Map<String, Long> ends = new LinkedHashMap<>();
            for (String t : topics) ends.put(t, 0L);
            admin.listOffsets(ask).all().get().forEach((tp, info) -> ends.merge(tp.topic(), info.offset(), Long::sum));
            return ends;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading end offsets", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("could not read the end offsets of " + topics + ": " + e.getCause(), e.getCause());
        }
    }

    /** The records each topic took between two readings of {@link #endOffsets()}. */
    static Map<String, Long> since(Map<String, Long> before, Map<String, Long> after) {
        Map<String, Long> d = new LinkedHashMap<>();
        after.forEach((t, end) -> d.put(t, end - before.getOrDefault(t, 0L)));
        return d;
    }

    @Override
    public void close() {
        admin.close();
    }
}
