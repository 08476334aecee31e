package io.kairos.jobs;

import io.kairos.core.model.ModelCatalog;
import io.kairos.core.onnx.ExampleModels;
import io.kairos.core.time.WallClock;
import io.kairos.jobs.embedded.EmbeddedKafkaBroker;
import io.kairos.schema.BatchTelemetry;
import io.kairos.schema.DType;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.ResultStatus;
import io.kairos.schema.Tensor;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The real serving job on a real Kafka broker and a Flink mini-cluster, with ONNX Runtime CPU
 * devices serving the generated example models: every output is checked against the models'
 * maths in plain Java.
 */
class OnnxServingJobIntegrationTest {

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(
            new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).build());

    private static EmbeddedKafkaBroker broker;
    private static Path repository;

    @BeforeAll
    static void start() {
        broker = EmbeddedKafkaBroker.start();
        repository = ExampleModels.writeRepository(Path.of("target", "onnx-it-models").toAbsolutePath());
    }

    @AfterAll
    static void stop() {
        if (broker != null) broker.close();
    }

    @Test
    void servesTheExampleModelsWithOutputsThatMatchTheirMathsAndFlagsColdStarts() throws Exception {
        ServingConfig config = TestConfigs.onBroker(broker, "onnx-it-", c -> {
            // Triton's batcher holds a queue up to 20 ms, so that the bursts below run as real batches
            // (stacked and split again) rather than one request at a time on idle devices.
            c.policy = "triton";
            c.policyParams = Map.of("max_batch", "16", "max_queue_delay_ms", "20");
            c.intraOpThreads = 1;
            c.modelRepository = repository.toString();
        });
        ModelCatalog catalog = ServeCommand.catalog(config);
        assertThat(catalog.names()).containsExactlyInAnyOrder("mlp", "cnn", "resnet");

        ExampleModels.Mlp mlp = ExampleModels.Mlp.seeded(ExampleModels.SEED);
        ExampleModels.Cnn cnn = ExampleModels.Cnn.seeded(ExampleModels.SEED + 1);
        ExampleModels.ResNet resnet = ExampleModels.ResNet.seeded(ExampleModels.SEED + 2);
        Random random = new Random(3);
        Map<String, float[]> expected = new HashMap<>();
        int n = 80;
        // Inputs and their expected outputs first: the plain-Java ResNet takes tens of
        // milliseconds an image, which between sends would leave every batch a batch of one.
        List<InferenceRequest> requests = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String model = List.of("mlp", "cnn", "resnet").get(i % 3);
            boolean image = !model.equals("mlp");
            float[] x = new float[image ? 3 * 32 * 32 : 64];
            for (int j = 0; j < x.length; j++) x[j] = (float) random.nextGaussian();
            String id = model + "-" + i;
            expected.put(id, switch (model) {
                case "mlp" -> mlp.forward(x);
                case "cnn" -> cnn.forward(x);
                default -> resnet.forward(x);
            });
            requests.add(request(id, model, x, image ? List.of(3L, 32L, 32L) : List.of(64L)));
        }
        try (TopicClient kafka = new TopicClient(broker.bootstrapServers())) {
            JobClient job = ServingJob.onKafka(config, catalog).start(StreamExecutionEnvironment.getExecutionEnvironment());
            try {
                for (int i = 0; i < n; i++) {
                    InferenceRequest r = requests.get(i);
                    r.setSentAtMicros(WallClock.nowMicros()); // the deadline runs from the send
                    kafka.send(config.requestsTopic, InferenceRequest.class, r);
                    if (i % 20 == 19) {
                        kafka.flush();
                        Thread.sleep(10); // bursts: batches of several sizes
                    }
                }
                // Right dtype and byte count, wrong shape: rejected at validation, never reaches a device.
                kafka.send(config.requestsTopic, InferenceRequest.class, request("wrong-shape", "cnn", new float[3 * 32 * 32], List.of(32L, 32L, 3L)));
                kafka.flush();

                List<InferenceResult> results = kafka.readUntil(config.resultsTopic, InferenceResult.class, l -> l.size() >= n + 1, Duration.ofSeconds(90));
                Map<String, InferenceResult> byId = results.stream().collect(Collectors.toMap(InferenceResult::getRequestId, r -> r));
                assertThat(results).hasSize(n + 1);
                assertThat(byId.get("wrong-shape").getStatus()).isEqualTo(ResultStatus.REJECTED);
                assertThat(byId.get("wrong-shape").getReason()).contains("input shape [32, 32, 3]");
                for (Map.Entry<String, float[]> e : expected.entrySet()) {
                    InferenceResult r = byId.get(e.getKey());
                    assertThat(r.getStatus()).as(r.getRequestId() + " " + r.getReason()).isEqualTo(ResultStatus.OK);
                    assertThat(r.getOutput().getDtype()).isEqualTo(DType.FLOAT32);
                    assertThat(r.getOutput().getShape()).containsExactly(10L);
                    float[] actual = floats(r.getOutput());
                    for (int j = 0; j < 10; j++) {
                        assertThat(actual[j]).as("%s logit %d (batch of %d)", r.getRequestId(), j, r.getBatchSize()).isCloseTo(e.getValue()[j], within(1e-3f));
                    }
                }
                assertThat(results.stream().mapToInt(InferenceResult::getBatchSize).max().orElse(0)).as("some batching happened").isGreaterThan(1);

                // Each model is loaded at most once per device (the budget holds all three), and the
                // batches that waited for a load are flagged on results and telemetry alike.
                List<BatchTelemetry> telemetry = kafka.readUntil(config.telemetryTopic, BatchTelemetry.class,
                        l -> l.stream().mapToInt(BatchTelemetry::getBatchSize).sum() >= n, Duration.ofSeconds(30));
                List<BatchTelemetry> cold = telemetry.stream().filter(BatchTelemetry::getColdStart).toList();
                assertThat(cold).isNotEmpty();
                assertThat(cold.stream().map(t -> t.getModel() + "@" + t.getDevice()).distinct().count()).isLessThanOrEqualTo(6);
                long coldResults = results.stream().filter(InferenceResult::getColdStart).count();
                assertThat(coldResults).isEqualTo(cold.stream().mapToInt(BatchTelemetry::getBatchSize).sum());
            } finally {
                job.cancel().get();
            }
        }
    }

    private static InferenceRequest request(String id, String model, float[] values, List<Long> shape) {
        ByteBuffer data = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        data.asFloatBuffer().put(values);
        return InferenceRequest.newBuilder()
                .setRequestId(id).setTenant("test").setModel(model)
                .setInput(Tensor.newBuilder().setDtype(DType.FLOAT32).setShape(shape).setData(data).build())
                .setSentAtMicros(WallClock.nowMicros())
                .setSloMs(10_000)
                .build();
    }

    private static float[] floats(Tensor t) {
        ByteBuffer b = t.getData().duplicate().order(ByteOrder.LITTLE_ENDIAN);
        float[] v = new float[b.remaining() / 4];
        b.asFloatBuffer().get(v);
        return v;
    }
}
