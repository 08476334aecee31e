package io.kairos.testbed.job;

import io.kairos.core.model.ModelCatalog;
import io.kairos.jobs.ServingJob;
import io.kairos.jobs.config.ServingConfig;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.ResultStatus;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Window SLOs end to end, on a real broker and Flink runtime: requests that want their answer
 * between 100 and 1,000 ms after they are sent are held by the group's scheduler and answered
 * inside their window, OK, while requests without a window beside them are answered at once; a
 * window after the deadline, or negative, is REJECTED with a reason naming the field.
 */
class WindowSloIntegrationTest {

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(
            new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4).build());

    @RegisterExtension
    static final BrokerForClass BROKER = new BrokerForClass();

    @Test
    void windowRequestsAreAnsweredInsideTheirWindowAndABadWindowIsRejected() throws Exception {
        ServingConfig config = TestConfigs.onBroker(BROKER.get(), "window-", c -> c.devices = 1);
        try (TopicClient kafka = new TopicClient(BROKER.get().bootstrapServers())) {
            JobClient job = start(config);
            try {
                // The job is up once it answers.
                kafka.send(config.requestsTopic, InferenceRequest.class, ServingJobIntegrationTest.request("warm-up", "resnet50", 120_000));
                kafka.flush();
                kafka.readUntil(config.resultsTopic, InferenceResult.class, l -> !l.isEmpty(), Duration.ofSeconds(120));

                for (int i = 0; i < 12; i++) {
                    InferenceRequest windowed = ServingJobIntegrationTest.request("window-" + i, "resnet50", 1_000);
                    windowed.setWindowStartMs(100.0);
                    kafka.send(config.requestsTopic, InferenceRequest.class, windowed);
                    kafka.send(config.requestsTopic, InferenceRequest.class, ServingJobIntegrationTest.request("plain-" + i, "resnet50", 1_000));
                }
                InferenceRequest afterDeadline = ServingJobIntegrationTest.request("after-deadline", "resnet50", 1_000);
                afterDeadline.setWindowStartMs(1_500.0);
                InferenceRequest negative = ServingJobIntegrationTest.request("negative", "resnet50", 1_000);
                negative.setWindowStartMs(-5.0);
                kafka.send(config.requestsTopic, InferenceRequest.class, afterDeadline);
                kafka.send(config.requestsTopic, InferenceRequest.class, negative);
                kafka.flush();

                Map<String, InferenceResult> results = kafka.readUntil(config.resultsTopic, InferenceResult.class, l -> l.size() >= 27, Duration.ofSeconds(60))
                        .stream().collect(Collectors.toMap(InferenceResult::getRequestId, Function.identity()));
                assertThat(results).hasSize(27);
                List<InferenceResult> windowed = results.values().stream().filter(r -> r.getRequestId().startsWith("window-")).toList();
                assertThat(windowed).hasSize(12).allSatisfy(r -> {
                    assertThat(r.getStatus()).as(r.getReason()).isEqualTo(ResultStatus.OK);
                    assertThat(r.getWindowStartMs()).isEqualTo(100.0);
                    long end = r.getTimings().getExecEnd();
                    assertThat(end).as("done inside [sent + 100 ms, deadline]").isBetween(r.getTimings().getSent() + 100_000, r.getTimings().getDeadline());
                    assertThat(r.getTimings().getDispatched()).as("held: dispatched no sooner than its release")
                            .isGreaterThanOrEqualTo(r.getTimings().getSent() + 100_000 - 10_000);
                });
                // Beside them, the plain requests were answered at once (well before 100 ms, on
                // a machine that is not too loaded; the bound asserts only that they were not held).
                List<InferenceResult> plain = results.values().stream().filter(r -> r.getRequestId().startsWith("plain-")).toList();
                assertThat(plain).hasSize(12).allSatisfy(r -> {
                    assertThat(r.getStatus()).as(r.getReason()).isEqualTo(ResultStatus.OK);
                    assertThat(r.getWindowStartMs()).isNull();
                });
                assertThat(plain.stream().mapToLong(r -> r.getTimings().getExecEnd() - r.getTimings().getSent()).min().orElseThrow())
                        .isLessThan(100_000);
                assertThat(results.get("after-deadline").getStatus()).isEqualTo(ResultStatus.REJECTED);
                assertThat(results.get("after-deadline").getReason()).isEqualTo("window_start_ms 1500.0 is after the deadline: over slo_ms 1000.0");
                assertThat(results.get("negative").getStatus()).isEqualTo(ResultStatus.REJECTED);
                assertThat(results.get("negative").getReason()).isEqualTo("window_start_ms must be a number of milliseconds from 0 to slo_ms, got -5.0");
                assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
            } finally {
                job.cancel().get();
            }
        }
    }

    /**
     * Without the hold ({@code window_hold} false) a windowed request joins its queue on arrival, and
     * whether it is answered inside its window is its policy's doing. Fig 6.1's network, trained from
     * scratch to wait for the window (training seed 1, its last network), serves the figure's two
     * loads in the real job: model 1's requests inside their window, model 0's within 100 ms.
     * Clockwork, which knows nothing of windows, answers model 1 early on the same setup.
     */
    @Test
    void aNetworkTrainedToWaitMeetsWindowsWithoutTheHoldWhereClockworkAnswersEarly() throws Exception {
        String network = Path.of("experiments/rl/scratch-window/seed-1/policy.krln").toAbsolutePath().toString();
        Map<String, InferenceResult> rl = twoLoads("unheld-rl-", "rl", Map.of("network", network, "window_hold", "false"));
        Map<String, InferenceResult> clockwork = twoLoads("unheld-clockwork-", "clockwork", Map.of("window_hold", "false"));
        // 200 of each type, 100 requests/s each: the network meets nearly all, on a loaded machine
        // too; clockwork starts model 1's requests at once, about 97 ms before their window.
        assertThat(share(rl, "window-", ResultStatus.OK)).isGreaterThanOrEqualTo(0.95);
        assertThat(share(rl, "plain-", ResultStatus.OK)).isGreaterThanOrEqualTo(0.95);
        assertThat(rl.values()).filteredOn(r -> r.getRequestId().startsWith("window-") && r.getStatus() == ResultStatus.OK)
                .allSatisfy(r -> assertThat(r.getTimings().getExecEnd()).isGreaterThanOrEqualTo(r.getTimings().getSent() + 100_000));
        assertThat(share(clockwork, "window-", ResultStatus.EARLY)).isGreaterThanOrEqualTo(0.9);
        assertThat(share(clockwork, "plain-", ResultStatus.OK)).isGreaterThanOrEqualTo(0.95);
    }

    private static final int PER_TYPE = 200;

    /**
     * A job with {@code policy} and {@code params} on one device, sent Fig 6.1's two loads, paced at
     * 100 requests/s each: model 0 (an instance of ResNet50) within 100 ms, model 1 (another) between
     * 100 and 1,000 ms. Its results by request id, each request answered once.
     */
    private static Map<String, InferenceResult> twoLoads(String prefix, String policy, Map<String, String> params) throws Exception {
        ServingConfig config = TestConfigs.onBroker(BROKER.get(), prefix, c -> {
            c.devices = 1;
            c.policy = policy;
            c.policyParams.putAll(params);
        });
        String zero = ModelCatalog.instanceName("resnet50", 0);
        String one = ModelCatalog.instanceName("resnet50", 1);
        try (TopicClient kafka = new TopicClient(BROKER.get().bootstrapServers())) {
            JobClient job = start(config);
            try {
                // The job is up once it answers: a network that waits until a request is urgent
                // would sit on a warm-up of 120 s; one of 100 ms comes back, met or not.
                kafka.send(config.requestsTopic, InferenceRequest.class, ServingJobIntegrationTest.request("warm-up", zero, 100));
                kafka.flush();
                kafka.readUntil(config.resultsTopic, InferenceResult.class, l -> !l.isEmpty(), Duration.ofSeconds(120));
                long start = System.nanoTime();
                for (int i = 0; i < PER_TYPE; i++) {
                    InferenceRequest windowed = ServingJobIntegrationTest.request("window-" + i, one, 1_000);
                    windowed.setWindowStartMs(100.0);
                    kafka.send(config.requestsTopic, InferenceRequest.class, windowed);
                    kafka.send(config.requestsTopic, InferenceRequest.class, ServingJobIntegrationTest.request("plain-" + i, zero, 100));
                    kafka.flush();
                    long due = start + (i + 1) * 10_000_000L; // 10 ms apart
                    long wait = due - System.nanoTime();
                    if (wait > 0) Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                }
                List<InferenceResult> all = kafka.readUntil(config.resultsTopic, InferenceResult.class, l -> l.size() >= 2 * PER_TYPE + 1, Duration.ofSeconds(60));
                assertThat(all).extracting(InferenceResult::getRequestId).doesNotHaveDuplicates();
                assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
                return all.stream().filter(r -> !r.getRequestId().equals("warm-up")).collect(Collectors.toMap(InferenceResult::getRequestId, Function.identity()));
            } finally {
                job.cancel().get();
            }
        }
    }

    private static double share(Map<String, InferenceResult> results, String prefix, ResultStatus status) {
        List<InferenceResult> type = results.values().stream().filter(r -> r.getRequestId().startsWith(prefix)).toList();
        assertThat(type).hasSize(PER_TYPE);
        return (double) type.stream().filter(r -> r.getStatus() == status).count() / type.size();
    }

    /** Restarts disabled: RUNNING at the end means the job never failed. */
    private static JobClient start(ServingConfig config) throws Exception {
        Configuration flink = new Configuration();
        flink.set(RestartStrategyOptions.RESTART_STRATEGY, "disable");
        return ServingJob.onKafka(config, ModelCatalog.builtIn()).start(StreamExecutionEnvironment.getExecutionEnvironment(flink));
    }
}
