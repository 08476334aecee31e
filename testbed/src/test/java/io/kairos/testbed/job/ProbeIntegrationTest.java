package io.kairos.testbed.job;

import io.kairos.core.model.ModelCatalog;
import io.kairos.jobs.ServingJob;
import io.kairos.jobs.config.ServingConfig;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.ResultStatus;
import io.kairos.testbed.CliRun;
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
    void returnsOnceTheJobHasAnsweredARequestOfEachOfItsModels() throws Exception {
        ServingConfig config = TestConfigs.onBroker(BROKER.get(), "probe-ok-", c -> {});
        JobClient job = ServingJob.onKafka(config, ModelCatalog.builtIn()).start(StreamExecutionEnvironment.getExecutionEnvironment());
        try {
            CliRun r = probe("90", config);

            List<String> models = List.copyOf(ModelCatalog.builtIn().names());
            assertThat(r.code()).as(r.err()).isZero();
            assertThat(r.out()).containsPattern("probe: the job answered a request of each of its " + models.size() + " models in [0-9]+\\.[0-9]{2} s");
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

    @Test
    void warmsThePathWithAFixedNumberInFlightAndReturnsOnlyWhenEveryOneIsAnswered() throws Exception {
        ServingConfig config = TestConfigs.onBroker(BROKER.get(), "probe-warm-", c -> {});
        JobClient job = ServingJob.onKafka(config, ModelCatalog.builtIn()).start(StreamExecutionEnvironment.getExecutionEnvironment());
        try {
            CliRun r = probe("90", config, "--model", "mlp", "--warm-up", "1.5", "--warm-up-in-flight", "4");

            assertThat(r.code()).as(r.err()).isZero();
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("probe: the job answered a request of mlp in [0-9.]+ s; warmed up with ([0-9]+) requests in "
                    + "([0-9.]+) s \\(p50 [0-9.]+ ms in its first second, [0-9.]+ ms in its last\\)").matcher(r.out());
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
