package io.kairos.testbed.job;

import io.kairos.core.model.ModelCatalog;
import io.kairos.jobs.config.ServingConfig;
import io.kairos.jobs.ServingJob;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.InferenceResult;
import io.kairos.testbed.infra.GrafanaDashboardTest;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The job's metrics as Prometheus reads them: the serving job on a mini-cluster with Flink's
 * Prometheus reporter (the one infra/cluster and the containers run), scraped after a few
 * requests. Every metric the code registers is there under the name docs/operations/monitoring.md and the Grafana
 * dashboard use, and that page's filter finds exactly the job's own metrics, while a bare
 * {@code grep kairos_} matches nearly every line (every metric carries the job's name).
 */
class PrometheusMetricsIntegrationTest {

    private static final int PORT = PrometheusMiniCluster.freePort();
    private static final String PREFIX = PrometheusMiniCluster.PREFIX;

    @RegisterExtension
    static final MiniClusterExtension FLINK = PrometheusMiniCluster.extension(PORT, 4);

    @RegisterExtension
    static final BrokerForClass BROKER = new BrokerForClass();

    private static String scrape() throws Exception {
        return PrometheusMiniCluster.scrape(PORT);
    }

    @Test
    void everyMetricTheJobRegistersIsScrapedUnderTheDocumentedName() throws Exception {
        // With checkpoints, so that the step after a restore (resultsSuppressed) is in the topology
        // too, and with the devices' reports gathered, so that the gathering operators are.
        ServingConfig config = TestConfigs.onBroker(BROKER.get(), "prom-", c -> {
            c.checkpointIntervalMs = 60_000;
            c.reportCoalesceMicros = 2_000;
        });
        int n = 40;
        try (TopicClient kafka = new TopicClient(BROKER.get().bootstrapServers())) {
            JobClient job = ServingJob.onKafka(config, ModelCatalog.builtIn()).start(StreamExecutionEnvironment.getExecutionEnvironment());
            try {
                // The last few of a model with an energy profile, whose energy gauge exists only once it has run.
                for (int i = 0; i < n; i++) {
                    kafka.send(config.requestsTopic, InferenceRequest.class, ServingJobIntegrationTest.request("p" + i, i < n - 4 ? "mlp" : "googlenet", 120_000));
                }
                kafka.flush();
                assertThat(kafka.readUntil(config.resultsTopic, InferenceResult.class, l -> l.size() >= n, Duration.ofSeconds(90))).hasSize(n);

                // The reporter reads the counters when scraped; the last results may still be on their way to the counters.
                String body = "";
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (System.nanoTime() < deadline) {
                    body = scrape();
                    if (value(body, "arrivals") >= n && value(body, "ok") >= n) break;
                    Thread.sleep(200);
                }
                assertThat(value(body, "arrivals")).isEqualTo(n);
                assertThat(value(body, "ok")).isEqualTo(n);
                assertThat(value(body, "requestsDispatched")).isEqualTo(n);

                Set<String> scraped = new TreeSet<>();
                // A per-model metric sits under the group "model" (its name a label): ..._kairos_model_energyMillijoules{model="googlenet"}.
                Matcher m = Pattern.compile("(?m)^" + PREFIX + "(?:model_)?([A-Za-z]+)[{ ]").matcher(body);
                while (m.find()) scraped.add(m.group(1));
                assertThat(body).containsPattern("(?m)^" + PREFIX + "model_energyMillijoules\\{.*model=\"googlenet\"");
                assertThat(scraped).as("the job's metrics as scraped").isEqualTo(GrafanaDashboardTest.registeredMetrics().keySet());
                assertThat(body).containsPattern("(?m)^" + PREFIX + "batchSize\\{.*quantile=\"0\\.99\",\\} ")
                        .containsPattern("(?m)^" + PREFIX + "batchSize_count\\{");

                // docs/operations/monitoring.md: `grep '^flink_taskmanager_job_task_operator_kairos_'` lists the job's metrics; `grep kairos_` nearly everything.
                List<String> lines = body.lines().toList();
                long own = lines.stream().filter(l -> l.startsWith(PREFIX)).count();
                long bare = lines.stream().filter(l -> l.contains("kairos_")).count();
                assertThat(own).isGreaterThanOrEqualTo(scraped.size());
                assertThat(bare).isGreaterThan(5 * own);
            } finally {
                job.cancel().get();
            }
        }
    }

    /** The sum over subtasks of a counter of the job. */
    private static double value(String body, String name) {
        Matcher m = Pattern.compile("(?m)^" + PREFIX + name + "\\{[^}]*\\} ([0-9.eE+-]+)$").matcher(body);
        double sum = 0;
        while (m.find()) sum += Double.parseDouble(m.group(1));
        return sum;
    }
}
