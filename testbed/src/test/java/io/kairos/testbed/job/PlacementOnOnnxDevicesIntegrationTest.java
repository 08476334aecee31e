package io.kairos.testbed.job;

import io.kairos.control.status.DeviceLoads;
import io.kairos.control.status.ServingStatus;
import io.kairos.control.status.StatusPage;
import io.kairos.control.status.StatusSnapshot;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.plan.ServingPlan;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.core.time.WallClock;
import io.kairos.jobs.ServeCommand;
import io.kairos.jobs.ServingJob;
import io.kairos.jobs.config.ServingConfig;
import io.kairos.onnx.examples.ExampleModels;
import io.kairos.schema.BatchTelemetry;
import io.kairos.schema.DType;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.ResultStatus;
import io.kairos.schema.Tensor;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

/**
 * Model-aware placement on real ONNX Runtime devices: the serving job on a broker and a Flink
 * mini-cluster, two CPU devices, no warm-up, serving two generated example models whose loads
 * differ tenfold (the MLP's manifest says 1 ms, the ResNet's 10 ms; the profiler measures
 * 0.4 and 5.5 ms). The same sequence of requests, one at a time, runs under {@code default} and
 * under {@code colocation}, each loading a model once, and the cold starts are counted where an operator sees them: the
 * batches' telemetry, the status page built on it, and the Flink metric {@code coldStarts} per
 * model as Prometheus scrapes it.
 */
class PlacementOnOnnxDevicesIntegrationTest {

    private static final int PORT = PrometheusMiniCluster.freePort();
    private static final String PREFIX = PrometheusMiniCluster.PREFIX;
    /** Requests of each model, one at a time: 3 MLP requests, then 3 ResNet ones. */
    private static final int EACH = 3;

    @RegisterExtension
    static final MiniClusterExtension FLINK = PrometheusMiniCluster.extension(PORT, 2);

    @RegisterExtension
    static final BrokerForClass BROKER = new BrokerForClass();
    private static Path repository;

    @BeforeAll
    static void writeModels() {
        repository = ExampleModels.writeRepository(Path.of("target", "onnx-placement-models").toAbsolutePath());
    }

    private record Run(List<InferenceResult> results, Map<String, Long> telemetryColdStarts, Map<String, Long> metricColdStarts, String statusPage) {}

    @Test
    void colocationAndKairosDefaultLoadEachModelOnce() throws Exception {
        // default: Kairos' default placement sends no batch to a device that does not hold its
        // model while another device does (more copies are the load planner's, from demand, and
        // one request at a time asks for none): each model loads once, on the device idle longest
        // at its first request, as under colocation. (The thesis' model-unaware default, which
        // loaded each model on both devices here, is a baseline of the simulated placement
        // experiment now.)
        Run kairosDefault = run("default", "onnx-placement-default-");
        // colocation: a request goes to the device that holds its model, idle and able to start it
        // at once; only each model's first load, where no device holds it, is a cold start: 2.
        Run colocated = run("colocation", "onnx-placement-colocation-");

        for (Run r : List.of(kairosDefault, colocated)) {
            assertThat(r.results()).hasSize(2 * EACH)
                    .allSatisfy(x -> assertThat(x.getStatus()).as(x.getRequestId() + " " + x.getReason()).isEqualTo(ResultStatus.OK));
            assertThat(r.telemetryColdStarts().keySet()).extracting(k -> k.substring(0, k.indexOf('@'))).containsExactly("mlp", "resnet");
            assertThat(r.telemetryColdStarts()).allSatisfy((k, v) -> assertThat(v).isEqualTo(1L));
            assertThat(r.telemetryColdStarts().keySet()).extracting(k -> k.substring(k.indexOf('@') + 1)).containsExactlyInAnyOrder("0", "1");
            // The results say so too: a request in a batch that loaded its model is flagged.
            assertThat(r.results().stream().filter(InferenceResult::getColdStart).count()).isEqualTo(2);
            // Flink's metric, per model (summed over the devices), as Prometheus scrapes it.
            assertThat(r.metricColdStarts()).containsOnly(entry("mlp", 1L), entry("resnet", 1L));
            // The status page's devices table, from the same telemetry: each model's one load fell
            // on the device idle longest at its first request: the MLP's on one, the ResNet's on the other.
            assertThat(r.statusPage()).contains("<td class=\"n\">1 (mlp 1)</td>", "<td class=\"n\">1 (resnet 1)</td>");
        }
    }

