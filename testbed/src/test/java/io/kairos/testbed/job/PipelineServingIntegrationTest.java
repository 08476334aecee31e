package io.kairos.testbed.job;

import io.kairos.control.DecisionPublisher;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.pipeline.PipelineSpec;
import io.kairos.core.time.WallClock;
import io.kairos.jobs.ServeCommand;
import io.kairos.jobs.ServingJob;
import io.kairos.jobs.config.ServingConfig;
import io.kairos.onnx.examples.ExampleModels;
import io.kairos.schema.DType;
import io.kairos.schema.DecisionOutcome;
import io.kairos.schema.DecisionStatus;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.ResultStatus;
import io.kairos.schema.StageResult;
import io.kairos.schema.StageTimes;
import io.kairos.schema.Tensor;
import io.kairos.schema.internal.PipelineHop;
import io.kairos.testbed.CliRun;
import io.kairos.wire.plan.PipelineActions;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Pipelines of real ONNX models served end to end by the job on a real broker: three pipelines
 * published as decisions (one through {@code kairos control pipeline}), requests sent into them,
 * and exactly one final result per request, with every stage it went through and the output of
 * the models' maths in plain Java, stage after stage; a bad spec rejected with its reason, a
 * request naming no pipeline the job serves rejected, and one whose input does not fit its
 * entry stage rejected naming the stage.
 */
