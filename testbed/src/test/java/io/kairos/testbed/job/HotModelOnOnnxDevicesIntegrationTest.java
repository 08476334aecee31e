package io.kairos.testbed.job;

import io.kairos.core.model.ModelCatalog;
import io.kairos.core.time.WallClock;
import io.kairos.jobs.ServeCommand;
import io.kairos.jobs.ServingJob;
import io.kairos.jobs.config.ServingConfig;
import io.kairos.onnx.examples.ExampleModels;
import io.kairos.schema.BatchTelemetry;
import io.kairos.schema.DType;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.ModelAction;
import io.kairos.schema.ResultStatus;
import io.kairos.schema.Tensor;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A hot model gets its second device on the real job: the serving job on a broker and a Flink
 * mini-cluster, two ONNX Runtime CPU devices, one generated model whose manifest says a load takes
 * 150 ms and a batch of 16 takes 80 ms (5 ms a request: a device serves 200 requests/s in full
 * batches). The profile stays the manifest's (no learning), so the scheduler plans by it whatever
 * the CPU really takes. 200 requests/s for 4 s, SLO 10 s: one
 * copy would run at 100 %, so once the model's rate has 100 ms of history the load planner loads a
 * second copy on the other device, and both devices serve the model; no request is dropped while
 * the copy loads. The load is in the telemetry with why it was made.
 */
class HotModelOnOnnxDevicesIntegrationTest {

    @RegisterExtension
    static final MiniClusterExtension FLINK = PrometheusMiniCluster.extension(PrometheusMiniCluster.freePort(), 2);

    @RegisterExtension
    static final BrokerForClass BROKER = new BrokerForClass();

    private static final int RATE = 200;
    private static final int SECONDS = 4;
    private static Path repository;

    @BeforeAll
    static void writeModels() throws Exception {
        Path dir = Path.of("target", "onnx-hot-model").toAbsolutePath();
        ExampleModels.writeRepository(dir);
        // Only the MLP, with a manifest that makes it hot: 40 ms a full batch, 150 ms to load.
        repository = dir.resolve("repository");
        Path mlp = repository.resolve(ExampleModels.MLP);
        Files.createDirectories(mlp);
        Files.copy(dir.resolve(ExampleModels.MLP).resolve("model.onnx"), mlp.resolve("model.onnx"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Files.writeString(mlp.resolve("model.json"), """
                {
                  "name": "mlp",
                  "version": 1,
                  "input":  {"name": "input",  "dtype": "FLOAT32", "shape": [64]},
                  "output": {"name": "logits", "dtype": "FLOAT32", "shape": [10]},
                  "batch_sizes": [1, 2, 4, 8, 16],
                  "memory_bytes": 1048576,
                  "latency_ms": {"alpha": 5, "beta": 0},
                  "load_ms": 150
                }
                """);
    }

    @Test
    void theHotModelGetsItsSecondDeviceAsALoadAndBothServeItWithoutADrop() throws Exception {
        ServingConfig config = TestConfigs.onBroker(BROKER.get(), "onnx-hot-model-", c -> {
            c.policy = "kairos";
            c.intraOpThreads = 1;
            c.modelRepository = repository.toString();
            c.warmUp = false;
            c.learnLatency = false;
        });
        ModelCatalog catalog = ServeCommand.catalog(config);
        assertThat(catalog.get("mlp").loadMicros()).isEqualTo(150_000);
        int total = RATE * SECONDS;
        try (TopicClient kafka = new TopicClient(BROKER.get().bootstrapServers())) {
            JobClient job = ServingJob.onKafka(config, catalog).start(StreamExecutionEnvironment.getExecutionEnvironment());
            try {
                // A warm-up request first, so that the job is running before the timed load.
                kafka.send(config.requestsTopic, InferenceRequest.class, request("warm", 10_000));
                kafka.flush();
                kafka.readUntil(config.resultsTopic, InferenceResult.class, l -> !l.isEmpty(), Duration.ofSeconds(120));
                long start = System.nanoTime();
                for (int i = 0; i < total; i++) {
                    long due = start + i * 1_000_000_000L / RATE;
                    long wait = due - System.nanoTime();
                    if (wait > 0) Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                    kafka.send(config.requestsTopic, InferenceRequest.class, request("r" + i, 10_000));
                    if (i % 20 == 19) kafka.flush();
                }
                kafka.flush();
                List<InferenceResult> results = kafka.readUntil(config.resultsTopic, InferenceResult.class, l -> l.size() >= total + 1, Duration.ofSeconds(60));
                List<BatchTelemetry> telemetry = kafka.readUntil(config.telemetryTopic, BatchTelemetry.class,
                        l -> l.stream().mapToInt(BatchTelemetry::getBatchSize).sum() >= total + 1, Duration.ofSeconds(30));

                Map<ResultStatus, Long> statuses = new TreeMap<>();
                for (InferenceResult r : results) statuses.merge(r.getStatus(), 1L, Long::sum);
                String reasons = results.stream().filter(r -> r.getStatus() != ResultStatus.OK).map(r -> r.getReason() + "").distinct().limit(3).toList()
                        + "; telemetry: " + telemetry.stream().filter(t -> t.getModelAction() != null).map(t -> t.getModelAction() + "@" + t.getDevice() + " " + t.getWhy() + " " + t.getError()).toList();
                assertThat(statuses).as("every request served in time, none dropped while the copy loaded: " + reasons).containsOnlyKeys(ResultStatus.OK);
                Map<Integer, Integer> servedBy = new TreeMap<>();
                for (BatchTelemetry t : telemetry) if (t.getModelAction() == null) servedBy.merge(t.getDevice(), t.getBatchSize(), Integer::sum);
                assertThat(servedBy).as("requests served per device").containsOnlyKeys(0, 1);
                assertThat(servedBy.values()).allSatisfy(n -> assertThat(n).isGreaterThan(total / 10));
                List<BatchTelemetry> loads = telemetry.stream().filter(t -> t.getModelAction() == ModelAction.LOAD).toList();
                assertThat(loads).as("the second copy, loaded once, for the model's demand").singleElement().satisfies(l -> {
                    assertThat(l.getModel()).isEqualTo("mlp");
                    assertThat(l.getError()).isNull();
                    assertThat(l.getWhy()).startsWith("demand: ").contains("2 copies keep each under 70 %");
                });
            } finally {
                job.cancel().get();
            }
        }
    }

    private static InferenceRequest request(String id, double sloMs) {
        return InferenceRequest.newBuilder()
                .setRequestId(id).setTenant("test").setModel("mlp")
                .setInput(Tensor.newBuilder().setDtype(DType.FLOAT32).setShape(List.of(64L)).setData(ByteBuffer.allocate(64 * 4)).build())
                .setSentAtMicros(WallClock.nowMicros())
                .setSloMs(sloMs)
                .build();
    }
}
