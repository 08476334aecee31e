package io.kairos.testbed.job;

import io.kairos.control.DecisionPublisher;
import io.kairos.control.inferline.PipelineDecisions;
import io.kairos.control.tuner.StageScale;
import io.kairos.control.tuner.TunerPlan;
import io.kairos.control.tuner.TunerSettings;
import io.kairos.core.device.DeviceSlots;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.pipeline.PipelineSpec;
import io.kairos.jobs.ServingJob;
import io.kairos.jobs.config.ServingConfig;
import io.kairos.jobs.tuner.TunePipelines;
import io.kairos.jobs.tuner.TunerJob;
import io.kairos.schema.AssignGroup;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.DecisionOutcome;
import io.kairos.schema.DecisionStatus;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.ResultStatus;
import io.kairos.wire.plan.PipelineActions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The tuner job beside the serving job on a real broker: a one-stage pipeline planned on one of
 * the job's four devices, for 5 requests/s; traffic at about 40 requests/s makes the tuner place
 * the stage on every device of the pool, the serving job applies the placement (its outcome names
 * the tuner job's writer), and the pipeline's requests are then served on more than one device;
 * back at about 4 requests/s, the tuner gives the devices back after its 15-s quiet time, and no
 * request sent across either change is lost or answered twice.
 */
class TunerJobIntegrationTest {

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(
            new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(1).setNumberSlotsPerTaskManager(6).build());

    @RegisterExtension
    static final BrokerForClass BROKER = new BrokerForClass();

    private static final ModelCatalog CATALOG = ModelCatalog.builtIn();

    @Test
    void aRateStepChangesThePlacementInTheServingJob() throws Exception {
        ServingConfig config = TestConfigs.onBroker(BROKER.get(), "tuner-it-", c -> c.devices = 4);
        DeviceSlots pool = DeviceSlots.of(config.devices, CATALOG);
        String type = pool.typeOf(0);
        PipelineSpec pipeline = PipelineSpec.parse("""
                {"pipeline": "p", "slo_p99_ms": 5000, "stages": [{"name": "a", "model": "mlp"}], "edges": []}""", "p");
        String group = PipelineDecisions.group(pipeline, "a");
        // Planned for 5/s on one device (mu 5/s assumed); one window of 1 s; a tick every 250 ms.
        TunerSettings settings = new TunerSettings(100_000, new long[]{1_000_000}, 1_000_000, 15_000_000, 250_000);
        TunerPlan plan = new TunerPlan("p", List.of(new StageScale("a", group, "mlp", type, 1, 5, 1, 1)), new double[]{5}, settings);

        try (TopicClient kafka = new TopicClient(BROKER.get().bootstrapServers());
             DecisionPublisher planner = new DecisionPublisher(config.bootstrapServers, config.controlTopic, config.outcomesTopic, "planner")) {
            JobClient serving = start(config);
            Configuration flink = new Configuration();
            flink.set(RestartStrategyOptions.RESTART_STRATEGY, "disable");
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(flink);
            env.setParallelism(1); // a slot of its own beside the serving job's
            TunerJob.onKafka(config.bootstrapServers, config.kafkaProperties, config.requestsTopic, config.controlTopic, "tuner-it-tuner")
                    .build(env, new TunePipelines(Map.of("p", plan), pool, Map.of("p", List.of(List.of(0))), "tuner-job"));
            JobClient tuner = env.executeAsync("kairos tuner");
            try {
                // The plan: the stage on device 0, its model routed there, the pipeline.
                for (Object action : List.of(PipelineDecisions.placement(group, "mlp", List.of(0)),
                        AssignGroup.newBuilder().setModel("mlp").setGroup(group).build(), PipelineActions.action(pipeline))) {
                    DecisionOutcome o = planner.awaitOutcome(planner.publish(action), Duration.ofSeconds(60)).orElseThrow();
                    assertThat(o.getStatus()).as(o.getReason()).isEqualTo(DecisionStatus.APPLIED);
                }
                // About 40 requests/s (8 times the plan) until the tuner's placement is applied: the tuner
                // reads the topic from its end, so it sees the traffic from whenever its source started.
                AtomicInteger sent = new AtomicInteger();
                AtomicBoolean stop = new AtomicBoolean();
                Thread load = new Thread(() -> {
                    try (TopicClient producer = new TopicClient(BROKER.get().bootstrapServers())) {
                        while (!stop.get()) {
                            for (int i = 0; i < 10; i++) producer.send(config.requestsTopic, InferenceRequest.class, pipelineRequest("step-" + sent.getAndIncrement()));
                            producer.flush();
                            Thread.sleep(250);
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }, "load");
                load.start();
                List<DecisionOutcome> tuned;
                try {
                    tuned = kafka.readUntil(config.outcomesTopic, DecisionOutcome.class, l -> l.stream().anyMatch(o -> o.getWriter().equals("tuner-job")),
                            Duration.ofSeconds(120)).stream().filter(o -> o.getWriter().equals("tuner-job")).toList();
                } finally {
                    stop.set(true);
                    load.join();
                }
                assertThat(tuned).as("an outcome of the tuner job's decision (tuner job %s, serving job %s)", tuner.getJobStatus().get(),
                        serving.getJobStatus().get()).isNotEmpty();
                assertThat(tuned.get(0).getKey()).isEqualTo("placement/" + group);
                assertThat(tuned.get(0).getStatus()).as(tuned.get(0).getReason()).isEqualTo(DecisionStatus.APPLIED);

                // The pipeline's requests now go to more devices than the planned one.
                for (int i = 0; i < 40; i++) kafka.send(config.requestsTopic, InferenceRequest.class, pipelineRequest("after-" + i));
                kafka.flush();
                List<InferenceResult> after = kafka.readUntil(config.resultsTopic, InferenceResult.class,
                        l -> l.stream().filter(r -> r.getRequestId().startsWith("after-")).count() >= 40, Duration.ofSeconds(60)).stream()
                        .filter(r -> r.getRequestId().startsWith("after-")).toList();
                assertThat(after).hasSize(40).allSatisfy(r -> assertThat(r.getStatus()).as(r.getReason()).isIn(ResultStatus.OK, ResultStatus.LATE));
                Set<Integer> devices = after.stream().map(InferenceResult::getDevice).collect(Collectors.toSet());
                assertThat(devices).hasSizeGreaterThan(1);
                // Every request sent during the step got its one result: none lost while the placement changed.
                int stepped = sent.get();
                List<String> step = kafka.readUntil(config.resultsTopic, InferenceResult.class,
                        l -> l.stream().filter(r -> r.getRequestId().startsWith("step-")).count() >= stepped, Duration.ofSeconds(60)).stream()
                        .map(InferenceResult::getRequestId).filter(id -> id.startsWith("step-")).toList();
                assertThat(step).hasSize(stepped).doesNotHaveDuplicates();

                // Back to about 4/s (one device's worth): 15 s after its change the tuner gives the
                // replicas back (Algorithm 4), the serving job unloads the model from the devices that
                // left the group, and every request sent meanwhile still gets its one result.
                AtomicInteger trickled = new AtomicInteger();
                AtomicBoolean stopTrickle = new AtomicBoolean();
                Thread trickle = new Thread(() -> {
                    try (TopicClient producer = new TopicClient(BROKER.get().bootstrapServers())) {
                        while (!stopTrickle.get()) {
                            producer.send(config.requestsTopic, InferenceRequest.class, pipelineRequest("down-" + trickled.getAndIncrement()));
                            producer.flush();
                            Thread.sleep(250);
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }, "trickle");
                trickle.start();
                List<ControlDecision> tunerDecisions;
                try {
                    // The tuner's decisions: the step's (one, or two where a tick saw part of it), then the one back to a device.
                    tunerDecisions = kafka.readUntil(config.controlTopic, ControlDecision.class,
                            l -> l.stream().anyMatch(d -> d.getIssuedBy().equals("tuner-job") && devicesOf(d) == 1), Duration.ofSeconds(90)).stream()
                            .filter(d -> d.getIssuedBy().equals("tuner-job")).toList();
                    Thread.sleep(1_000); // requests on both sides of the change
                } finally {
                    stopTrickle.set(true);
                    trickle.join();
                }
                int back = 0;
                while (back < tunerDecisions.size() && devicesOf(tunerDecisions.get(back)) != 1) back++;
                assertThat(back).as("a scale-down after the step's decisions %s", tunerDecisions).isBetween(1, tunerDecisions.size() - 1);
                ControlDecision scaledDown = tunerDecisions.get(back);
                assertThat(scaledDown.getIssuedAtMicros() - tunerDecisions.get(back - 1).getIssuedAtMicros()).as("no scale-down within 15 s of the change")
                        .isGreaterThanOrEqualTo(15_000_000);
                DecisionOutcome applied = kafka.readUntil(config.outcomesTopic, DecisionOutcome.class,
                        l -> l.stream().anyMatch(o -> o.getWriter().equals("tuner-job") && o.getVersion() == scaledDown.getVersion()), Duration.ofSeconds(60)).stream()
                        .filter(o -> o.getWriter().equals("tuner-job") && o.getVersion() == scaledDown.getVersion()).findFirst().orElseThrow();
                assertThat(applied.getStatus()).as(applied.getReason()).isEqualTo(DecisionStatus.APPLIED);
                int down = trickled.get();
                List<InferenceResult> downResults = kafka.readUntil(config.resultsTopic, InferenceResult.class,
                        l -> l.stream().filter(r -> r.getRequestId().startsWith("down-")).count() >= down, Duration.ofSeconds(60)).stream()
                        .filter(r -> r.getRequestId().startsWith("down-")).toList();
                assertThat(downResults.stream().map(InferenceResult::getRequestId).toList()).hasSize(down).doesNotHaveDuplicates();
                assertThat(downResults).allSatisfy(r -> assertThat(r.getStatus()).as(r.getReason()).isIn(ResultStatus.OK, ResultStatus.LATE));
                assertThat(serving.getJobStatus().get().isTerminalState()).isFalse();
                assertThat(tuner.getJobStatus().get().isTerminalState()).isFalse();
            } finally {
                tuner.cancel();
                serving.cancel();
            }
        }
    }

    /** How many devices a tuner's placement gives its stage. */
    private static int devicesOf(ControlDecision d) {
        return d.getAction() instanceof io.kairos.schema.SetPlacement p ? p.getDevices().size() : -1;
    }

    private static InferenceRequest pipelineRequest(String id) {
        InferenceRequest r = ServingJobIntegrationTest.request(id, "mlp", 5_000);
        r.setPipelineId("p");
        return r;
    }

    /** Restarts disabled: a failure ends the job. */
    private static JobClient start(ServingConfig config) throws Exception {
        Configuration flink = new Configuration();
        flink.set(RestartStrategyOptions.RESTART_STRATEGY, "disable");
        return ServingJob.onKafka(config, CATALOG).start(StreamExecutionEnvironment.getExecutionEnvironment(flink));
    }
}