class PipelineServingIntegrationTest {

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(
            new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).build());

    @RegisterExtension
    static final BrokerForClass BROKER = new BrokerForClass();

    private static final ExampleModels.Preprocess PREPROCESS = ExampleModels.Preprocess.CIFAR;
    private static final ExampleModels.Cnn CNN = ExampleModels.Cnn.seeded(ExampleModels.SEED + 1);
    private static final ExampleModels.Classifier CLASSIFIER = ExampleModels.Classifier.seeded(ExampleModels.SEED + 3);
    private static final ExampleModels.Rerank RERANK = ExampleModels.Rerank.seeded(ExampleModels.SEED + 4);
    private static final int PER_PIPELINE = 10;

    /** A request of a pipeline and what its final result must hold: the stages it goes through, and its output by the plain-Java maths. */
    private record Expected(List<String> stages, float[] output) {}

    @Test
    void eachPipelineRequestGetsOneFinalResultWithEveryStageAndTheModelsOutputs() throws Exception {
        Path repository = ExampleModels.writePipelineRepository(Path.of("target", "pipeline-it-models").toAbsolutePath());
        ServingConfig config = TestConfigs.onBroker(BROKER.get(), "pipeline-it-", c -> {
            c.modelRepository = repository.toString();
            c.intraOpThreads = 1;
        });
        ModelCatalog catalog = ServeCommand.catalog(config);
        Random random = new Random(5);

        // Inputs and expected outputs first (the plain-Java CNN takes milliseconds an image).
        Map<String, InferenceRequest> requests = new java.util.LinkedHashMap<>();
        Map<String, Expected> expected = new HashMap<>();
        for (int i = 0; i < PER_PIPELINE; i++) {
            float[] pixels = pixels(random);
            String id = "image-" + i;
            requests.put(id, request(id, "image", "", pixels));
            expected.put(id, new Expected(List.of("pre", "cnn"), CNN.forward(PREPROCESS.forward(pixels))));
        }
        for (int i = 0; i < PER_PIPELINE; i++) {
            float[] pixels = pixels(random);
            String id = "chain-" + i;
            requests.put(id, request(id, "chain", "preprocess", pixels)); // naming the entry stage's model is fine too
            expected.put(id, new Expected(List.of("pre", "classify", "rerank"), RERANK.forward(CLASSIFIER.forward(PREPROCESS.forward(pixels)))));
        }
        // The cascade: the classifier's top probability decides. The threshold sits in the widest gap
        // between the tops near their median, so that about half go on to rerank, none on the edge.
        List<float[]> images = new ArrayList<>();
        float[] tops = new float[PER_PIPELINE];
        for (int i = 0; i < PER_PIPELINE; i++) {
            images.add(PREPROCESS.forward(pixels(random)));
            tops[i] = max(CLASSIFIER.forward(images.get(i)));
        }
        double threshold = threshold(tops);
        for (int i = 0; i < PER_PIPELINE; i++) {
            String id = "cascade-" + i;
            requests.put(id, request(id, "cascade", "", images.get(i)));
            float[] fast = CLASSIFIER.forward(images.get(i));
            // The slow model reads the image the fast one read (the stage's input is the request's), not its probabilities.
            expected.put(id, tops[i] < threshold ? new Expected(List.of("fast", "slow"), CNN.forward(images.get(i))) : new Expected(List.of("fast"), fast));
        }
        long slowOnes = expected.entrySet().stream().filter(e -> e.getKey().startsWith("cascade") && e.getValue().stages().size() == 2).count();
        assertThat(slowOnes).as("the cascade takes both ways").isBetween(1L, PER_PIPELINE - 1L);

        Path chainSpec = Files.writeString(Path.of("target", "pipeline-it-chain.json"), """
                {"pipeline": "chain", "slo_p99_ms": 50,
                 "stages": [{"name": "pre", "model": "preprocess"}, {"name": "classify", "model": "classifier", "budget_ms": 5000},
                            {"name": "rerank", "model": "rerank"}],
                 "edges": [{"from": "pre", "to": "classify", "probability": 1}, {"from": "classify", "to": "rerank", "probability": 1}]}""");
        PipelineSpec image = PipelineSpec.parse("""
                {"pipeline": "image", "slo_p99_ms": 50, "stages": [{"name": "pre", "model": "preprocess"}, {"name": "cnn", "model": "cnn"}],
                 "edges": [{"from": "pre", "to": "cnn", "probability": 1}]}""", "image");
        PipelineSpec cascade = PipelineSpec.parse("""
                {"pipeline": "cascade", "slo_p99_ms": 50, "stages": [{"name": "fast", "model": "classifier"}, {"name": "slow", "model": "cnn", "input": "request"}],
                 "edges": [{"from": "fast", "to": "slow", "probability": 0.5, "when": {"output_max_below": %s}}]}""".formatted(threshold), "cascade");

        try (TopicClient kafka = new TopicClient(BROKER.get().bootstrapServers());
             DecisionPublisher user = new DecisionPublisher(config.bootstrapServers, config.controlTopic, config.outcomesTopic, "test-user")) {
            JobClient job = start(config, catalog);
            try {
                assertThat(decide(user, PipelineActions.action(image)).getStatus()).isEqualTo(DecisionStatus.APPLIED);
                assertThat(decide(user, PipelineActions.action(cascade)).getStatus()).isEqualTo(DecisionStatus.APPLIED);
                CliRun published = CliRun.job("control", "pipeline", "--bootstrap-servers", config.bootstrapServers, "--control-topic", config.controlTopic,
                        "--outcomes-topic", config.outcomesTopic, "--spec", chainSpec.toString());
                assertThat(published.code()).as(published.err()).isZero();
                assertThat(published.out()).startsWith("applied pipeline/chain (kairos-control/");

                // A spec the job cannot serve: a model it lacks. The job says why.
                PipelineSpec unknown = new PipelineSpec("bad", 50_000, List.of(new io.kairos.core.pipeline.Stage("a", "vgg")), List.of());
                DecisionOutcome bad = decide(user, PipelineActions.action(unknown));
                assertThat(bad.getStatus()).isEqualTo(DecisionStatus.REJECTED);
                assertThat(bad.getReason()).isEqualTo("pipeline 'bad': field 'stages[0].model': the job serves no model 'vgg'; it serves "
                        + catalog.names());

                for (InferenceRequest r : requests.values()) {
                    r.setSentAtMicros(WallClock.nowMicros());
                    kafka.send(config.requestsTopic, InferenceRequest.class, r);
                }
                InferenceRequest nowhere = request("nowhere", "nope", "", new float[3 * 32 * 32]);
                InferenceRequest wrongModel = request("wrong-model", "image", "cnn", new float[3 * 32 * 32]);
                InferenceRequest wrongShape = request("wrong-shape", "image", "", new float[64]);
                wrongShape.getInput().setShape(List.of(64L));
                for (InferenceRequest r : List.of(nowhere, wrongModel, wrongShape)) {
                    r.setSentAtMicros(WallClock.nowMicros());
                    kafka.send(config.requestsTopic, InferenceRequest.class, r);
                }
                kafka.flush();

                int all = requests.size() + 3;
                List<InferenceResult> results = kafka.readUntil(config.resultsTopic, InferenceResult.class, l -> l.size() >= all, Duration.ofSeconds(60));
                // Anything more would come within the hops' round trip: a moment longer shows there is none.
                results = kafka.readUntil(config.resultsTopic, InferenceResult.class, l -> l.size() > all, Duration.ofSeconds(2));
                assertThat(results).hasSize(all);
                Map<String, InferenceResult> byId = results.stream().collect(Collectors.toMap(InferenceResult::getRequestId, Function.identity()));
                assertThat(byId).hasSize(all);

                assertThat(byId.get("nowhere").getStatus()).isEqualTo(ResultStatus.REJECTED);
                assertThat(byId.get("nowhere").getReason()).isEqualTo("pipeline_id 'nope' names no pipeline the job serves; it serves [cascade, chain, image]");
                assertThat(byId.get("wrong-model").getReason())
                        .isEqualTo("model 'cnn' is not the model of pipeline 'image''s entry stage 'pre' ('preprocess'): leave it empty or name that model");
                InferenceResult misfit = byId.get("wrong-shape");
                assertThat(misfit.getStatus()).isEqualTo(ResultStatus.REJECTED);
                assertThat(misfit.getReason()).isEqualTo("stage 'pre': input shape [64] does not match model 'preprocess', which takes FLOAT32[3, 32, 32]");
                assertThat(misfit.getStages()).extracting(StageResult::getStage, StageResult::getStatus)
                        .containsExactly(org.assertj.core.groups.Tuple.tuple("pre", ResultStatus.REJECTED));

                for (Map.Entry<String, Expected> e : expected.entrySet()) {
                    InferenceResult r = byId.get(e.getKey());
                    Expected want = e.getValue();
                    assertThat(r.getStatus()).as(r.getRequestId() + ": " + r.getReason()).isEqualTo(ResultStatus.OK);
                    assertThat(r.getPipelineId()).isEqualTo(requests.get(e.getKey()).getPipelineId());
                    assertThat(r.getStages()).extracting(StageResult::getStage).as(r.getRequestId()).containsExactlyElementsOf(want.stages());
                    assertThat(r.getStage()).as("the index of the last stage").isEqualTo(want.stages().size() - 1);
                    float[] actual = floats(r.getOutput());
                    assertThat(actual).hasSameSizeAs(want.output());
                    for (int j = 0; j < actual.length; j++) {
                        assertThat(actual[j]).as("%s output %d", r.getRequestId(), j).isCloseTo(want.output()[j], within(1e-3f * Math.max(1f, Math.abs(want.output()[j]))));
                    }
                    StageTimes end = r.getTimings();
                    assertThat(end.getDeadline()).isEqualTo(end.getSent() + 10_000_000L);
                    long previousEmitted = end.getSent();
                    for (StageResult s : r.getStages()) {
                        StageTimes t = s.getTimings();
                        assertThat(s.getStatus()).isEqualTo(ResultStatus.OK);
                        assertThat(s.getBatchSize()).isPositive();
                        assertThat(s.getDevice()).isNotNull();
                        assertThat(t.getSent()).as("a stage's request is made when the one before it ends").isEqualTo(previousEmitted);
                        assertThat(t.getIngested()).isNotNull().isGreaterThanOrEqualTo(t.getSent());
                        assertThat(t.getEnqueued()).isNotNull().isGreaterThanOrEqualTo(t.getIngested());
                        assertThat(t.getExecStart()).isNotNull();
                        assertThat(t.getExecEnd()).isNotNull().isGreaterThanOrEqualTo(t.getExecStart());
                        assertThat(t.getEmitted()).isGreaterThanOrEqualTo(t.getExecEnd());
                        previousEmitted = t.getEmitted();
                    }
                    assertThat(r.getStages().get(0).getTimings().getIngested()).isEqualTo(end.getIngested());
                    assertThat(end.getExecEnd()).isEqualTo(r.getStages().get(r.getStages().size() - 1).getTimings().getExecEnd());
                }
                assertThat(byId.get("chain-0").getStages().get(1).getTimings().getDeadline()).as("classify's budget of 5 s from its request")
                        .isEqualTo(byId.get("chain-0").getStages().get(1).getTimings().getSent() + 5_000_000L);

                // Every hop went through the hops topic: one per stage after the first.
                long hops = expected.values().stream().mapToLong(x -> x.stages().size() - 1).sum();
                List<PipelineHop> written = kafka.readUntil(config.pipelineHopsTopic, PipelineHop.class, l -> l.size() >= hops, Duration.ofSeconds(10));
                assertThat(written).hasSize((int) hops);
                // The request's own input travels with the cascade's hops, which a stage reads; with no other pipeline's.
                for (PipelineHop h : written) {
                    String id = h.getRequest().getRequestId();
                    if (id.startsWith("cascade")) assertThat(h.getPipelineInput()).as(id).isEqualTo(requests.get(id).getInput());
                    else assertThat(h.getPipelineInput()).as(id).isNull();
                }
                assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
            } finally {
                job.cancel().get();
            }
        }
    }

    private static float[] pixels(Random random) {
        float[] p = new float[3 * 32 * 32];
        for (int j = 0; j < p.length; j++) p[j] = random.nextInt(256);
        return p;
    }

    private static InferenceRequest request(String id, String pipeline, String model, float[] x) {
        ByteBuffer b = ByteBuffer.allocate(x.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        b.asFloatBuffer().put(x);
        return InferenceRequest.newBuilder().setRequestId(id).setTenant("t").setModel(model).setSentAtMicros(1).setSloMs(10_000)
                .setPipelineId(pipeline)
                .setInput(Tensor.newBuilder().setDtype(DType.FLOAT32).setShape(List.of(3L, 32L, 32L)).setData(b).build())
                .build();
    }

    private static float max(float[] v) {
        float m = Float.NEGATIVE_INFINITY;
        for (float x : v) m = Math.max(m, x);
        return m;
    }

    /** Halfway across the widest gap between sorted values among the middle ones. */
    private static double threshold(float[] values) {
        float[] sorted = values.clone();
        Arrays.sort(sorted);
        int best = sorted.length / 2;
        for (int i = 2; i < sorted.length - 2; i++) {
            if (sorted[i] - sorted[i - 1] > sorted[best] - sorted[best - 1]) best = i;
        }
        assertThat(sorted[best] - sorted[best - 1]).as("a gap far wider than ONNX Runtime's difference from the maths").isGreaterThan(1e-3f);
        return (sorted[best] + (double) sorted[best - 1]) / 2;
    }

    private static float[] floats(Tensor t) {
        ByteBuffer b = t.getData().duplicate().order(ByteOrder.LITTLE_ENDIAN);
        float[] v = new float[b.remaining() / 4];
        b.asFloatBuffer().get(v);
        return v;
    }

    private static DecisionOutcome decide(DecisionPublisher publisher, Object action) {
        return publisher.awaitOutcome(publisher.publish(action), Duration.ofSeconds(30)).orElseThrow(() -> new AssertionError("no outcome for " + action));
    }

    /** Restarts disabled: RUNNING at the end means the job never failed. */
    private static JobClient start(ServingConfig config, ModelCatalog catalog) throws Exception {
        Configuration flink = new Configuration();
        flink.set(RestartStrategyOptions.RESTART_STRATEGY, "disable");
        return ServingJob.onKafka(config, catalog).start(StreamExecutionEnvironment.getExecutionEnvironment(flink));
    }
}
