package io.kairos.tools.client;

import io.kairos.tools.embedded.EmbeddedKafkaBroker;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.time.WallClock;
import io.kairos.workload.Arrival;
import io.kairos.workload.Workload;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.ResultStatus;
import io.kairos.schema.StageTimes;
import io.kairos.wire.AvroCodec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Both clients on a real broker, with an echo server in place of the serving job: it answers every
 * request with an OK result and sends every tenth result twice, as a job restart would.
 */
class ClientsOnBrokerTest {
    @TempDir
    static Path dataDir;
    static EmbeddedKafkaBroker broker;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = EmbeddedKafkaBroker.start(dataDir);
        broker.createTopic("requests", 2);
        broker.createTopic("results", 2);
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) broker.close();
    }

    @Test
    void everySentRequestComesBackAsOneDistinctResult() throws Exception {
        Workload workload = Workload.parse("resnet50:300:25,mlp:600:10:acme");
        long seed = 11;
        List<Arrival> planned = workload.arrivalsWithin(seed, 1_000_000);
        AtomicLong echoed = new AtomicLong();
        Thread echo = new Thread(() -> echo(echoed), "echo-server");

        try (ResultConsumer results = new ResultConsumer(broker.bootstrapServers(), "results", ResultConsumer.StartAt.LATEST);
             RequestProducer requests = new RequestProducer(broker.bootstrapServers(), "requests", ModelCatalog.builtIn())) {
            echo.start();
            RequestProducer.PacingReport report = requests.run(workload, seed, Duration.ofSeconds(1));

            assertThat(report.sent()).isEqualTo(planned.size());
            assertThat(report.acked()).isEqualTo(planned.size());
            assertThat(report.failed()).isZero();
            assertThat(results.awaitResults(report.sent(), Duration.ofSeconds(10), Duration.ofSeconds(20)))
                    .isEqualTo(ResultConsumer.Outcome.EXPECTED);
            results.poll(Duration.ofMillis(200)); // the last duplicates

            assertThat(results.distinct()).isEqualTo(report.sent());
            assertThat(results.duplicates()).isEqualTo(echoed.get() / 10);
            assertThat(results.summary().model("resnet50").count(io.kairos.core.result.ResultStatus.OK))
                    .isEqualTo(planned.stream().filter(a -> a.model().equals("resnet50")).count());
            assertThat(results.summary().model("mlp").count(io.kairos.core.result.ResultStatus.OK))
                    .isEqualTo(planned.stream().filter(a -> a.model().equals("mlp")).count());
            assertThat(results.summary().overall().sloAttainment()).isEqualTo(1.0);
            assertThat(results.summary().overall().p50Micros()).isBetween(1L, 1_000_000L);
        } finally {
            echo.interrupt();
            echo.join(5_000);
        }
    }

    /** The serving job's part, minus the serving: read a request, write an OK result keyed by its id. */
    private static void echo(AtomicLong echoed) {
        AvroCodec<InferenceRequest> in = AvroCodec.of(InferenceRequest.class);
        AvroCodec<InferenceResult> out = AvroCodec.of(InferenceResult.class);
        Map<String, Object> common = Map.of("bootstrap.servers", broker.bootstrapServers());
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(common, new ByteArrayDeserializer(), new ByteArrayDeserializer());
             KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of("bootstrap.servers", broker.bootstrapServers(), "linger.ms", 0),
                     new ByteArraySerializer(), new ByteArraySerializer())) {
            List<TopicPartition> partitions = List.of(new TopicPartition("requests", 0), new TopicPartition("requests", 1));
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            while (!Thread.currentThread().isInterrupted()) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(20))) {
                    InferenceRequest r = in.decode(record.value());
                    long now = WallClock.nowMicros();
                    InferenceResult result = InferenceResult.newBuilder()
                            .setRequestId(r.getRequestId()).setTenant(r.getTenant()).setModel(r.getModel())
                            .setStatus(ResultStatus.OK).setBatchSize(1).setSloMs(r.getSloMs())
                            .setTimings(StageTimes.newBuilder().setSent(r.getSentAtMicros())
                                    .setDeadline(r.getSentAtMicros() + Math.round(r.getSloMs() * 1000)).setEmitted(now).build())
                            .build();
                    byte[] bytes = out.encode(result);
                    producer.send(new ProducerRecord<>("results", record.key(), bytes));
                    if (echoed.incrementAndGet() % 10 == 0) producer.send(new ProducerRecord<>("results", record.key(), bytes));
                }
            }
        } catch (WakeupException | org.apache.kafka.common.errors.InterruptException e) {
            // the test is over
        }
    }
}
