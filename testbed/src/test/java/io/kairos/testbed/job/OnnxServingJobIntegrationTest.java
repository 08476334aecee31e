package io.kairos.testbed.job;

import io.kairos.core.model.ModelCatalog;
import io.kairos.core.time.WallClock;
import io.kairos.jobs.ServeCommand;
import io.kairos.jobs.ServingJob;
import io.kairos.jobs.config.ServingConfig;
import io.kairos.onnx.ModelRepository;
import io.kairos.onnx.OnnxDevice;
import io.kairos.onnx.examples.ExampleModels;
import io.kairos.schema.BatchTelemetry;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.DType;
import io.kairos.schema.DevicePlacement;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.Preemption;
import io.kairos.schema.ResultStatus;
import io.kairos.schema.SetPlacement;
import io.kairos.schema.SetPolicy;
import io.kairos.schema.Tensor;
import io.kairos.wire.device.Device;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
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

    @RegisterExtension
    static final BrokerForClass BROKER = new BrokerForClass();
    private static Path repository;

    @BeforeAll
    static void writeModels() {
        repository = ExampleModels.writeRepository(Path.of("target", "onnx-it-models").toAbsolutePath());
    }

    @Test
    void servesTheExampleModelsWithOutputsThatMatchTheirMathsAndFlagsColdStarts() throws Exception {
        ServingConfig config = TestConfigs.onBroker(BROKER.get(), "onnx-it-", c -> {
            // Triton's batcher holds a queue up to 20 ms, so that the bursts below run as real batches
            // (stacked and split again) rather than one request at a time on idle devices.
            c.policy = "triton";
            c.policyParams = Map.of("max_batch", "16", "max_queue_delay_ms", "20");
            c.intraOpThreads = 1;
            // At a URI, as on a cluster: the client and each device slot copy it through Flink's file system.
            c.modelRepository = repository.toUri().toString();
            // Models load on their first batches, which this test checks are flagged as cold starts.
            c.warmUp = false;
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
        // Images as pixels: UINT8 requests for the FLOAT32 models, a quarter of the bytes, widened
        // on the device to the same values in floats.
        int pixelRequests = 12;
        for (int i = 0; i < pixelRequests; i++) {
            String model = i % 2 == 0 ? "cnn" : "resnet";
            byte[] pixels = new byte[3 * 32 * 32];
            random.nextBytes(pixels);
            float[] x = new float[pixels.length];
            for (int j = 0; j < x.length; j++) x[j] = pixels[j] & 0xFF;
            String id = "pixels-" + model + "-" + i;
            expected.put(id, model.equals("cnn") ? cnn.forward(x) : resnet.forward(x));
            requests.add(InferenceRequest.newBuilder(requests.get(0)).setRequestId(id).setModel(model)
                    .setInput(Tensor.newBuilder().setDtype(DType.UINT8).setShape(List.of(3L, 32L, 32L)).setData(ByteBuffer.wrap(pixels)).build())
                    .build());
        }
        int served = requests.size();
        try (TopicClient kafka = new TopicClient(BROKER.get().bootstrapServers())) {
            JobClient job = ServingJob.onKafka(config, catalog).start(StreamExecutionEnvironment.getExecutionEnvironment());
            try {
                for (int i = 0; i < served; i++) {
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
                // A type no device converts to the model's FLOAT32: rejected at validation, with what would do.
                InferenceRequest signed = request("signed-bytes", "cnn", new float[0], List.of(3L, 32L, 32L));
                signed.setInput(Tensor.newBuilder().setDtype(DType.INT8).setShape(List.of(3L, 32L, 32L)).setData(ByteBuffer.allocate(3 * 32 * 32)).build());
                kafka.send(config.requestsTopic, InferenceRequest.class, signed);
                kafka.flush();

                int all = served + 2;
                List<InferenceResult> results = kafka.readUntil(config.resultsTopic, InferenceResult.class, l -> l.size() >= all, Duration.ofSeconds(90));
                Map<String, InferenceResult> byId = results.stream().collect(Collectors.toMap(InferenceResult::getRequestId, r -> r));
                assertThat(results).hasSize(all);
                assertThat(byId.get("wrong-shape").getStatus()).isEqualTo(ResultStatus.REJECTED);
                assertThat(byId.get("wrong-shape").getReason()).contains("input shape [32, 32, 3]");
                assertThat(byId.get("signed-bytes").getStatus()).isEqualTo(ResultStatus.REJECTED);
                assertThat(byId.get("signed-bytes").getReason()).contains("input dtype INT8").contains("accepted: FLOAT32, UINT8, FLOAT16, converted on the device");
                for (Map.Entry<String, float[]> e : expected.entrySet()) {
                    InferenceResult r = byId.get(e.getKey());
                    assertThat(r.getStatus()).as(r.getRequestId() + " " + r.getReason()).isEqualTo(ResultStatus.OK);
                    assertThat(r.getOutput().getDtype()).isEqualTo(DType.FLOAT32);
                    assertThat(r.getOutput().getShape()).containsExactly(10L);
                    float[] actual = floats(r.getOutput());
                    for (int j = 0; j < 10; j++) {
                        // Relative beyond 1: the pixel requests' logits, from inputs up to 255, are larger.
                        assertThat(actual[j]).as("%s logit %d (batch of %d)", r.getRequestId(), j, r.getBatchSize())
                                .isCloseTo(e.getValue()[j], within(1e-3f * Math.max(1f, Math.abs(e.getValue()[j]))));
                    }
                }
                assertThat(results.stream().mapToInt(InferenceResult::getBatchSize).max().orElse(0)).as("some batching happened").isGreaterThan(1);

                // Each model is loaded at most once per device (the budget holds all three), and the
                // batches that waited for a load are flagged on results and telemetry alike.
                List<BatchTelemetry> telemetry = kafka.readUntil(config.telemetryTopic, BatchTelemetry.class,
                        l -> l.stream().mapToInt(BatchTelemetry::getBatchSize).sum() >= served, Duration.ofSeconds(30));
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

    @Test
    void everyDeviceWarmsUpBeforeTrafficAndTheWarmUpGivesNoResultAndNoTelemetry() throws Exception {
        ServingConfig config = TestConfigs.onBroker(BROKER.get(), "onnx-it-warm-up-", c -> {
            c.policy = "triton";
            c.policyParams = Map.of("max_batch", "16", "max_queue_delay_ms", "20");
            c.intraOpThreads = 1;
            c.modelRepository = repository.toString();
            c.warmUp = true;
        });
        assertThat(config.devices).isGreaterThan(1);
        ModelCatalog catalog = ServeCommand.catalog(config);
        int n = 30;
        try (TopicClient kafka = new TopicClient(BROKER.get().bootstrapServers())) {
            JobClient job = ServingJob.onKafka(config, catalog).start(StreamExecutionEnvironment.getExecutionEnvironment());
            try {
                for (int i = 0; i < n; i++) {
                    String model = List.of("mlp", "cnn", "resnet").get(i % 3);
                    boolean image = !model.equals("mlp");
                    InferenceRequest r = request(model + "-" + i, model, new float[image ? 3 * 32 * 32 : 64], image ? List.of(3L, 32L, 32L) : List.of(64L));
                    r.setSloMs(120_000); // sent while the job starts and its devices warm up: none may be late for it
                    send(kafka, config, r);
                }
                List<InferenceResult> results = kafka.readUntil(config.resultsTopic, InferenceResult.class, l -> l.size() >= n, Duration.ofSeconds(90));
                // Exactly the requests' results, all OK, and none waited for a load: every device
                // loaded and ran every model before it took the first batch.
                assertThat(results).extracting(InferenceResult::getRequestId).doesNotHaveDuplicates().hasSize(n);
                assertThat(results).allSatisfy(r -> {
                    assertThat(r.getStatus()).as(r.getReason()).isEqualTo(ResultStatus.OK);
                    assertThat(r.getColdStart()).as(r.getRequestId()).isFalse();
                });
                // The warm-up's synthetic batches (18 a device) are no batches of the job's telemetry.
                kafka.readUntil(config.telemetryTopic, BatchTelemetry.class,
                        l -> l.stream().mapToInt(BatchTelemetry::getBatchSize).sum() >= n, Duration.ofSeconds(30));
                List<BatchTelemetry> telemetry = kafka.readUntil(config.telemetryTopic, BatchTelemetry.class, l -> false, Duration.ofSeconds(3));
                assertThat(telemetry.stream().mapToInt(BatchTelemetry::getBatchSize).sum()).isEqualTo(n);
                assertThat(telemetry).noneMatch(BatchTelemetry::getColdStart);
                assertThat(kafka.readUntil(config.resultsTopic, InferenceResult.class, l -> false, Duration.ofSeconds(1))).hasSize(n);
            } finally {
                job.cancel().get();
            }
        }
    }

    private static final long TIMEOUT_MS = 200;

    @Test
    void aBatchThatOutlivesTheAsyncTimeoutFailsAndIsTerminatedOnItsDevice() throws Exception {
        // A copy of the repository whose ResNet manifest allows a batch of 768 and claims it takes
        // under a millisecond: the scheduler dispatches it as one batch and goes on sending the
        // device work, the device needs well over a second for it, and the async timeout of
        // 200 ms gives up on it long before.
        Path repo = repositoryWithResNet("onnx-it-timeout-models", "[1, 768]", 0.001, 0.1);
        ServingConfig config = TestConfigs.onBroker(BROKER.get(), "onnx-it-timeout-", c -> {
            c.devices = 1;
            c.policy = "triton";
            // A queue delay long enough for all 768 to arrive, however slowly the machine ingests them.
            c.policyParams = Map.of("max_batch", "768", "max_queue_delay_ms", "5000");
            c.intraOpThreads = 1;
            c.asyncTimeoutMs = TIMEOUT_MS;
            c.modelRepository = repo.toString();
        });
        ModelCatalog catalog = ServeCommand.catalog(config);
        float[] image = new float[3 * 32 * 32];
        try (TopicClient kafka = new TopicClient(BROKER.get().bootstrapServers())) {
            JobClient job = ServingJob.onKafka(config, catalog).start(StreamExecutionEnvironment.getExecutionEnvironment());
            try {
                // MLP requests go to the device one by one, at once.
                ControlDecision mlpAtOnce = ControlDecision.newBuilder()
                        .setVersion(1).setIssuedAtMicros(WallClock.nowMicros()).setIssuedBy("test")
                        .setAction(SetPolicy.newBuilder().setGroup("default").setModel("mlp").setPolicy("triton")
                                .setParams(Map.of("max_batch", "1", "max_queue_delay_ms", "0")).build())
                        .build();
                kafka.send(config.controlTopic, ControlDecision.class, mlpAtOnce);
                kafka.flush();
                Thread.sleep(1_500); // the control stream is independent of the requests; give it time to arrive

                int big = 768;
                for (int i = 0; i < big; i++) kafka.send(config.requestsTopic, InferenceRequest.class, request("big-" + i, "resnet", image, List.of(3L, 32L, 32L)));
                kafka.flush();
                // A trickle of MLP requests, many of which the scheduler sends while the big batch is on the device.
                int trickle = 400; // 8 s: beyond the big batch's natural end
                for (int i = 0; i < trickle; i++) {
                    send(kafka, config, request("mlp-" + i, "mlp", new float[64], List.of(64L)));
                    Thread.sleep(20);
                }
                List<InferenceResult> results = kafka.readUntil(config.resultsTopic, InferenceResult.class, l -> l.size() >= big + trickle, Duration.ofSeconds(60));
                assertThat(results).hasSize(big + trickle);
                List<InferenceResult> bigBatch = results.stream().filter(r -> r.getRequestId().startsWith("big-") && r.getBatchSize() >= 256).toList();
                assertThat(bigBatch).as("a batch of hundreds, over a second's work").isNotEmpty().allSatisfy(r -> {
                    assertThat(r.getStatus()).isEqualTo(ResultStatus.FAILED);
                    assertThat(r.getReason()).contains("timed out on device 0 after");
                });
                // After the timeout the device waits only for ONNX Runtime to stop the big batch
                // before its next operator (one operator of a batch of 768 takes a fair share of a
                // second), not for the rest of its run: the next batch it runs, an MLP request of
                // the trickle, starts soon after; without the cancel it would start when the run
                // ends, (fullRun - timeout) later. The bound leaves room for one large operator on
                // a busy machine: two thirds of the rest of the run have been seen (860 of 1,281 ms),
                // and the full run is measured apart, under another moment's load. (MLP requests
                // handed over long before the timeout time out themselves.)
                long timedOutAt = bigBatch.get(0).getTimings().getExecEnd();
                long firstStartAfter = results.stream()
                        .filter(r -> r.getStatus() == ResultStatus.OK && r.getTimings().getExecStart() >= timedOutAt)
                        .mapToLong(r -> r.getTimings().getExecStart()).min()
                        .orElseThrow(() -> new AssertionError("no batch ran after the big batch timed out"));
                long fullRun = fullRunMicros(repo, big);
                assertThat(firstStartAfter - timedOutAt).as("device free after the timeout (full run %d us)", fullRun)
                        .isLessThan((fullRun - TIMEOUT_MS * 1000) * 9 / 10);
            } finally {
                job.cancel().get();
            }
        }
    }

    @Test
    void flexPreemptsOnTheDeviceAndEveryRequestGetsExactlyOneResult() throws Exception {
        // The ResNet allows batches of 1, 400 and 420, and its manifest claims that every batch
        // takes 5 s more than it does: the scheduler believes a batch runs long after the device
        // has finished it. Flex with lambda 1.05 preempts a batch of 1 for 400, and 400 for 420.
        // The job runs open-loop, so that the devices' reports do not correct that belief.
        Path repo = repositoryWithResNet("onnx-it-preemption-models", "[1, 400, 420]", 1.4, 5000);
        ServingConfig config = TestConfigs.onBroker(BROKER.get(), "onnx-it-preemption-", c -> {
            c.closedLoop = false;
            c.devices = 1;
            c.policy = "flex";
            c.policyParams = Map.of("lambda", "1.05");
            c.intraOpThreads = 1;
            c.modelRepository = repo.toString();
        });
        ModelCatalog catalog = ServeCommand.catalog(config);
        float[] image = new float[3 * 32 * 32];
        int n = 420;
        try (TopicClient kafka = new TopicClient(BROKER.get().bootstrapServers())) {
            JobClient job = ServingJob.onKafka(config, catalog).start(StreamExecutionEnvironment.getExecutionEnvironment());
            try {
                // r0 runs alone; its result is back long before the 5 s the scheduler books for it.
                send(kafka, config, withSlo(request("r0", "resnet", image, List.of(3L, 32L, 32L)), 30_000));
                kafka.readUntil(config.resultsTopic, InferenceResult.class, l -> l.size() >= 1, Duration.ofSeconds(60));
                // The rest at once. At r399 the candidate is 400 (r0 counted in): r0's batch is
                // preempted, after it completed (TOO_LATE). r400 to r419 arrive while the batch of
                // 400 really runs (0.6 s; the job ingests these 12 KB requests at 300 a second or
                // more): it is preempted in time (CANCELLED) for all 420, r0 again among them.
                for (int i = 1; i < n; i++) {
                    InferenceRequest r = withSlo(request("r" + i, "resnet", image, List.of(3L, 32L, 32L)), 30_000);
                    r.setSentAtMicros(WallClock.nowMicros());
                    kafka.send(config.requestsTopic, InferenceRequest.class, r);
                }
                kafka.flush();
                kafka.readUntil(config.resultsTopic, InferenceResult.class, l -> l.size() >= n, Duration.ofSeconds(60));
                Thread.sleep(2_000); // room for a duplicate to show up
                List<InferenceResult> results = kafka.readUntil(config.resultsTopic, InferenceResult.class, l -> false, Duration.ofSeconds(3));

                assertThat(results).as("one result per request").hasSize(n)
                        .extracting(InferenceResult::getRequestId).doesNotHaveDuplicates();
                assertThat(results).allSatisfy(r -> assertThat(r.getStatus()).as(r.getRequestId() + ": " + r.getReason()).isEqualTo(ResultStatus.OK));
                // r0 keeps the result of its first batch, which had completed; its run in the batch of 420 is discarded.
                Map<String, Integer> batchOf = results.stream().collect(Collectors.toMap(InferenceResult::getRequestId, InferenceResult::getBatchSize));
                assertThat(batchOf.get("r0")).isEqualTo(1);
                assertThat(batchOf).allSatisfy((id, size) -> { if (!id.equals("r0")) assertThat(size).as(id).isEqualTo(n); });

                List<BatchTelemetry> telemetry = kafka.readUntil(config.telemetryTopic, BatchTelemetry.class, l -> l.size() >= 4, Duration.ofSeconds(30));
                assertThat(telemetry).extracting(BatchTelemetry::getPreemption, BatchTelemetry::getBatchSize).containsExactly(
                        tuple(null, 1),                      // r0
                        tuple(Preemption.TOO_LATE, 1),       // r0's batch, preempted after it completed
                        tuple(Preemption.CANCELLED, 400),    // withdrawn from the device while it ran
                        tuple(null, n));
            } finally {
                job.cancel().get();
            }
        }
    }

    /** A copy of the example repository whose ResNet manifest says other batch sizes and latencies than the truth. */
    private static Path repositoryWithResNet(String dir, String batchSizes, double alphaMs, double betaMs) throws Exception {
        Path repo = ExampleModels.writeRepository(Path.of("target", dir).toAbsolutePath());
        Path manifest = repo.resolve("resnet/model.json");
        Files.writeString(manifest, Files.readString(manifest)
                .replaceAll("\"batch_sizes\": \\[[^\\]]*\\]", "\"batch_sizes\": " + batchSizes)
                .replaceAll("\"latency_ms\": \\{[^}]*}", "\"latency_ms\": {\"alpha\": " + alphaMs + ", \"beta\": " + betaMs + "}"));
        return repo;
    }

    private static InferenceRequest withSlo(InferenceRequest r, double sloMs) {
        r.setSloMs(sloMs);
        return r;
    }

    @Test
    void aPlacementDecisionLoadsTheModelsItPutsOnADeviceBeforeTheirFirstRequest() throws Exception {
        ServingConfig config = TestConfigs.onBroker(BROKER.get(), "onnx-it-placement-", c -> {
            c.devices = 1;
            c.policy = "triton";
            c.policyParams = Map.of("max_batch", "16", "max_queue_delay_ms", "5");
            c.intraOpThreads = 1;
            c.modelRepository = repository.toString();
            c.warmUp = false; // the MLP's first request loads it
        });
        ModelCatalog catalog = ServeCommand.catalog(config);
        try (TopicClient kafka = new TopicClient(BROKER.get().bootstrapServers())) {
            JobClient job = ServingJob.onKafka(config, catalog).start(StreamExecutionEnvironment.getExecutionEnvironment());
            try {
                // The group's first request: the MLP loads on demand.
                send(kafka, config, request("mlp-first", "mlp", new float[64], List.of(64L)));
                List<InferenceResult> first = kafka.readUntil(config.resultsTopic, InferenceResult.class, l -> l.size() >= 1, Duration.ofSeconds(60));
                assertThat(first).extracting(InferenceResult::getStatus, InferenceResult::getColdStart).containsExactly(tuple(ResultStatus.OK, true));

                // Device 0 now serves the MLP and the CNN: the CNN is loaded on the decision, not on its first request.
                ControlDecision placement = ControlDecision.newBuilder()
                        .setVersion(1).setIssuedAtMicros(WallClock.nowMicros()).setIssuedBy("test")
                        .setAction(SetPlacement.newBuilder().setGroup("default").setDevices(List.of(
                                DevicePlacement.newBuilder().setDevice(0).setModels(List.of("mlp", "cnn")).build())).build())
                        .build();
                kafka.send(config.controlTopic, ControlDecision.class, placement);
                kafka.flush();
                Thread.sleep(1_500); // the control stream is independent of the requests; give it time to arrive

                send(kafka, config, request("cnn-first", "cnn", new float[3 * 32 * 32], List.of(3L, 32L, 32L)));
                InferenceResult cnn = kafka.readUntil(config.resultsTopic, InferenceResult.class, l -> l.size() >= 2, Duration.ofSeconds(60))
                        .stream().filter(r -> r.getRequestId().equals("cnn-first")).findFirst().orElseThrow();
                assertThat(cnn.getStatus()).as(cnn.getReason()).isEqualTo(ResultStatus.OK);
                assertThat(cnn.getColdStart()).as("the CNN's first request found it loaded").isFalse();
            } finally {
                job.cancel().get();
            }
        }
    }

    /** How long a batch of {@code n} ResNet images takes on a device of its own, loaded and idle. */
    private static long fullRunMicros(Path repo, int n) throws Exception {
        try (OnnxDevice device = new OnnxDevice(0, ModelRepository.readManifests(repo), new OnnxDevice.Options(1L << 30, 1, -1), WallClock::nowMicros)) {
            Tensor image = request("x", "resnet", new float[3 * 32 * 32], List.of(3L, 32L, 32L)).getInput();
            device.execute("resnet", 1, List.of(image)).get(60, TimeUnit.SECONDS);
            Device.Execution e = device.execute("resnet", n, Collections.nCopies(n, image)).get(60, TimeUnit.SECONDS);
            assertThat(e.error()).isNull();
            return e.endMicros() - e.startMicros();
        }
    }

    private static void send(TopicClient kafka, ServingConfig config, InferenceRequest r) {
        r.setSentAtMicros(WallClock.nowMicros());
        kafka.send(config.requestsTopic, InferenceRequest.class, r);
        kafka.flush();
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
