package io.kairos.testbed.job;

import io.kairos.testbed.CliRun;
import io.kairos.control.DecisionPublisher;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.scheduling.BatchingTable;
import io.kairos.jobs.config.ServingConfig;
import io.kairos.jobs.ServingJob;
import io.kairos.schema.BatchTelemetry;
import io.kairos.schema.DecisionOutcome;
import io.kairos.schema.DecisionStatus;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.ResultStatus;
import io.kairos.schema.SetBatchingTable;
import io.kairos.schema.SetPolicy;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code smdp} policy in the real job: a control decision switches the default group to
 * {@code smdp}, another delivers googlenet's batching table, and the batches in telemetry follow
 * the table; {@code kairos plan smdp} publishes a solved table the job applies; a bad table is
 * rejected with its reason on the outcomes topic; and the deadline guard serves what the table
 * would leave waiting past its deadline.
 */
class SmdpPolicyIntegrationTest {

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(
            new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4).build());

    private static final ModelCatalog CATALOG = ModelCatalog.builtIn();
    @RegisterExtension
    static final BrokerForClass BROKER = new BrokerForClass();

    @Test
    void aControlDecisionSwitchesAModelToItsTableAndTheBatchesFollowIt() throws Exception {
        // One device: the group serves googlenet on it, as the paper's single server does.
        ServingConfig config = TestConfigs.onBroker(BROKER.get(), "smdp-", c -> c.devices = 1);
        try (TopicClient kafka = new TopicClient(BROKER.get().bootstrapServers());
             DecisionPublisher solver = new DecisionPublisher(config.bootstrapServers, config.controlTopic, config.outcomesTopic, "test-solver")) {
            JobClient job = start(config);
            try {
                serve(kafka, config, "warm-up-", "mlp", 1, 120_000, 0);

                // kairos plan smdp solves googlenet's table and the job applies it.
                CliRun plan = CliRun.job("plan", "smdp", "--bootstrap-servers", BROKER.get().bootstrapServers(), "--control-topic", config.controlTopic,
                        "--outcomes-topic", config.outcomesTopic, "--model", "googlenet", "--rate", "2000", "--w2", "1");
                assertThat(plan.code()).as(plan.err()).isZero();
                assertThat(plan.out()).contains("table: 0-7:wait").contains("applied batching/default/googlenet (kairos-plan-smdp/");

                // A table for a model the job does not serve: rejected, with the reason on the outcomes topic.
                DecisionOutcome bad = decide(solver, table("nosuch", BatchingTable.staticBatch(4, 8)));
                assertThat(bad.getStatus()).isEqualTo(DecisionStatus.REJECTED);
                assertThat(bad.getReason()).startsWith("batching table of model 'nosuch' in serving group 'default': the job serves no model 'nosuch'");

                // Static 16, then the group to smdp with the guard on, 50 ms ahead of the latest start
                // for the hand-over to the device and the timer (generous: the test machine is shared).
                assertThat(decide(solver, table("googlenet", BatchingTable.staticBatch(16, 32))).getStatus()).isEqualTo(DecisionStatus.APPLIED);
                assertThat(decide(solver, SetPolicy.newBuilder().setGroup("default").setPolicy("smdp").setParams(Map.of("guard_margin_ms", "50")).build())
                        .getStatus()).isEqualTo(DecisionStatus.APPLIED);
                CliRun show = CliRun.job("control", "show", "--bootstrap-servers", BROKER.get().bootstrapServers(), "--control-topic", config.controlTopic, "--devices", "1");
                assertThat(show.code()).as(show.err()).isZero();
                assertThat(show.out()).contains("group default: policy smdp {guard_margin_ms=50}")
                        .contains("  batching table of googlenet: 0-15:wait 16-32:16 S_o:16 (solved for 1000 requests/s, w1 1, w2 0)");

                // 64 requests, one every 2 ms or so, all with a minute to go: only batches of 16, whatever the timing.
                List<InferenceResult> steady = serve(kafka, config, "steady-", "googlenet", 64, 60_000, 2);
                assertThat(steady).hasSize(64).allSatisfy(r -> assertThat(r.getStatus()).as(r.getReason()).isEqualTo(ResultStatus.OK));
                assertThat(steady).extracting(InferenceResult::getBatchSize).containsOnly(16);
                List<BatchTelemetry> batches = googlenetBatches(kafka, config, 64);
                assertThat(batches).hasSize(4).extracting(BatchTelemetry::getBatchSize).containsOnly(16);
                // The group's estimate of googlenet's arrival rate rides on each batch's telemetry,
                // and kairos plan smdp solves for it when not given a rate.
                assertThat(batches).allSatisfy(b -> assertThat(b.getArrivalRatePerS()).isNotNull().isPositive());
                BatchTelemetry last = batches.stream().max(java.util.Comparator.comparingLong(BatchTelemetry::getDispatchedAtMicros)).orElseThrow();
                CliRun fromTelemetry = CliRun.job("plan", "smdp", "--bootstrap-servers", BROKER.get().bootstrapServers(), "--telemetry-topic", config.telemetryTopic,
                        "--model", "googlenet", "--dry-run");
                assertThat(fromTelemetry.code()).as(fromTelemetry.err()).isZero();
                assertThat(fromTelemetry.out()).contains(String.format(java.util.Locale.ROOT, "rate %.6g requests/s: the job's estimate on batch %s in %s",
                        last.getArrivalRatePerS(), last.getBatchId(), config.telemetryTopic));
                CliRun unseen = CliRun.job("plan", "smdp", "--bootstrap-servers", BROKER.get().bootstrapServers(), "--telemetry-topic", config.telemetryTopic,
                        "--model", "resnet50", "--dry-run");
                assertThat(unseen.code()).isEqualTo(1);
                assertThat(unseen.err()).contains("no rate estimate of model 'resnet50' in serving group 'default' in the last 10000 records of "
                        + config.telemetryTopic + ": give --rate");

                // 5 requests with 1 s to go: the table would wait for 16 and let them expire; the
                // guard serves them as one batch at the head's latest start, in time.
                List<InferenceResult> guarded = serve(kafka, config, "guarded-", "googlenet", 5, 1_000, 0);
                assertThat(guarded).hasSize(5).allSatisfy(r -> assertThat(r.getStatus()).as(r.getReason()).isEqualTo(ResultStatus.OK));
                assertThat(guarded).extracting(InferenceResult::getBatchSize).containsOnly(5);
                assertThat(googlenetBatches(kafka, config, 69)).hasSize(5).last().extracting(BatchTelemetry::getBatchSize).isEqualTo(5);
                assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
            } finally {
                job.cancel().get();
            }
        }
    }

    private static SetBatchingTable table(String model, BatchingTable t) {
        List<Integer> actions = new ArrayList<>();
        for (int a : t.actions()) actions.add(a);
        return SetBatchingTable.newBuilder().setGroup("default").setModel(model).setActions(actions)
                .setArrivalRatePerS(1000).setLatencyWeight(1).setPowerWeight(0).build();
    }

    private static List<BatchTelemetry> googlenetBatches(TopicClient kafka, ServingConfig config, int requests) {
        return kafka.readUntil(config.telemetryTopic, BatchTelemetry.class,
                        l -> l.stream().filter(b -> b.getModel().equals("googlenet")).mapToInt(BatchTelemetry::getBatchSize).sum() >= requests,
                        Duration.ofSeconds(60))
                .stream().filter(b -> b.getModel().equals("googlenet")).toList();
    }

    /** Sends {@code n} requests, {@code gapMs} apart (0: at once), and returns their results. */
    private static List<InferenceResult> serve(TopicClient kafka, ServingConfig config, String prefix, String model, int n, double sloMs, long gapMs)
            throws InterruptedException {
        for (int i = 0; i < n; i++) {
            kafka.send(config.requestsTopic, InferenceRequest.class, ServingJobIntegrationTest.request(prefix + i, model, sloMs));
            if (gapMs > 0) {
                kafka.flush();
                Thread.sleep(gapMs);
            }
        }
        kafka.flush();
        return kafka.readUntil(config.resultsTopic, InferenceResult.class,
                        l -> l.stream().filter(r -> r.getRequestId().startsWith(prefix)).count() >= n, Duration.ofSeconds(60))
                .stream().filter(r -> r.getRequestId().startsWith(prefix)).toList();
    }

    private static DecisionOutcome decide(DecisionPublisher publisher, Object action) {
        return publisher.awaitOutcome(publisher.publish(action), Duration.ofSeconds(30)).orElseThrow(() -> new AssertionError("no outcome for " + action));
    }

    /** Restarts disabled: RUNNING at the end means the job never failed. */
    private static JobClient start(ServingConfig config) throws Exception {
        Configuration flink = new Configuration();
        flink.set(RestartStrategyOptions.RESTART_STRATEGY, "disable");
        return ServingJob.onKafka(config, CATALOG).start(StreamExecutionEnvironment.getExecutionEnvironment(flink));
    }
}
