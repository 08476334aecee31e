package io.kairos.tools.client;

import io.kairos.core.model.ModelCatalog;
import io.kairos.core.time.WallClock;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.Tensor;
import io.kairos.wire.AvroCodec;
import io.kairos.wire.request.RequestValidator;
import io.kairos.workload.ArrivalSpec;
import io.kairos.workload.Workload;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The producer's logic against Kafka's MockProducer: request contents, tensor reuse, open-loop pacing. */
class RequestProducerTest {
    private final ModelCatalog catalog = ModelCatalog.builtIn();
    private final MockProducer<byte[], byte[]> mock = new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
    private final AvroCodec<InferenceRequest> codec = AvroCodec.of(InferenceRequest.class);

    private List<InferenceRequest> sentRequests() {
        return mock.history().stream().map(r -> codec.decode(r.value())).toList();
    }

    @Test
    void sendsRequestsTheServingJobAcceptsKeyedByRequestId() {
        try (RequestProducer producer = new RequestProducer(mock, "requests", catalog)) {
            long before = WallClock.nowMicros();
            for (String model : catalog.names()) producer.send("acme", model, 25);
            long after = WallClock.nowMicros();

            RequestValidator validator = new RequestValidator(catalog);
            List<ProducerRecord<byte[], byte[]>> records = mock.history();
            assertThat(records).hasSize(catalog.names().size());
            for (ProducerRecord<byte[], byte[]> record : records) {
                InferenceRequest r = codec.decode(record.value());
                assertThat(validator.rejectionReason(r, after)).as(r.getModel()).isNull();
                assertThat(record.topic()).isEqualTo("requests");
                assertThat(new String(record.key(), StandardCharsets.UTF_8)).isEqualTo(r.getRequestId());
                assertThat(r.getTenant()).isEqualTo("acme");
                assertThat(r.getSloMs()).isEqualTo(25.0);
                assertThat(r.getSentAtMicros()).isBetween(before, after);
            }
            assertThat(sentRequests()).extracting(InferenceRequest::getRequestId).doesNotHaveDuplicates();
            assertThat(producer.acked()).isEqualTo(records.size());
        }
    }

    @Test
    void everyRequestOfAModelCarriesTheSameTensorWhichEncodingLeavesIntact() {
        try (RequestProducer producer = new RequestProducer(mock, "requests", catalog)) {
            Tensor input = producer.inputOf("resnet50");
            for (int i = 0; i < 100; i++) producer.send("t", "resnet50", 25);

            assertThat(producer.inputOf("resnet50")).isSameAs(input);
            assertThat(input.getData().position()).isZero();
            assertThat((long) input.getData().remaining()).isEqualTo(catalog.get("resnet50").input().byteSize());
            assertThat(sentRequests()).extracting(InferenceRequest::getInput).containsOnly(input);
        }
    }

    @Test
    void unknownModelIsRefusedBeforeAnythingIsSent() {
        try (RequestProducer producer = new RequestProducer(mock, "requests", catalog)) {
            assertThatThrownBy(() -> producer.run(Workload.parse("mlp:100:10,vgg19:100:10"), 1, Duration.ofSeconds(1)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("unknown model 'vgg19'; the catalog has [resnet50");
            assertThat(mock.history()).isEmpty();
        }
    }

    @Test
    void runSendsEveryArrivalOfTheDurationAtItsOffset() throws Exception {
        Workload workload = Workload.parse("mlp:2000:10", ArrivalSpec.FIXED);
        try (RequestProducer producer = new RequestProducer(mock, "requests", catalog)) {
            long start = WallClock.nowMicros();
            RequestProducer.PacingReport report = producer.run(workload, 1, Duration.ofMillis(250));

            // Arrivals every 0.5 ms at 0.5 .. 249.5 ms; the one at 250 ms is outside the duration.
            assertThat(report.sent()).isEqualTo(workload.arrivalsWithin(1, 250_000).size()).isEqualTo(499);
            assertThat(report.acked()).isEqualTo(499);
            assertThat(report.failed()).isZero();
            // Never early (the wall clock and the pacer's nanoTime may disagree by a little).
            List<InferenceRequest> sent = sentRequests();
            for (int i = 0; i < sent.size(); i++) {
                assertThat(sent.get(i).getSentAtMicros() - start).isGreaterThanOrEqualTo(500L * (i + 1) - 200);
            }
            assertThat(report.elapsedMicros()).isGreaterThanOrEqualTo(249_500);
            assertThat(report.offeredRatePerSecond()).isBetween(1500.0, 2010.0);
        }
    }

    @Test
    void fallingBehindSendsAtOnceAndReportsHowFar() throws Exception {
        Workload workload = Workload.parse("mlp:1000:10", ArrivalSpec.FIXED); // one arrival per ms
        try (RequestProducer producer = new RequestProducer(mock, "requests", catalog)) {
            RequestProducer.PacingReport report = producer.run(workload, 1, Duration.ofMillis(300), (sent, offset, behind) -> {
                if (sent == 20) sleep(100); // a stall: the ~100 arrivals due meanwhile are late
            });

            assertThat(report.sent()).isEqualTo(299); // at 1 .. 299 ms, none skipped
            assertThat(report.maxBehindMicros()).isGreaterThanOrEqualTo(90_000);
            assertThat(report.sentLate()).isGreaterThanOrEqualTo(90);
            assertThat(report.p99BehindMicros()).isGreaterThan(report.sentLate() >= 3 ? 1_000 : 0);
            // Caught up rather than shifted: the run still ends near 300 ms, not 400 ms.
            assertThat(report.elapsedMicros()).isLessThan(370_000);
        }
    }

    @Test
    void stopEndsARunEarly() throws Exception {
        try (RequestProducer producer = new RequestProducer(mock, "requests", catalog)) {
            RequestProducer.PacingReport report = producer.run(Workload.parse("mlp:1000:10", ArrivalSpec.FIXED), 1,
                    Duration.ofSeconds(30), (sent, offset, behind) -> {
                        if (sent == 50) producer.stop();
                    });

            assertThat(report.sent()).isEqualTo(50);
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
