package io.kairos.testbed.job;

import io.kairos.jobs.ServingJob;
import io.kairos.jobs.config.ServingConfig;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.model.ModelSpec;
import io.kairos.core.time.WallClock;
import io.kairos.schema.BatchTelemetry;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.DType;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.ResultStatus;
import io.kairos.schema.SetPolicy;
import io.kairos.schema.StageTimes;
import io.kairos.schema.Tensor;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/** The real serving job on a real Kafka broker and a Flink mini-cluster, with simulated devices. */
class ServingJobIntegrationTest {

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(
            new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4).build());

    @RegisterExtension
    static final BrokerForClass BROKER = new BrokerForClass();
    private static final ModelCatalog CATALOG = ModelCatalog.builtIn();
    private static int run;
    private static final String WARM_UP = "warm-up";

    @Test
    void everyRequestGetsExactlyOneResultWithPlausibleTimings() throws Exception {
        ServingConfig config = config(c -> {});
        List<String> models = List.of("resnet50", "googlenet", "mlp");
        int n = 300;
        try (TopicClient kafka = new TopicClient(BROKER.get().bootstrapServers())) {
            JobClient job = start(config);
            try {
                awaitServing(kafka, config);
                Set<String> sent = new HashSet<>();
                for (int i = 0; i < n; i++) {
                    InferenceRequest r = request("r" + i, models.get(i % models.size()), 2_000);
                    sent.add(r.getRequestId());
                    kafka.send(config.requestsTopic, InferenceRequest.class, r);
                    if (i % 50 == 49) Thread.sleep(20); // a few bursts rather than one
                }
                kafka.flush();
                List<InferenceResult> results = readResults(kafka, config, n);
                assertThat(results).hasSize(n);
                assertThat(results.stream().map(InferenceResult::getRequestId).collect(Collectors.toSet())).isEqualTo(sent);
                for (InferenceResult r : results) {
                    assertThat(r.getStatus()).as(r.getRequestId() + " " + r.getReason()).isEqualTo(ResultStatus.OK);
                    assertThat(r.getBatchSize()).isBetween(1, CATALOG.get(r.getModel()).latency().maxBatch());
                    assertThat(r.getDevice()).isBetween(0, config.devices - 1);
                    StageTimes t = r.getTimings();
                    assertThat(List.of(t.getSent(), t.getIngested(), t.getEnqueued(), t.getDispatched(), t.getExecStart(), t.getExecEnd(), t.getEmitted()))
                            .as("stage times of %s", r.getRequestId()).isSorted();
                    long executionMicros = t.getExecEnd() - t.getExecStart();
                    assertThat(executionMicros).as("execution of a batch of %d %s", r.getBatchSize(), r.getModel())
                            .isEqualTo(CATALOG.get(r.getModel()).latency().latencyMicros(r.getBatchSize()));
                    assertThat(t.getExecEnd()).isLessThanOrEqualTo(t.getDeadline());
                }
                List<BatchTelemetry> telemetry = kafka.readUntil(config.telemetryTopic, BatchTelemetry.class,
                        l -> l.stream().mapToInt(BatchTelemetry::getBatchSize).sum() >= n + 1, Duration.ofSeconds(30));
                assertThat(telemetry.stream().mapToInt(BatchTelemetry::getBatchSize).sum()).isEqualTo(n + 1);
                assertThat(telemetry.stream().mapToInt(BatchTelemetry::getOk).sum()).isEqualTo(n + 1);
            } finally {
                job.cancel().get();
            }
        }
    }

    @Test
    void badInputBecomesRejectedOrDroppedResultsAndGoodRequestsAroundItAreServed() throws Exception {
        ServingConfig config = config(c -> {});
        try (TopicClient kafka = new TopicClient(BROKER.get().bootstrapServers())) {
            JobClient job = start(config);
            try {
                awaitServing(kafka, config);
                kafka.send(config.requestsTopic, InferenceRequest.class, request("good-1", "mlp", 2_000));
                kafka.send(config.requestsTopic, new byte[] {1, 2, 3, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x7f});
                kafka.send(config.requestsTopic, InferenceRequest.class, withModel(request("unknown-model", "mlp", 2_000), "no-such-model"));
                InferenceRequest wrongShape = request("wrong-shape", "mlp", 2_000);
                wrongShape.getInput().setShape(List.of(32L));
                kafka.send(config.requestsTopic, InferenceRequest.class, wrongShape);
                InferenceRequest wrongDtype = request("wrong-dtype", "mlp", 2_000);
                wrongDtype.getInput().setDtype(DType.INT32);
                kafka.send(config.requestsTopic, InferenceRequest.class, wrongDtype);
                InferenceRequest wrongBytes = request("wrong-bytes", "mlp", 2_000);
                wrongBytes.getInput().setData(ByteBuffer.allocate(7));
                kafka.send(config.requestsTopic, InferenceRequest.class, wrongBytes);
                kafka.send(config.requestsTopic, InferenceRequest.class, request("zero-slo", "mlp", 0));
                InferenceRequest expired = request("expired", "mlp", 50);
                expired.setSentAtMicros(WallClock.nowMicros() - 10_000_000);
                kafka.send(config.requestsTopic, InferenceRequest.class, expired);
                kafka.send(config.requestsTopic, InferenceRequest.class, request("good-2", "resnet50", 2_000));
                kafka.flush();

                List<InferenceResult> results = readResults(kafka, config, 9);
                Map<String, InferenceResult> byId = results.stream().collect(Collectors.toMap(InferenceResult::getRequestId, r -> r));
                assertThat(results).hasSize(9);
                assertThat(byId.get("good-1").getStatus()).isEqualTo(ResultStatus.OK);
                assertThat(byId.get("good-2").getStatus()).isEqualTo(ResultStatus.OK);
                InferenceResult malformed = byId.get(config.requestsTopic + "-0@2");
                assertThat(malformed).as("the malformed record is named by its offset: %s", byId.keySet()).isNotNull();
                assertThat(malformed.getStatus()).isEqualTo(ResultStatus.REJECTED);
                assertThat(malformed.getReason()).startsWith("malformed request");
                assertRejected(byId, "unknown-model", "unknown model 'no-such-model'");
                assertRejected(byId, "wrong-shape", "input shape [32]");
                assertRejected(byId, "wrong-dtype", "input dtype INT32");
                assertRejected(byId, "wrong-bytes", "input has 7 bytes");
                assertRejected(byId, "zero-slo", "slo_ms must be a positive");
                assertThat(byId.get("expired").getStatus()).isEqualTo(ResultStatus.DROPPED);
                assertThat(byId.get("expired").getReason()).contains("deadline passed");
            } finally {
                job.cancel().get();
            }
        }
    }

    @Test
    void aControlDecisionMidStreamChangesThePolicysBehaviour() throws Exception {
        // Triton-style batching limited to batches of one; then a decision allows batches of 16.
        ServingConfig config = config(c -> {
            c.policy = "triton";
            c.policyParams = Map.of("max_batch", "1", "max_queue_delay_ms", "20");
        });
        try (TopicClient kafka = new TopicClient(BROKER.get().bootstrapServers())) {
            JobClient job = start(config);
            try {
                awaitServing(kafka, config);
                sendBurst(kafka, config, "before-", 40);
                List<InferenceResult> before = readResults(kafka, config, 40);
                assertThat(before).hasSize(40).allSatisfy(r -> assertThat(r.getBatchSize()).isEqualTo(1));

                ControlDecision allowBatches = ControlDecision.newBuilder()
                        .setVersion(1).setIssuedAtMicros(WallClock.nowMicros()).setIssuedBy("test")
                        .setAction(SetPolicy.newBuilder().setGroup("default").setPolicy("triton")
                                .setParams(Map.of("max_batch", "16", "max_queue_delay_ms", "20")).build())
                        .build();
                kafka.send(config.controlTopic, ControlDecision.class, allowBatches);
                kafka.flush();
                Thread.sleep(1_500); // the control stream is independent of the requests; give it time to arrive

                sendBurst(kafka, config, "after-", 40);
                List<InferenceResult> all = readResults(kafka, config, 80);
                List<InferenceResult> after = all.stream().filter(r -> r.getRequestId().startsWith("after-")).toList();
                assertThat(after).hasSize(40);
                assertThat(after.stream().mapToInt(InferenceResult::getBatchSize).max().orElse(0)).isGreaterThan(1);
            } finally {
                job.cancel().get();
            }
        }
    }

    /**
     * Waits until the job answers a request: a job takes seconds to start, and requests sent before
     * it reads them would age past short SLOs. The warm-up result is the first on the results topic.
     */
    private static void awaitServing(TopicClient kafka, ServingConfig config) {
        kafka.send(config.requestsTopic, InferenceRequest.class, request(WARM_UP, "mlp", 120_000));
        kafka.flush();
        List<InferenceResult> first = kafka.readUntil(config.resultsTopic, InferenceResult.class, l -> !l.isEmpty(), Duration.ofSeconds(60));
        assertThat(first).extracting(InferenceResult::getRequestId).containsExactly(WARM_UP);
    }

    private static List<InferenceResult> readResults(TopicClient kafka, ServingConfig config, int n) {
        List<InferenceResult> all = kafka.readUntil(config.resultsTopic, InferenceResult.class, l -> l.size() >= n + 1, Duration.ofSeconds(90));
        return all.stream().filter(r -> !r.getRequestId().equals(WARM_UP)).toList();
    }

    private static void sendBurst(TopicClient kafka, ServingConfig config, String prefix, int n) {
        for (int i = 0; i < n; i++) kafka.send(config.requestsTopic, InferenceRequest.class, request(prefix + i, "mlp", 5_000));
        kafka.flush();
    }

    private static void assertRejected(Map<String, InferenceResult> byId, String id, String reasonPart) {
        InferenceResult r = byId.get(id);
        assertThat(r).as(id).isNotNull();
        assertThat(r.getStatus()).as(id).isEqualTo(ResultStatus.REJECTED);
        assertThat(r.getReason()).as(id).contains(reasonPart);
    }

    private static InferenceRequest withModel(InferenceRequest r, String model) {
        r.setModel(model);
        return r;
    }

    static InferenceRequest request(String id, String model, double sloMs) {
        ModelSpec spec = CATALOG.get(model);
        List<Long> shape = new ArrayList<>();
        for (long d : spec.input().shape()) shape.add(d);
        return InferenceRequest.newBuilder()
                .setRequestId(id).setTenant("test").setModel(model)
                .setInput(Tensor.newBuilder().setDtype(DType.valueOf(spec.input().dtype())).setShape(shape)
                        .setData(ByteBuffer.allocate((int) spec.input().byteSize())).build())
                .setSentAtMicros(WallClock.nowMicros())
                .setSloMs(sloMs)
                .build();
    }

    private static ServingConfig config(Consumer<ServingConfig.Builder> adjust) {
        run++;
        return TestConfigs.onBroker(BROKER.get(), "it" + run + "-", adjust);
    }

    private static JobClient start(ServingConfig config) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        return ServingJob.onKafka(config, CATALOG).start(env);
    }
}
