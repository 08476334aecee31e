package io.kairos.testbed;

import io.kairos.tools.embedded.EmbeddedKafkaBroker;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code kairos topics create} on a real broker: the job's seven topics as {@code infra/cluster}
 * makes them, a second run that finds them made, and a topic made otherwise reported in one line.
 * Each test names its topics with a prefix of its own (serve's topic flags), the broker being shared.
 */
class TopicsCreateOnBrokerTest {
    static EmbeddedKafkaBroker broker;

    @BeforeAll
    static void startBroker() {
        broker = SharedBroker.get();
    }

    /** {@code topics create} on the shared broker with every topic named {@code prefix} and its role, then {@code more}. */
    private static CliRun create(String prefix, String... more) {
        List<String> args = new ArrayList<>(List.of("topics", "create", "--bootstrap-servers", broker.bootstrapServers(),
                "--requests-topic", prefix + "requests", "--results-topic", prefix + "results", "--telemetry-topic", prefix + "telemetry",
                "--control-topic", prefix + "control", "--outcomes-topic", prefix + "control-outcomes",
                "--device-reports-topic", prefix + "device-reports", "--pipeline-hops-topic", prefix + "pipeline-hops"));
        args.addAll(List.of(more));
        return CliRun.job(args.toArray(String[]::new));
    }

    @Test
    void createsTheJobsTopicsAsTheClusterScriptDoesThenFindsThemMade() throws Exception {
        CliRun first = create("tc1-");

        assertThat(first.code()).as(first.err()).isZero();
        assertThat(first.err()).isEmpty();
        assertThat(first.out().lines()).hasSize(7).allMatch(l -> l.startsWith("created tc1-"));
        assertThat(first.out()).contains("created tc1-control (control): 1 partition(s), 1 replica(s), cleanup.policy=compact, retention.ms=-1")
                .contains("created tc1-requests (requests): 4 partition(s), 1 replica(s), retention.ms=3600000");
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
            Map<String, Integer> partitions = Map.of("requests", 4, "results", 4, "telemetry", 1, "control", 1, "control-outcomes", 1,
                    "device-reports", 1, "pipeline-hops", 4);
            Map<String, String> retention = Map.of("requests", "3600000", "results", "86400000", "telemetry", "86400000", "control", "-1",
                    "control-outcomes", "86400000", "device-reports", "600000", "pipeline-hops", "600000");
            for (String role : partitions.keySet()) {
                String name = "tc1-" + role;
                TopicDescription d = admin.describeTopics(List.of(name)).allTopicNames().get().get(name);
                assertThat(d.partitions()).as(name).hasSize(partitions.get(role)).allMatch(p -> p.leader() != null);
                Config c = admin.describeConfigs(List.of(new ConfigResource(ConfigResource.Type.TOPIC, name))).all().get().values().iterator().next();
                assertThat(c.get("retention.ms").value()).as(name).isEqualTo(retention.get(role));
                assertThat(c.get("cleanup.policy").value()).as(name).isEqualTo(role.equals("control") ? "compact" : "delete");
            }
        }

        CliRun again = create("tc1-");

        assertThat(again.code()).as(again.err()).isZero();
        assertThat(again.out().lines()).hasSize(7).allMatch(l -> l.startsWith("exists  tc1-"));
        assertThat(again.out()).contains("exists  tc1-control (control): 1 partition(s), 1 replica(s), cleanup.policy=compact, retention.ms=-1");
    }

    @Test
    void aTopicMadeOtherwiseIsReportedInOneLineLeftAsItIsAndTheRestMade() {
        broker.createTopic("tc2-control", 2); // neither compacted nor in one partition
        broker.createTopic("tc2-requests", 4, Map.of("retention.ms", "3600000"));

        CliRun r = create("tc2-", "--partitions", "4");

        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err().lines()).containsExactly("kairos topics create: tc2-control (control) exists with other settings, left as it is: "
                + "2 partition(s) (wanted 1), cleanup.policy=delete (wanted compact), retention.ms=604800000 (wanted -1)");
        assertThat(r.out()).contains("exists  tc2-requests (requests): 4 partition(s)").contains("created tc2-results (results)")
                .doesNotContain("tc2-control (");
    }

    @Test
    void replicasTheBrokersCannotHaveAreAOneLineErrorAndBadFlagsAreRefused() {
        CliRun tooMany = create("tc3-", "--replication-factor", "3", "--timeout-ms", "1500"); // asked again until then: a broker may still be registering
        assertThat(tooMany.code()).isEqualTo(1);
        assertThat(tooMany.err().strip()).startsWith("kairos topics create: error: ").contains("replication factor").doesNotContain("\n");

        CliRun bad = create("tc3-", "--replication-factor", "1", "--min-insync-replicas", "2");
        assertThat(bad.code()).isEqualTo(2);
        assertThat(bad.err().strip()).isEqualTo("kairos topics create: --min-insync-replicas 2 is more than --replication-factor 1: no write would ever succeed"
                + " (see 'kairos topics create --help')");

        CliRun same = CliRun.job("topics", "create", "--bootstrap-servers", broker.bootstrapServers(), "--results-topic", "kairos-requests");
        assertThat(same.code()).isEqualTo(2);
        assertThat(same.err()).startsWith("kairos topics create: two roles name the same topic");
    }
}
