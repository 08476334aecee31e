package io.kairos.testbed;

import io.kairos.control.ControlTopic;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.plan.ServingPlan;
import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.DecisionOutcome;
import io.kairos.schema.SetPlacement;
import io.kairos.tools.embedded.EmbeddedKafkaBroker;
import io.kairos.wire.plan.DecisionLedger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * kairos plan herd on a real broker, with no job: the decisions {@code --publish} writes are
 * applied by the job's own ledger, a second plan regroups the first without a device ever in two
 * groups, and {@code --dry-run} simulates the job's current plan beside the new one.
 */
class PlanHerdOnBrokerTest {
    static EmbeddedKafkaBroker broker;
    static final String CONTROL = "plan-herd-control";
    static final String OUTCOMES = "plan-herd-outcomes";
    @TempDir
    static Path dir;
    static String models;

    /** Three models of 8 GiB: two fit a 16 GiB device, three do not. Each 1 ms at batch 1, its only size. */
    static final String CATALOG = """
            {"models": [
              {"name": "m1", "input": {"dtype": "FLOAT32", "shape": [1]}, "batch_sizes": [1], "latency_ms": {"table": {"1": 1}}, "memory_bytes": 8589934592},
              {"name": "m2", "input": {"dtype": "FLOAT32", "shape": [1]}, "batch_sizes": [1], "latency_ms": {"table": {"1": 1}}, "memory_bytes": 8589934592},
              {"name": "m3", "input": {"dtype": "FLOAT32", "shape": [1]}, "batch_sizes": [1], "latency_ms": {"table": {"1": 1}}, "memory_bytes": 8589934592}
            ]}""";

    @BeforeAll
    static void setUp() throws Exception {
        broker = SharedBroker.get();
        broker.createTopic(CONTROL, 1, Map.of("cleanup.policy", "compact"));
        broker.createTopic(OUTCOMES, 1);
        models = Files.writeString(dir.resolve("models.json"), CATALOG).toString();
    }

    private static String streams(String name, double a, double b, double c) throws Exception {
        return Files.writeString(dir.resolve(name), String.format(java.util.Locale.ROOT, """
                {"streams": [
                  {"name": "a", "model": "m1", "rate_per_s": %s, "slo_ms": 50},
                  {"name": "b", "model": "m2", "rate_per_s": %s, "slo_ms": 50},
                  {"name": "c", "model": "m3", "rate_per_s": %s, "slo_ms": 50}
                ]}""", a, b, c)).toString();
    }

    private static CliRun herd(String streams, String mode) {
        return CliRun.checkout("plan", "herd", "--bootstrap-servers", broker.bootstrapServers(), "--control-topic", CONTROL, "--outcomes-topic", OUTCOMES,
                "--wait-ms", "0", "--models", models, "--streams", streams, "--devices", "4", "--max-group", "3", "--device-memory-mb", "16384", mode);
    }

    @Test
    void publishedPlansAreAppliedByTheJobsLedgerAndRegroupWithoutSharingADevice() throws Exception {
        // The three models have one profile, SLO and CV², so one T for all; n is in the rates' ratio
        // 4 : 2 : 1. As in HerdSolverTest: {m1, m2} on 3 devices (G = 3), {m3} on 1; min bt = 3 / n(a).
        CliRun first = herd(streams("first.json", 400, 200, 100), "--publish");
        assertThat(first.code()).as(first.err()).isZero();
        assertThat(first.out()).contains("group herd-1: 3 device(s) 0-2, models m1, m2").contains("group herd-2: 1 device(s) 3, models m3");
        assertThat(published(first)).containsExactly("placement/default", "placement/herd-1", "policy/herd-1", "assign/m1", "assign/m2",
                "placement/herd-2", "policy/herd-2", "assign/m3");

        ServingPlan plan = replay(8);
        assertThat(plan.groupOf("m1")).isEqualTo("herd-1");
        assertThat(plan.groupOf("m2")).isEqualTo("herd-1");
        assertThat(plan.groupOf("m3")).isEqualTo("herd-2");
        assertThat(plan.devicesOf("herd-1")).extracting(DeviceView::slot).containsExactly(0, 1, 2);
        assertThat(plan.devicesOf("herd-1").get(0).models()).isEqualTo(Set.of("m1", "m2"));
        assertThat(plan.devicesOf("herd-2")).extracting(DeviceView::slot).containsExactly(3);
        assertThat(plan.devicesOf(ServingPlan.DEFAULT_GROUP)).isEmpty();
        assertThat(plan.policyOf("herd-1").policy()).isEqualTo("kairos");

        // Now m3 is the most demanding (n 1 : 2 : 4): {m2, m3} on 3 devices, {m1} on 1. herd-1 shrinks
        // to what it keeps before herd-2 grows, so no device is ever in both.
        CliRun second = herd(streams("second.json", 100, 200, 400), "--publish");
        assertThat(second.code()).as(second.err()).isZero();
        assertThat(second.out()).contains("group herd-1: 3 device(s) 0-2, models m3, m2").contains("group herd-2: 1 device(s) 3, models m1");
        ServingPlan regrouped = replay(8 + published(second).size());
        assertThat(regrouped.groupOf("m1")).isEqualTo("herd-2");
        assertThat(regrouped.groupOf("m2")).isEqualTo("herd-1");
        assertThat(regrouped.groupOf("m3")).isEqualTo("herd-1");
        assertThat(regrouped.devicesOf("herd-2").get(0).models()).isEqualTo(Set.of("m1"));
    }

