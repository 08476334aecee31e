package io.kairos.testbed.job;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kairos.jobs.ServingJob;
import io.kairos.testbed.CliRun;
import io.kairos.jobs.config.ServingConfig;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.client.program.ClusterClient;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code kairos plan herd --taskmanagers-from}: the serving job on two TaskManagers of two slots
 * each, four device slots wherever Flink put them; a Herd plan of two groups of two devices
 * (--max-group 2) takes each group's devices from one TaskManager, published to the running job.
 * Which TaskManager runs each device slot is read back from Flink's REST API here, not from the
 * command's own answer.
 */
class PlanHerdOnTaskManagersIntegrationTest {

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(
            new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(2).setNumberSlotsPerTaskManager(2).build());
    @RegisterExtension
    static final BrokerForClass BROKER = new BrokerForClass();
    @TempDir
    static Path dir;

    @Test
    void eachGroupsDevicesAreOneTaskManagers(@InjectClusterClient ClusterClient<?> cluster) throws Exception {
        Path models = Files.writeString(dir.resolve("models.json"), HerdRegroupIntegrationTest.CATALOG_JSON);
        // n in the ratio 4 : 2 : 1 (m1 : m2 : m3), two 8 GiB models to a device: m1 alone on two devices, m2 and m3 together on two.
        Path streams = Files.writeString(dir.resolve("streams.json"), """
                {"streams": [
                  {"name": "a", "model": "m1", "rate_per_s": 80, "slo_ms": 200},
                  {"name": "b", "model": "m2", "rate_per_s": 40, "slo_ms": 200},
                  {"name": "c", "model": "m3", "rate_per_s": 20, "slo_ms": 200}
                ]}""");
        ServingConfig config = TestConfigs.onBroker(BROKER.get(), "herd-hosts-", c -> {
            c.devices = 4;
            c.deviceMemoryMb = 16_384;
            c.schedulerParallelism = 2;
        });
        Configuration flink = new Configuration();
        flink.set(RestartStrategyOptions.RESTART_STRATEGY, "disable");
        JobClient job = ServingJob.onKafka(config, HerdRegroupIntegrationTest.CATALOG).start(StreamExecutionEnvironment.getExecutionEnvironment(flink));
        try {
            String rest = cluster.getWebInterfaceURL();
            Map<Integer, String> hostOf = awaitDeviceHosts(rest, job.getJobID().toString());
            System.out.println("device slots by TaskManager: " + hostOf);
            assertThat(new TreeSet<>(hostOf.values())).as("the device slots on both TaskManagers").hasSize(2);

            CliRun run = CliRun.job("plan", "herd", "--bootstrap-servers", config.bootstrapServers, "--control-topic", config.controlTopic,
                    "--outcomes-topic", config.outcomesTopic, "--models", models.toString(), "--streams", streams.toString(),
                    "--devices", "4", "--max-group", "2", "--device-memory-mb", "16384", "--wait-ms", "30000",
                    "--taskmanagers-from", rest, "--publish");
            assertThat(run.code()).as(run.out() + "\n" + run.err()).isZero();
            String out = run.out();
            System.out.println(out);

            Map<String, List<Integer>> groups = new HashMap<>();
            Matcher m = Pattern.compile("group (herd-\\d+): 2 device\\(s\\) ([0-9,\\-]+), models").matcher(out);
            while (m.find()) groups.put(m.group(1), slots(m.group(2)));
            assertThat(groups).as(out).hasSize(2);
            for (Map.Entry<String, List<Integer>> g : groups.entrySet()) {
                assertThat(g.getValue()).as(g.getKey() + "'s devices on one TaskManager").map(hostOf::get).containsOnly(hostOf.get(g.getValue().get(0)));
                assertThat(out).contains("group " + g.getKey() + " on TaskManager " + hostOf.get(g.getValue().get(0)) + "\n");
            }
            assertThat(out).contains("applied").doesNotContain("TaskManagers ");
            assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
        } finally {
            job.cancel().get();
        }
    }

    /** {@code 0,2} or {@code 0-1}. */
    private static List<Integer> slots(String ranges) {
        List<Integer> out = new java.util.ArrayList<>();
        for (String part : ranges.split(",")) {
            String[] ends = part.split("-");
            for (int d = Integer.parseInt(ends[0]); d <= Integer.parseInt(ends[ends.length - 1]); d++) out.add(d);
        }
        return out;
    }

    /** Each device slot's TaskManager once every subtask of the inference operator runs. */
    private static Map<Integer, String> awaitDeviceHosts(String rest, String jobId) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        ObjectMapper json = new ObjectMapper();
        long until = System.currentTimeMillis() + 60_000;
        while (true) {
            JsonNode jobNode = json.readTree(http.send(HttpRequest.newBuilder(URI.create(rest + "/jobs/" + jobId)).build(), HttpResponse.BodyHandlers.ofString()).body());
            for (JsonNode v : jobNode.path("vertices")) {
                if (!List.of(v.path("name").asText().split(" -> ")).contains("inference")) continue;
                JsonNode details = json.readTree(http.send(HttpRequest.newBuilder(URI.create(rest + "/jobs/" + jobId + "/vertices/" + v.path("id").asText())).build(),
                        HttpResponse.BodyHandlers.ofString()).body());
                Map<Integer, String> hostOf = new HashMap<>();
                for (JsonNode s : details.path("subtasks")) {
                    if ("RUNNING".equals(s.path("status").asText())) hostOf.put(s.path("subtask").asInt(), s.path("taskmanager-id").asText());
                }
                if (hostOf.size() == 4) return hostOf;
            }
            assertThat(System.currentTimeMillis()).as("every device subtask running within 60 s: " + jobNode).isLessThan(until);
            Thread.sleep(200);
        }
    }
}
