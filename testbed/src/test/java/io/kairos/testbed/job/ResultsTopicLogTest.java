package io.kairos.testbed.job;

import io.kairos.flink.kafka.ResultsTopicLog;
import io.kairos.testbed.SharedBroker;
import io.kairos.tools.embedded.EmbeddedKafkaBroker;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeoutException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The results topic read back on a real broker: every partition, from a time on, keys only. */
class ResultsTopicLogTest {
    private final EmbeddedKafkaBroker broker = SharedBroker.get();

    private KafkaProducer<byte[], byte[]> producer() {
        return new KafkaProducer<>(Map.of("bootstrap.servers", broker.bootstrapServers(), "linger.ms", 5), new ByteArraySerializer(), new ByteArraySerializer());
    }

    @Test
    void readsTheKeysWrittenSinceATimeOnEveryPartition() throws Exception {
        String topic = "log-partitions";
        broker.createTopic(topic, 3);
        long now = System.currentTimeMillis();
        Set<String> recent = new HashSet<>();
        List<ProducerRecord<byte[], byte[]>> old = new ArrayList<>();
        List<ProducerRecord<byte[], byte[]>> young = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            old.add(new ProducerRecord<>(topic, null, now - 60_000, ("old-" + i).getBytes(StandardCharsets.UTF_8), new byte[100]));
            young.add(new ProducerRecord<>(topic, null, now - 10_000, ("new-" + i).getBytes(StandardCharsets.UTF_8), new byte[100]));
            recent.add("new-" + i);
        }
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            // In the order a job writes them, each group acknowledged before the next: a record
            // sent again after a later one would sit past it in its partition, read from the time on.
            written(producer, old);
            written(producer, young);
            written(producer, List.of(new ProducerRecord<>(topic, null, now - 5_000, null, new byte[100]))); // no key: not a result of this job
        }
        ResultsTopicLog log = new ResultsTopicLog(broker.bootstrapServers(), topic);
        assertThat(log.requestIdsSince(now - 30_000, 10_000)).isEqualTo(recent);
        assertThat(log.requestIdsSince(now - 120_000, 10_000)).hasSize(600);
        assertThat(log.requestIdsSince(now, 10_000)).as("nothing written since").isEmpty();
        assertThat(log.latestWriteMillis(10_000)).as("the latest of the partitions' last records").isEqualTo(now - 5_000);
    }

    @Test
    void aTopicWithNoResultWasNeverWritten() throws Exception {
        String topic = "log-empty";
        broker.createTopic(topic, 2);
        assertThat(new ResultsTopicLog(broker.bootstrapServers(), topic).latestWriteMillis(10_000)).isEqualTo(Long.MIN_VALUE);
    }

    @Test
    void readsATailOfFiftyThousandResultsWithinTheDefaultTimeout() throws Exception {
        String topic = "log-large-tail";
        broker.createTopic(topic, 4);
        long now = System.currentTimeMillis();
        List<ProducerRecord<byte[], byte[]>> tail = new ArrayList<>();
        for (int i = 0; i < 50_000; i++) {
            tail.add(new ProducerRecord<>(topic, null, now, ("request-" + i).getBytes(StandardCharsets.UTF_8), new byte[512]));
        }
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            written(producer, tail);
        }
        long start = System.nanoTime();
        Set<String> ids = new ResultsTopicLog(broker.bootstrapServers(), topic).requestIdsSince(now - 1_000, 5_000);
        long ms = (System.nanoTime() - start) / 1_000_000;
        System.out.printf("read back 50,000 result keys (512 B values, 4 partitions) in %d ms%n", ms);
        assertThat(ids).hasSize(50_000).contains("request-0", "request-49999");
    }

    /**
     * Sends {@code records} and waits until each is acknowledged. What is read back is under test,
     * not the writing: a send that the broker let expire (it happens on a machine busy with other
     * builds) is sent again, one at a time.
     */
    private static void written(KafkaProducer<byte[], byte[]> producer, List<ProducerRecord<byte[], byte[]>> records) throws Exception {
        List<Future<?>> sent = new ArrayList<>();
        for (ProducerRecord<byte[], byte[]> r : records) sent.add(producer.send(r));
        producer.flush();
        for (int i = 0; i < sent.size(); i++) {
            try {
                sent.get(i).get();
            } catch (ExecutionException e) {
                producer.send(records.get(i)).get();
            }
        }
    }

    @Test
    void aBrokerThatDoesNotAnswerEndsTheReadWithinItsTimeout() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        ResultsTopicLog log = new ResultsTopicLog("127.0.0.1:" + closedPort, "kairos-results");
        long start = System.nanoTime();
        assertThatThrownBy(() -> log.requestIdsSince(0, 1_000)).isInstanceOf(TimeoutException.class).hasMessageContaining("kairos-results");
        assertThat((System.nanoTime() - start) / 1_000_000).as("ms until it gave up").isLessThan(3_000);
        long asked = System.nanoTime();
        assertThatThrownBy(() -> log.latestWriteMillis(1_000)).isInstanceOf(TimeoutException.class).hasMessageContaining("kairos-results");
        assertThat((System.nanoTime() - asked) / 1_000_000).as("ms until it gave up").isLessThan(3_000);
    }
}
