package io.kairos.testbed.job;

import io.kairos.core.model.ModelCatalog;
import io.kairos.jobs.config.ServingConfig;
import io.kairos.jobs.ServingJob;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.ResultStatus;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The serving job crashed after a checkpoint and after it had written results, on a real broker
 * and a Flink mini-cluster: the TaskManager that runs every task is terminated and another one
 * started, and the job restarts from the checkpoint, replaying the requests read since. Those
 * requests were answered with a short SLO; replayed after their deadline they would be judged
 * DROPPED.
 *
 * <p>Checkpoints are taken when the test asks (the periodic interval is days), so that the
 * replayed requests are exactly the ones sent after the test's checkpoint.
 */
class DeliveryAfterACrashIntegrationTest {
    private static final InMemoryReporter METRICS = InMemoryReporter.create();

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(() -> new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4)
            .setConfiguration(METRICS.addToConfiguration(new Configuration()))
            .build());

    private static final ModelCatalog CATALOG = ModelCatalog.builtIn();
    private static final String WARM_UP = "warm-up";
    private static final int ANSWERED = 100;
    @RegisterExtension
    // Transactions as long as the test's checkpoints are far apart: the job's producer stays in one
    // transaction from one triggered checkpoint to the next, and a configuration is refused whose
    // transaction timeout does not outlast its checkpoint interval.
    static final BrokerForClass BROKER = new BrokerForClass(Map.of("transaction.max.timeout.ms", Integer.toString(Integer.MAX_VALUE)));
    /** The index of the running TaskManager: a terminated one keeps its place in the mini-cluster's list. */
    private static int liveTaskManager;

    @Test
    void atLeastOnceAReplayedRequestThatWasAnsweredGetsNoSecondResult(@InjectMiniCluster MiniCluster cluster) throws Exception {
        ServingConfig config = config("alo-", ServingConfig.Delivery.AT_LEAST_ONCE);
        try (TopicClient kafka = new TopicClient(BROKER.get().bootstrapServers())) {
            JobClient job = start(config);
            try {
                awaitServing(kafka, config);
                cluster.triggerCheckpoint(job.getJobID()).get();
                List<String> answered = send(kafka, config, "a", ANSWERED, 1_000);
                List<InferenceResult> beforeTheCrash = kafka.readUntil(config.resultsTopic, InferenceResult.class, l -> l.size() >= ANSWERED + 1, Duration.ofSeconds(30));
                assertThat(beforeTheCrash).hasSize(ANSWERED + 1);
                // Mostly OK; on a busy machine a few may have been dropped already.
                Map<String, ResultStatus> verdicts = beforeTheCrash.stream().collect(Collectors.toMap(InferenceResult::getRequestId, InferenceResult::getStatus));

                crash(cluster);
                List<String> afterTheCrash = send(kafka, config, "b", 20, 60_000);
                kafka.readUntil(config.resultsTopic, InferenceResult.class, l -> ids(l).containsAll(afterTheCrash), Duration.ofSeconds(60));
                // The replays come before the later requests; a moment more for any straggler.
                Thread.sleep(1_000);
                List<InferenceResult> all = kafka.readUntil(config.resultsTopic, InferenceResult.class, l -> false, Duration.ofSeconds(2));

                Map<String, List<ResultStatus>> byId = all.stream().collect(Collectors.groupingBy(InferenceResult::getRequestId,
                        Collectors.mapping(InferenceResult::getStatus, Collectors.toList())));
                assertThat(byId.keySet()).containsAll(answered).containsAll(afterTheCrash).contains(WARM_UP).hasSize(ANSWERED + 20 + 1);
                assertThat(byId).as("one result per request, the one written before the crash")
                        .allSatisfy((id, statuses) -> assertThat(statuses).as(id).containsExactly(verdicts.getOrDefault(id, ResultStatus.OK)));
                assertThat(suppressed(job.getJobID())).as("every replay of a request answered before the crash held back").isEqualTo(ANSWERED);
            } finally {
                job.cancel().get();
            }
        }
    }

    @Test
    void exactlyOnceAReadCommittedConsumerSeesOneResultPerRequest(@InjectMiniCluster MiniCluster cluster) throws Exception {
        ServingConfig config = config("eo-", ServingConfig.Delivery.EXACTLY_ONCE);
        try (TopicClient kafka = new TopicClient(BROKER.get().bootstrapServers())) {
            JobClient job = start(config);
            try {
                awaitServing(kafka, config);
                cluster.triggerCheckpoint(job.getJobID()).get();
                List<String> answered = send(kafka, config, "a", ANSWERED, 1_000);
                // Written, in transactions that the crash leaves open.
                kafka.readUntil(config.resultsTopic, InferenceResult.class, l -> l.size() >= ANSWERED + 1, Duration.ofSeconds(30));

                crash(cluster);
                Set<String> expected = new java.util.HashSet<>(answered);
                expected.add(WARM_UP);
                List<InferenceResult> committed = List.of();
                long until = System.currentTimeMillis() + 60_000;
                while (!ids(committed).containsAll(expected) && System.currentTimeMillis() < until) {
                    checkpointOnceRunning(cluster, job.getJobID(), until);
                    committed = kafka.readUntil(config.resultsTopic, InferenceResult.class, l -> ids(l).containsAll(expected), Duration.ofSeconds(3), true);
                }
                List<InferenceResult> written = kafka.readUntil(config.resultsTopic, InferenceResult.class, l -> false, Duration.ofSeconds(2));

                assertThat(ids(committed)).containsExactlyInAnyOrderElementsOf(expected);
                assertThat(committed).as("a read_committed consumer sees one result per request").hasSize(expected.size());
                assertThat(written.size()).as("the results written before the crash are in the log, aborted").isGreaterThanOrEqualTo(2 * ANSWERED + 1);
            } finally {
                job.cancel().get();
            }
        }
    }

    /** Terminates the TaskManager that runs the job and starts another: the job restarts from its last checkpoint. */
    private static void crash(MiniCluster cluster) throws Exception {
        cluster.terminateTaskManager(liveTaskManager).get();
        cluster.startTaskManager();
        liveTaskManager++;
    }

    /** Triggers a checkpoint, again and again while the job is still restarting (its tasks not all running). */
    private static void checkpointOnceRunning(MiniCluster cluster, JobID job, long untilMillis) throws Exception {
        while (true) {
            try {
                cluster.triggerCheckpoint(job).get();
                return;
            } catch (ExecutionException e) {
                if (System.currentTimeMillis() > untilMillis) throw e;
                Thread.sleep(200);
            }
        }
    }

    private static long suppressed(JobID job) {
        return METRICS.findMetrics(job, "resultsSuppressed").values().stream().mapToLong(m -> ((Counter) m).getCount()).sum();
    }

    private static Set<String> ids(List<InferenceResult> results) {
        return results.stream().map(InferenceResult::getRequestId).collect(Collectors.toSet());
    }

    private static List<String> send(TopicClient kafka, ServingConfig config, String prefix, int n, double sloMs) {
        List<String> ids = IntStream.range(0, n).mapToObj(i -> prefix + i).toList();
        for (String id : ids) kafka.send(config.requestsTopic, InferenceRequest.class, ServingJobIntegrationTest.request(id, "mlp", sloMs));
        kafka.flush();
        return ids;
    }

    /** Waits for the warm-up's result, written (in a transaction still open, with exactly-once). */
    private static void awaitServing(TopicClient kafka, ServingConfig config) {
        kafka.send(config.requestsTopic, InferenceRequest.class, ServingJobIntegrationTest.request(WARM_UP, "mlp", 120_000));
        kafka.flush();
        List<InferenceResult> first = kafka.readUntil(config.resultsTopic, InferenceResult.class, l -> !l.isEmpty(), Duration.ofSeconds(60));
        assertThat(first).extracting(InferenceResult::getRequestId).containsExactly(WARM_UP);
    }

    private static ServingConfig config(String prefix, ServingConfig.Delivery delivery) {
        return TestConfigs.onBroker(BROKER.get(), prefix, c -> {
            c.delivery = delivery;
            c.checkpointIntervalMs = 1_000_000_000; // only the checkpoints the test triggers
            c.transactionTimeoutMs = 2_000_000_000;
        });
    }

    private static JobClient start(ServingConfig config) throws Exception {
        return ServingJob.onKafka(config, CATALOG).start(StreamExecutionEnvironment.getExecutionEnvironment());
    }
}
