package io.kairos.testbed.job;

import io.kairos.core.model.ModelCatalog;
import io.kairos.jobs.ServingJob;
import io.kairos.jobs.config.ServingConfig;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.ResultStatus;
import io.kairos.testbed.KairosCli;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.PrintWriter;
import java.io.StringWriter;
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

    private static String[] run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = KairosCli.commandLine(new PrintWriter(out, true), new PrintWriter(err, true)).execute(args);
        return new String[] {Integer.toString(code), out.toString(), err.toString()};
    }

    /** The probe's own view of the job: its broker and topics, as serve's flags. */
    private static String[] probe(String timeout, ServingConfig config, String... more) {
        List<String> args = new java.util.ArrayList<>(List.of("probe", "--timeout", timeout));
        args.addAll(List.of(more));
        args.addAll(List.of("--", "--bootstrap-servers", config.bootstrapServers,
                "--requests-topic", config.requestsTopic, "--results-topic", config.resultsTopic));
        return run(args.toArray(String[]::new));
    }

    @Test
    void returnsOnceTheJobHasAnsweredARequestOfEachOfItsModels() throws Exception {
        ServingConfig config = TestConfigs.onBroker(BROKER.get(), "probe-ok-", c -> {});
        JobClient job = ServingJob.onKafka(config, ModelCatalog.builtIn()).start(StreamExecutionEnvironment.getExecutionEnvironment());
        try {
            String[] r = probe("90", config);

            List<String> models = List.copyOf(ModelCatalog.builtIn().names());
            assertThat(r[0]).as(r[2]).isEqualTo("0");
            assertThat(r[1]).containsPattern("probe: the job answered a request of each of its " + models.size() + " models in [0-9]+\\.[0-9]{2} s");
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
    void withNoJobReadingItGivesUpAfterItsTimeoutNamingItsRequests() {
        ServingConfig config = TestConfigs.onBroker(BROKER.get(), "probe-none-", c -> {});

        String[] r = probe("1.5", config, "--model", "mlp");

        assertThat(r[0]).isEqualTo("1");
        assertThat(r[2]).containsPattern("kairos probe: no result within 1500 ms of kairos-probe-[0-9a-f]{8}-0 \\(requests of mlp to probe-none-requests at "
                + config.bootstrapServers.replace(".", "\\.") + "\\)");
    }

    @Test
    void aModelTheCatalogLacksIsOneLineNamingTheModels() {
        ServingConfig config = TestConfigs.onBroker(BROKER.get(), "probe-model-", c -> {});

        String[] r = probe("5", config, "--model", "nope");

        assertThat(r[0]).isEqualTo("2");
        assertThat(r[2]).contains("--model: the job's catalog has no model 'nope'; it has [");
    }
}
