package io.kairos.testbed.job;

import io.kairos.testbed.CliRun;
import io.kairos.control.DecisionPublisher;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.scheduling.learned.NetworkAgent;
import io.kairos.jobs.ServingJob;
import io.kairos.jobs.config.ServingConfig;
import io.kairos.schema.DecisionOutcome;
import io.kairos.schema.DecisionStatus;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.ResultStatus;
import io.kairos.schema.SetPolicyNetwork;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code rl} policy in the real job: the job started with {@code --policy rl} serves with the
 * committed network (every request one result, in batches it formed); {@code kairos control
 * network} gives the group a network carried in the decision, which the running job decides with
 * at once (a network that never infers leaves requests to be dropped; the committed one published
 * back serves them again); a bad file is refused by the command, and a bad network sent by another
 * producer is rejected by the job with the reason; the plan shows the network by name and digest.
 */
class RlPolicyIntegrationTest {

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(
            new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4).build());

    private static final ModelCatalog CATALOG = ModelCatalog.builtIn();
    @RegisterExtension
    static final BrokerForClass BROKER = new BrokerForClass();

    @Test
    void theJobServesWithRlAndTakesANetworkFromTheControlTopic(@TempDir Path dir) throws Exception {
        ServingConfig config = TestConfigs.onBroker(BROKER.get(), "rl-", c -> {
            c.devices = 1;
            c.policy = "rl";
        });
        byte[] committed;
        try (InputStream in = NetworkAgent.class.getClassLoader().getResourceAsStream(NetworkAgent.COMMITTED)) {
            committed = in.readAllBytes();
        }
        Path committedFile = dir.resolve("committed.krln");
        Files.write(committedFile, committed);
        Path neverFile = dir.resolve("never-infer.krln");
        Files.write(neverFile, neverInfers());
        String bootstrap = BROKER.get().bootstrapServers();
        String[] topics = {"--bootstrap-servers", bootstrap, "--control-topic", config.controlTopic, "--outcomes-topic", config.outcomesTopic};
        try (TopicClient kafka = new TopicClient(bootstrap);
             DecisionPublisher other = new DecisionPublisher(bootstrap, config.controlTopic, config.outcomesTopic, "another-trainer")) {
            JobClient job = start(config);
            try {
                serve(kafka, config, "warm-up-", 1, 120_000); // the job is up once it answers
                // 120 resnet50 requests at once with 2 s to go: the committed network (imitating
                // Clockwork's rule: the most urgent queue's largest allowed batch while the device
                // has under 5 ms booked) serves them, each request exactly once. Batches form as
                // soon as requests come in faster than one per batch-1 latency (2.7 ms): 120 at
                // once do, even admitted slowly on a loaded machine (40 were once served one by one).
                List<InferenceResult> first = serve(kafka, config, "committed-", 120, 2_000);
                assertThat(first).allSatisfy(r -> assertThat(r.getStatus()).as(r.getReason()).isEqualTo(ResultStatus.OK));
                assertThat(first).extracting(InferenceResult::getBatchSize).anySatisfy(b -> assertThat(b).isGreaterThan(1));
                assertThat(first.stream().mapToInt(InferenceResult::getBatchSize).max().orElseThrow()).isLessThanOrEqualTo(16);

                // A network that never infers, published by file: the job decides with it at once,
                // and requests wait until they can no longer make it (dropped, never late).
                CliRun never = CliRun.job(concat(new String[] {"control", "network", "--group", "default", "--file", neverFile.toString()}, topics));
                assertThat(never.code()).as(never.err()).isZero();
                assertThat(never.out()).startsWith("applied network/default (kairos-control/");
                List<InferenceResult> waited = serve(kafka, config, "never-", 8, 300);
                assertThat(waited).allSatisfy(r -> assertThat(r.getStatus()).as(r.getReason()).isEqualTo(ResultStatus.DROPPED));

                // The plan shows the group's network by name and digest.
                CliRun show = CliRun.job("control", "show", "--bootstrap-servers", bootstrap, "--control-topic", config.controlTopic, "--devices", "1",
                        "--policy", "rl");
                assertThat(show.code()).as(show.err()).isZero();
                assertThat(show.out()).containsPattern("  rl network: never-infer\\.krln \\(sha256 [0-9a-f]{12}, " + neverInfers().length + " bytes\\)");

                // A bad file is refused by the command, before anything is sent.
                Path bad = dir.resolve("bad.krln");
                Files.write(bad, new byte[] {'K', 'R', 'L', 'N', 3, 0, 0, 0});
                CliRun refused = CliRun.job(concat(new String[] {"control", "network", "--group", "default", "--file", bad.toString()}, topics));
                assertThat(refused.code()).isEqualTo(2);
                assertThat(refused.err()).contains("--file policy network '" + bad + "': version 3, this reader knows versions 1 and 2");
                // Another producer's bad network: rejected by the job, with the reason it reads.
                DecisionOutcome rejected = other.awaitOutcome(other.publish(SetPolicyNetwork.newBuilder().setGroup("default").setNetworkName("cut.krln")
                        .setNetwork(ByteBuffer.wrap(java.util.Arrays.copyOf(committed, 100))).build()), Duration.ofSeconds(30)).orElseThrow();
                assertThat(rejected.getStatus()).isEqualTo(DecisionStatus.REJECTED);
                assertThat(rejected.getReason()).isEqualTo("network 'cut.krln' of serving group 'default': policy network 'cut.krln': ends early, after 100 bytes");

                // The committed network published back (45 kB in one record): served again.
                CliRun back = CliRun.job(concat(new String[] {"control", "network", "--group", "default", "--file", committedFile.toString()}, topics));
                assertThat(back.code()).as(back.err()).isZero();
                List<InferenceResult> again = serve(kafka, config, "again-", 24, 2_000);
                assertThat(again).allSatisfy(r -> assertThat(r.getStatus()).as(r.getReason()).isEqualTo(ResultStatus.OK));
                // Every request of the run, read again at the end: still exactly one result each.
                List<InferenceResult> all = kafka.readUntil(config.resultsTopic, InferenceResult.class, l -> l.size() >= 153, Duration.ofSeconds(30));
                assertThat(all).hasSize(153).extracting(InferenceResult::getRequestId).doesNotHaveDuplicates();
                assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
            } finally {
                job.cancel().get();
            }
        }
    }

    /** A network whose null logit (bias 10) beats every infer logit (0), whatever the state. */
    private static byte[] neverInfers() {
        int in = 25;
        int out = 84;
        ByteBuffer b = ByteBuffer.allocate(4 * (3 + 2 * in + 1 + 2 + out * in + out)).order(ByteOrder.LITTLE_ENDIAN);
        b.put(new byte[] {'K', 'R', 'L', 'N'}).putInt(1).putInt(in);
        for (int i = 0; i < in; i++) b.putFloat(1f);
        for (int i = 0; i < in; i++) b.putFloat(0f);
        b.putInt(1).putInt(out).putInt(0);
        for (int i = 0; i < out * in; i++) b.putFloat(0f);
        for (int o = 0; o < out; o++) b.putFloat(o % 7 == 0 ? 10f : 0f);
        return b.array();
    }

    /**
     * Sends {@code n} resnet50 requests at once and returns their results, after checking that
     * each has exactly one (a second would arrive within the wait for the last).
     */
    private static List<InferenceResult> serve(TopicClient kafka, ServingConfig config, String prefix, int n, double sloMs) {
        for (int i = 0; i < n; i++) {
            kafka.send(config.requestsTopic, InferenceRequest.class, ServingJobIntegrationTest.request(prefix + i, "resnet50", sloMs));
        }
        kafka.flush();
        List<InferenceResult> results = kafka.readUntil(config.resultsTopic, InferenceResult.class,
                        l -> l.stream().filter(r -> r.getRequestId().startsWith(prefix)).count() >= n, Duration.ofSeconds(60))
                .stream().filter(r -> r.getRequestId().startsWith(prefix)).toList();
        Map<String, Long> perRequest = results.stream().collect(Collectors.groupingBy(InferenceResult::getRequestId, Collectors.counting()));
        assertThat(perRequest).hasSize(n).allSatisfy((id, count) -> assertThat(count).as(id).isEqualTo(1L));
        return results;
    }

    private static String[] concat(String[] a, String[] b) {
        String[] c = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }

    /** Restarts disabled: RUNNING at the end means the job never failed. */
    private static JobClient start(ServingConfig config) throws Exception {
        Configuration flink = new Configuration();
        flink.set(RestartStrategyOptions.RESTART_STRATEGY, "disable");
        return ServingJob.onKafka(config, CATALOG).start(StreamExecutionEnvironment.getExecutionEnvironment(flink));
    }
}