    private static Run run(String placement, String prefix) throws Exception {
        ServingConfig config = TestConfigs.onBroker(BROKER.get(), prefix, c -> {
            c.policy = "fifo";
            c.policyParams = Map.of("placement", placement);
            c.intraOpThreads = 1;
            c.modelRepository = repository.toString();
            c.warmUp = false; // models load on their first batches on each device: the cold starts counted here
        });
        assertThat(config.devices).isEqualTo(2);
        ModelCatalog catalog = ServeCommand.catalog(config);
        assertThat(catalog.get("resnet").loadMicros()).isEqualTo(10 * catalog.get("mlp").loadMicros());
        ServingStatus status = new ServingStatus(new ServingStatus.Topics(config.controlTopic, config.outcomesTopic,
                config.resultsTopic, config.telemetryTopic), new ServingPlan(2, "fifo", PolicyParams.NONE), WallClock.nowMicros(), 600, 10);
        try (TopicClient kafka = new TopicClient(BROKER.get().bootstrapServers())) {
            JobClient job = ServingJob.onKafka(config, catalog).start(StreamExecutionEnvironment.getExecutionEnvironment());
            try {
                // One at a time: each request is sent once the one before has its result.
                for (int i = 0; i < 2 * EACH; i++) {
                    boolean mlp = i < EACH;
                    InferenceRequest r = mlp ? request("mlp-" + i, "mlp", 64 * 4, List.of(64L)) : request("resnet-" + i, "resnet", 3 * 32 * 32 * 4, List.of(3L, 32L, 32L));
                    kafka.send(config.requestsTopic, InferenceRequest.class, r);
                    kafka.flush();
                    int seen = i + 1;
                    kafka.readUntil(config.resultsTopic, InferenceResult.class, l -> l.size() >= seen, Duration.ofSeconds(60));
                }
                List<InferenceResult> results = kafka.readUntil(config.resultsTopic, InferenceResult.class, l -> l.size() >= 2 * EACH, Duration.ofSeconds(10));
                List<BatchTelemetry> telemetry = kafka.readUntil(config.telemetryTopic, BatchTelemetry.class,
                        l -> l.stream().mapToInt(BatchTelemetry::getBatchSize).sum() >= 2 * EACH, Duration.ofSeconds(30));
                Map<String, Long> cold = new TreeMap<>();
                long now = WallClock.nowMicros();
                for (BatchTelemetry t : telemetry) {
                    if (t.getColdStart()) cold.merge(t.getModel() + "@" + t.getDevice(), 1L, Long::sum);
                    status.batch(t, now);
                }
                StatusSnapshot snapshot = status.snapshot(now);
                assertThat(snapshot.devices().stream().mapToLong(DeviceLoads.Load::coldStarts).sum()).isEqualTo(cold.size());
                return new Run(results, cold, metricColdStarts(job.getJobID().toString(), cold.size()), StatusPage.html(snapshot));
            } finally {
                job.cancel().get();
            }
        }
    }

    /** The per-model {@code coldStarts} of the job, summed over its devices, once all {@code expected} are counted (or 20 s). */
    private static Map<String, Long> metricColdStarts(String jobId, long expected) throws Exception {
        // ..._kairos_model_coldStarts{job_id="...",model="mlp",subtask_index="0",...} 1.0
        Pattern line = Pattern.compile("(?m)^" + PREFIX + "model_coldStarts\\{([^}]*)\\} ([0-9.eE+-]+)$");
        Pattern model = Pattern.compile("(?:^|,)model=\"([^\"]*)\"");
        Map<String, Long> byModel = new TreeMap<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        do {
            byModel.clear();
            Matcher m = line.matcher(scrape());
            while (m.find()) {
                if (!m.group(1).contains("job_id=\"" + jobId + "\"")) continue;
                Matcher name = model.matcher(m.group(1));
                if (name.find()) byModel.merge(name.group(1), (long) Double.parseDouble(m.group(2)), Long::sum);
            }
            // The counters are read when scraped; the last batch's may be a moment behind its result.
            if (byModel.values().stream().mapToLong(Long::longValue).sum() >= expected) return byModel;
            Thread.sleep(200);
        } while (System.nanoTime() < deadline);
        return byModel;
    }

    private static String scrape() throws Exception {
        return PrometheusMiniCluster.scrape(PORT);
    }

    private static InferenceRequest request(String id, String model, int bytes, List<Long> shape) {
        return InferenceRequest.newBuilder()
                .setRequestId(id).setTenant("test").setModel(model)
                .setInput(Tensor.newBuilder().setDtype(DType.FLOAT32).setShape(shape).setData(ByteBuffer.allocate(bytes)).build())
                .setSentAtMicros(WallClock.nowMicros())
                .setSloMs(10_000)
                .build();
    }

}