    @Test
    void aDryRunOfTheDocsExampleSimulatesTheJobsPlanBesideTheNewOne() {
        // The example of docs/planners/herd.md on a control topic of its own (the job's default plan:
        // one group of 12 devices holding every model, 16 GiB each, so models load and evict).
        broker.createTopic(CONTROL + "-docs", 1, Map.of("cleanup.policy", "compact"));
        Path example = Path.of(System.getProperty("kairos.home", ".."), "testbed", "src", "main", "resources", "herd");
        if (!Files.isDirectory(example)) example = Path.of("src", "main", "resources", "herd");
        CliRun r = CliRun.checkout("plan", "herd", "--bootstrap-servers", broker.bootstrapServers(), "--control-topic", CONTROL + "-docs", "--outcomes-topic", OUTCOMES,
                "--models", example.resolve("models.json").toString(), "--streams", example.resolve("streams.json").toString(),
                "--devices", "12", "--max-group", "4", "--device-memory-mb", "16384", "--simulated-s", "10", "--dry-run");
        System.out.println(r.out());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("minimum burst tolerance").containsPattern("current plan: attainment \\d+\\.\\d\\d %")
                .containsPattern("Herd plan: +attainment \\d+\\.\\d\\d %");
        assertThat(r.out()).doesNotContain("published ");
    }

    private static List<String> published(CliRun r) {
        return r.out().lines().filter(l -> l.startsWith("published ")).map(l -> l.split(" ")[1]).toList();
    }

    /**
     * The control topic read into the job's ledger, decision by decision: every one applied, and
     * after each no device in two placed groups. The plan is the job's: 4 devices of 16 GiB.
     */
    private static ServingPlan replay(int expected) {
        ModelCatalog catalog = ModelCatalog.parse(CATALOG, "test");
        DecisionLedger ledger = new DecisionLedger(new ServingPlan(4, 16L << 30, "clockwork", PolicyParams.NONE, catalog));
        List<ControlDecision> decisions = ControlTopic.read(broker.bootstrapServers(), CONTROL, Duration.ofSeconds(15)).decisions();
        assertThat(decisions).hasSize(expected);
        List<String> outcomes = new ArrayList<>();
        Set<String> placed = new java.util.TreeSet<>();
        for (ControlDecision d : decisions) {
            DecisionOutcome o = ledger.decide(d, 1);
            outcomes.add(o.getStatus() + (o.getReason() == null ? "" : " " + o.getReason()));
            if (d.getAction() instanceof SetPlacement p) placed.add(p.getGroup());
            Map<Integer, String> holder = new HashMap<>();
            for (String group : placed) {
                for (DeviceView v : ledger.plan().devicesOf(group)) {
                    String other = holder.putIfAbsent(v.slot(), group);
                    assertThat(other).as("device %d after %s", v.slot(), d.getKey()).isNull();
                }
            }
        }
        assertThat(outcomes).containsOnly("APPLIED");
        return ledger.plan();
    }
}
