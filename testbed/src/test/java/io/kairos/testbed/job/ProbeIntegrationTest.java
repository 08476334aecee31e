package io.kairos.testbed.job;

import io.kairos.core.model.ModelCatalog;
import io.kairos.jobs.ServingJob;
import io.kairos.jobs.config.ServingConfig;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.ResultStatus;
import io.kairos.testbed.CliRun;
import io.kairos.tools.ProbeCommand;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code kairos probe}, what infra/cluster submit waits with, against the real job on a real broker. */
class ProbeIntegrationTest {

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(
            new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4).build());

    @RegisterExtension
    static final BrokerForClass BROKER = new BrokerForClass();

    /** The probe's own view of the job: its broker and topics, as serve's flags. */
    private static CliRun probe(String timeout, ServingConfig config, String... more) {
        List<String> args = new java.util.ArrayList<>(List.of("probe", "--timeout", timeout));
        args.addAll(List.of(more));
        args.addAll(List.of("--", "--bootstrap-servers", config.bootstrapServers,
                "--requests-topic", config.requestsTopic, "--results-topic", config.resultsTopic));
        return CliRun.checkout(args.toArray(String[]::new));
    }

    @Test
    void withoutAWarmUpReturnsOnceTheJobHasAnsweredARequestOfEachOfItsModels() throws Exception {
        ServingConfig config = TestConfigs.onBroker(BROKER.get(), "probe-ok-", c -> {});
        JobClient job = ServingJob.onKafka(config, ModelCatalog.builtIn()).start(StreamExecutionEnvironment.getExecutionEnvironment());
        try {
            CliRun r = probe("90", config, "--warm-up", "0");

            List<String> models = List.copyOf(ModelCatalog.builtIn().names());
            assertThat(r.code()).as(r.err()).isZero();
            assertThat(r.out()).containsPattern("probe: the job answered a request of each of its " + models.size() + " models in [0-9]+\\.[0-9]{2} s");
            assertThat(r.out()).doesNotContain("warmed up");
            try (TopicClient kafka = new TopicClient(config.bootstrapServers)) {
                List<InferenceResult> results = kafka.readUntil(config.resultsTopic, InferenceResult.class, l -> l.size() >= models.size(), Duration.ofSeconds(10));
                assertThat(results).extracting(InferenceResult::getModel).containsExactlyInAnyOrderElementsOf(models);
                assertThat(results).allSatisfy(result -> {
                    assertThat(result.getRequestId()).matches("kairos-probe-[0-9a-f]{8}-[0-9]+");
                    assertThat(result.getTenant()).isEqualTo("probe");
                    assertThat(result.getStatus()).isEqualTo(ResultStatus.OK);
                });
            }
        } finally {
            job.cancel().get();
        }
    }

    /**
     * The default: after the answers, the warm-up until the rate of its results has settled, at
     * least 1,000 of them answered; on a machine too busy for it to settle, at most --warm-up-max,
     * and it says so. Every one answered before the command returns, all on the results topic.
     */
    @Test
    void byDefaultWarmsThePathUntilTheRateOfItsRequestsHasSettled() throws Exception {
        ServingConfig config = TestConfigs.onBroker(BROKER.get(), "probe-settle-", c -> {});
        JobClient job = ServingJob.onKafka(config, ModelCatalog.builtIn()).start(StreamExecutionEnvironment.getExecutionEnvironment());
        try {
            CliRun r = probe("90", config, "--warm-up-max", "20");

            List<String> models = List.copyOf(ModelCatalog.builtIn().names());
            assertThat(r.code()).as(r.err()).isZero();
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("probe: the job answered a request of each of its " + models.size()
                    + " models in [0-9.]+ s; warmed up with ([0-9]+) requests in ([0-9.]+) s, its rate (settled|not settled at --warm-up-max 20 s) "
                    + "\\([0-9]+/s and p50 [0-9.]+ ms in its first second, [0-9]+/s and [0-9.]+ ms in its last\\)").matcher(r.out());
            assertThat(m.find()).as(r.out()).isTrue();
            int warmUp = Integer.parseInt(m.group(1));
            double seconds = Double.parseDouble(m.group(2));
            if (m.group(3).equals("settled")) {
                assertThat(warmUp).isGreaterThanOrEqualTo(1_000);
                // Three whole half-seconds after the first, at the least.
                assertThat(seconds).isGreaterThanOrEqualTo(2.0);
            } else {
                assertThat(seconds).isGreaterThanOrEqualTo(20.0);
            }
            try (TopicClient kafka = new TopicClient(config.bootstrapServers)) {
                int all = models.size() + warmUp;
                List<InferenceResult> results = kafka.readUntil(config.resultsTopic, InferenceResult.class, l -> l.size() >= all, Duration.ofSeconds(20));
                assertThat(results).hasSize(all);
                assertThat(results).extracting(InferenceResult::getRequestId).doesNotHaveDuplicates();
                assertThat(results).extracting(InferenceResult::getModel).containsAll(models);
                assertThat(results).allSatisfy(result -> {
                    assertThat(result.getRequestId()).matches("kairos-probe-[0-9a-f]{8}-[0-9]+");
                    assertThat(result.getTenant()).isEqualTo("probe");
                    assertThat(result.getStatus()).isEqualTo(ResultStatus.OK);
                });
            }
        } finally {
            job.cancel().get();
        }
    }

    @Test
    void theRateHasSettledAfterThreeHalfSecondsWithin15PercentNotCountingTheFirst() {
        // The window under way (the last argument) is not counted: it is not whole yet.
        assertThat(ProbeCommand.WarmUp.settledBy(List.of(10, 100, 95, 90), 4)).isTrue();
        assertThat(ProbeCommand.WarmUp.settledBy(List.of(10, 100, 95, 90, 3), 4)).isTrue();
        assertThat(ProbeCommand.WarmUp.settledBy(List.of(10, 100, 95, 90), 3)).isFalse();
        // Still rising: 80 is more than 15 % below 100.
        assertThat(ProbeCommand.WarmUp.settledBy(List.of(10, 60, 80, 100), 4)).isFalse();
        // The first window is never one of the three: it holds the loop's start.
        assertThat(ProbeCommand.WarmUp.settledBy(List.of(100, 100, 100), 3)).isFalse();
        // A half-second with no result at all (a stall) is no settled rate.
        assertThat(ProbeCommand.WarmUp.settledBy(List.of(10, 100, 95), 4)).isFalse();
        assertThat(ProbeCommand.WarmUp.settledBy(List.of(0, 0, 0, 0), 4)).isFalse();
    }

    @Test
    void warmsThePathWithAFixedNumberInFlightAndReturnsOnlyWhenEveryOneIsAnswered() throws Exception {
        ServingConfig config = TestConfigs.onBroker(BROKER.get(), "probe-warm-", c -> {});
        JobClient job = ServingJob.onKafka(config, ModelCatalog.builtIn()).start(StreamExecutionEnvironment.getExecutionEnvironment());
        try {
            CliRun r = probe("90", config, "--model", "mlp", "--warm-up", "1.5", "--warm-up-in-flight", "4");

            assertThat(r.code()).as(r.err()).isZero();
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("probe: the job answered a request of mlp in [0-9.]+ s; warmed up with ([0-9]+) requests in "
                    + "([0-9.]+) s \\([0-9]+/s and p50 [0-9.]+ ms in its first second, [0-9]+/s and [0-9.]+ ms in its last\\)").matcher(r.out());
            assertThat(m.find()).as(r.out()).isTrue();
            int warmUp = Integer.parseInt(m.group(1));
            // Closed loop: far more than the window went through, and it lasted at least as asked.
            assertThat(warmUp).isGreaterThan(4 * 5);
            assertThat(Double.parseDouble(m.group(2))).isGreaterThanOrEqualTo(1.5);
            try (TopicClient kafka = new TopicClient(config.bootstrapServers)) {
                // Every one answered before the command returned: the topic holds them all already.
                List<InferenceResult> results = kafka.readUntil(config.resultsTopic, InferenceResult.class, l -> l.size() >= 1 + warmUp, Duration.ofSeconds(10));
                assertThat(results).hasSize(1 + warmUp);
                assertThat(results).extracting(InferenceResult::getRequestId).doesNotHaveDuplicates();
                assertThat(results).allSatisfy(result -> {
                    assertThat(result.getModel()).isEqualTo("mlp");
                    assertThat(result.getTenant()).isEqualTo("probe");
                    assertThat(result.getStatus()).isEqualTo(ResultStatus.OK);
                });
            }
        } finally {
            job.cancel().get();
        }
    }

    @Test
    void aNegativeWarmUpIsOneLine() {
        ServingConfig config = TestConfigs.onBroker(BROKER.get(), "probe-neg-", c -> {});

        CliRun r = probe("5", config, "--warm-up", "-1");

        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("--warm-up must be 0 s or more, got -1.0");
    }

    @Test
    void aWarmUpThatIsNeitherSettleNorSecondsIsOneLine() {
        ServingConfig config = TestConfigs.onBroker(BROKER.get(), "probe-word-", c -> {});

        CliRun r = probe("5", config, "--warm-up", "soon");

        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("--warm-up must be 'settle' or a number of seconds, got 'soon'");
    }

    @Test
    void withNoJobReadingItGivesUpAfterItsTimeoutNamingItsRequests() {
        ServingConfig config = TestConfigs.onBroker(BROKER.get(), "probe-none-", c -> {});

        CliRun r = probe("1.5", config, "--model", "mlp");

        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).containsPattern("kairos probe: no result within 1500 ms of kairos-probe-[0-9a-f]{8}-0 \\(requests of mlp to probe-none-requests at "
                + config.bootstrapServers.replace(".", "\\.") + "\\)");
    }

    @Test
    void aModelTheCatalogLacksIsOneLineNamingTheModels() {
        ServingConfig config = TestConfigs.onBroker(BROKER.get(), "probe-model-", c -> {});

        CliRun r = probe("5", config, "--model", "nope");

        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("--model: the job's catalog has no model 'nope'; it has [");
    }
}
