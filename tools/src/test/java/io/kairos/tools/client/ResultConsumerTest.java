package io.kairos.tools.client;

import io.kairos.schema.InferenceResult;
import io.kairos.schema.ResultStatus;
import io.kairos.schema.StageTimes;
import io.kairos.wire.AvroCodec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The consumer's logic against Kafka's MockConsumer: dedupe, bad records, when waiting stops. */
class ResultConsumerTest {
    private static final String TOPIC = "results";
    private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);
    private static final TopicPartition P1 = new TopicPartition(TOPIC, 1);

    private final MockConsumer<byte[], byte[]> mock = new MockConsumer<>(OffsetResetStrategy.NONE);
    private final AvroCodec<InferenceResult> codec = AvroCodec.of(InferenceResult.class);
    private final long[] offsets = new long[2];

    @BeforeEach
    void topicWithTwoPartitions() {
        mock.updatePartitions(TOPIC, List.of(new PartitionInfo(TOPIC, 0, null, null, null), new PartitionInfo(TOPIC, 1, null, null, null)));
        mock.updateBeginningOffsets(Map.of(P0, 0L, P1, 0L));
        mock.updateEndOffsets(Map.of(P0, 0L, P1, 0L));
    }

    private static InferenceResult result(String id, String model, ResultStatus status, long latencyMicros) {
        return InferenceResult.newBuilder().setRequestId(id).setTenant("t").setModel(model).setStatus(status)
                .setBatchSize(status == ResultStatus.OK ? 2 : 0)
                .setTimings(StageTimes.newBuilder().setSent(1_000_000).setDeadline(1_010_000).setEmitted(1_000_000 + latencyMicros).build())
                .build();
    }

    private static InferenceResult result(String id) {
        return result(id, "mlp", ResultStatus.OK, 1_000);
    }

    private void deliver(String id, String model, ResultStatus status, long latencyMicros) {
        deliverBytes(id, codec.encode(result(id, model, status, latencyMicros)));
    }

    private void deliverBytes(String key, byte[] value) {
        int p = Math.abs(key.hashCode() % 2);
        mock.addRecord(new ConsumerRecord<>(TOPIC, p, offsets[p]++, key.getBytes(StandardCharsets.UTF_8), value));
    }

    @Test
    void keepsTheFirstCopyOfEachResultAndSkipsBadRecords() {
        List<String> heard = new ArrayList<>();
        try (ResultConsumer consumer = new ResultConsumer(mock, TOPIC, ResultConsumer.StartAt.EARLIEST)) {
            consumer.onResult((r, receivedAt) -> heard.add(r.getRequestId()));
            deliver("a", "mlp", ResultStatus.OK, 1_000);
            deliver("b", "mlp", ResultStatus.OK, 2_000);
            deliver("a", "mlp", ResultStatus.OK, 1_000);       // redelivered after a job restart
            deliver("c", "resnet50", ResultStatus.DROPPED, 500);
            deliverBytes("junk", new byte[] {1, 2, 3});
            deliver("b", "mlp", ResultStatus.OK, 2_000);

            assertThat(consumer.poll(Duration.ZERO)).isEqualTo(3);

            assertThat(consumer.distinct()).isEqualTo(3);
            assertThat(consumer.duplicates()).isEqualTo(2);
            assertThat(consumer.malformed()).isEqualTo(1);
            assertThat(heard).containsExactlyInAnyOrder("a", "b", "c");
            assertThat(consumer.seen("a")).isTrue();
            assertThat(consumer.summary().model("mlp").total()).isEqualTo(2);
            assertThat(consumer.summary().model("mlp").p50Micros()).isEqualTo(1_000);
            assertThat(consumer.summary().overall().count(io.kairos.core.result.ResultStatus.DROPPED)).isEqualTo(1);
        }
    }

    @Test
    void waitingStopsOnceTheExpectedResultsAreIn() {
        try (ResultConsumer consumer = new ResultConsumer(mock, TOPIC, ResultConsumer.StartAt.EARLIEST)) {
            for (int i = 0; i < 5; i++) deliver("r" + i, "mlp", ResultStatus.OK, 1_000);
            deliver("r0", "mlp", ResultStatus.OK, 1_000); // a duplicate does not count towards the five

            assertThat(consumer.awaitResults(5, Duration.ofSeconds(10), Duration.ofSeconds(10))).isEqualTo(ResultConsumer.Outcome.EXPECTED);
            assertThat(consumer.distinct()).isEqualTo(5);
        }
    }

    @Test
    void waitingStopsWhenResultsStopComing() {
        try (ResultConsumer consumer = new ResultConsumer(mock, TOPIC, ResultConsumer.StartAt.EARLIEST)) {
            deliver("r0", "mlp", ResultStatus.OK, 1_000);
            long start = System.nanoTime();

            assertThat(consumer.awaitResults(10, Duration.ofMillis(200), Duration.ofSeconds(10))).isEqualTo(ResultConsumer.Outcome.IDLE);
            assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(200_000_000L);
            assertThat(consumer.distinct()).isEqualTo(1);
        }
    }

    @Test
    void waitingStopsAtTheTimeLimitEvenWhileResultsKeepComing() {
        try (ResultConsumer consumer = new ResultConsumer(mock, TOPIC, ResultConsumer.StartAt.EARLIEST)) {
            int[] n = {0};
            Runnable trickle = new Runnable() {
                @Override
                public void run() {
                    deliver("r" + n[0]++, "mlp", ResultStatus.OK, 1_000);
                    mock.schedulePollTask(this);
                }
            };
            mock.schedulePollTask(trickle);

            assertThat(consumer.awaitResults(0, Duration.ofSeconds(10), Duration.ofMillis(150))).isEqualTo(ResultConsumer.Outcome.TIME_LIMIT);
            assertThat(consumer.distinct()).isPositive();
        }
    }

    @Test
    void wakeupEndsAWait() {
        try (ResultConsumer consumer = new ResultConsumer(mock, TOPIC, ResultConsumer.StartAt.EARLIEST)) {
            consumer.wakeup();
            assertThat(consumer.awaitResults(1, Duration.ofSeconds(10), Duration.ofSeconds(10))).isEqualTo(ResultConsumer.Outcome.WOKEN_UP);
        }
    }

    @Test
    void startingAtTheEndSkipsOlderResults() {
        mock.updateEndOffsets(Map.of(P0, 1L, P1, 0L)); // one older result in partition 0
        try (ResultConsumer consumer = new ResultConsumer(mock, TOPIC, ResultConsumer.StartAt.LATEST)) {
            mock.addRecord(new ConsumerRecord<>(TOPIC, 0, 0, null, codec.encode(result("old"))));
            mock.addRecord(new ConsumerRecord<>(TOPIC, 0, 1, null, codec.encode(result("new"))));
            consumer.poll(Duration.ZERO);

            assertThat(consumer.seen("new")).isTrue();
            assertThat(consumer.seen("old")).isFalse();
        }
    }

    @Test
    void aMissingTopicIsReportedByName() {
        assertThatThrownBy(() -> new ResultConsumer(mock, "nope", ResultConsumer.StartAt.LATEST))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("topic 'nope' has no partitions on the brokers (does it exist?)");
    }
}
