package io.kairos.testbed;

import io.kairos.control.ControlTopic;
import io.kairos.core.device.DeviceSlots;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.plan.ServingPlan;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.DecisionOutcome;
import io.kairos.schema.DecisionStatus;
import io.kairos.tools.embedded.EmbeddedKafkaBroker;
import io.kairos.wire.plan.DecisionLedger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * kairos plan pipeline on a real broker, with no job: the decisions {@code --publish} writes are
 * applied by the job's own ledger to a plan of the job's typed devices, and
 * {@code --trace-from-topic} plans on the requests topic's history between two times.
 */
class PlanPipelineOnBrokerTest {
    static EmbeddedKafkaBroker broker;
    static final String CONTROL = "plan-pipeline-control";
    static final String OUTCOMES = "plan-pipeline-outcomes";
    static final String REQUESTS = "plan-pipeline-requests";
    @TempDir
    static Path dir;
    static String models;
    static String chain;
    static String trace;

    /** cpu at 1 an hour, gpu at 3; a: cpu 9 / 12 ms at batch 1 / 2, gpu 4 / 5 ms; b: cpu 2 / 3 ms, gpu 1 / 2 ms. */
    static final String CATALOG = """
            {"hardware": [{"name": "cpu", "price_per_hour": 1}, {"name": "gpu", "price_per_hour": 3}],
             "models": [
              {"name": "a", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 9, "2": 12}},
               "hardware_profiles": {"gpu": {"latency_ms": {"table": {"1": 4, "2": 5}}}}},
              {"name": "b", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 2, "2": 3}},
               "hardware_profiles": {"gpu": {"latency_ms": {"table": {"1": 1, "2": 2}}}}}
            ]}""";

    @BeforeAll
    static void setUp() throws Exception {
        broker = SharedBroker.get();
        broker.createTopic(CONTROL, 1, Map.of("cleanup.policy", "compact"));
        broker.createTopic(OUTCOMES, 1);
        broker.createTopic(REQUESTS, 2);
        models = Files.writeString(dir.resolve("models.json"), CATALOG).toString();
        chain = Files.writeString(dir.resolve("chain.json"), """
                {"pipeline": "chain", "slo_p99_ms": 11,
                 "stages": [{"name": "first", "model": "a"}, {"name": "second", "model": "b"}],
                 "edges": [{"from": "first", "to": "second", "probability": 1}]}""").toString();
        StringBuilder t = new StringBuilder();
        for (int i = 0; i < 1500; i++) t.append((i / 3) * 10).append('\n');
        trace = Files.writeString(dir.resolve("trace.txt"), t).toString();
    }

    @Test
    void thePublishedDecisionsServeThePlanInTheJobsLedger() {
        // The plan of InferLinePlannerTest: first on gpu at batch 2 x1 (slot 2), second on cpu x1 (slot 0).
        // The control topic holds no placement yet: the default group holds every slot, and gives 0 and 2 up first.
        CliRun r = CliRun.checkout("plan", "pipeline", "--bootstrap-servers", broker.bootstrapServers(), "--control-topic", CONTROL, "--outcomes-topic", OUTCOMES,
                "--wait-ms", "0", "--models", models, "--pipeline", chain, "--trace", trace, "--devices", "cpu:2,gpu:2", "--publish");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out().lines().filter(l -> l.startsWith("published ")).map(l -> l.split(" ")[1]).toList()).containsExactly(
                "placement/default", "placement/chain-first", "policy/chain-first", "assign/a", "placement/chain-second", "policy/chain-second", "assign/b",
                "pipeline/chain");

        ModelCatalog catalog = ModelCatalog.parse(CATALOG, "test");
        DecisionLedger ledger = new DecisionLedger(new ServingPlan(DeviceSlots.parse("cpu:2,gpu:2", catalog), Long.MAX_VALUE, "clockwork", PolicyParams.NONE, catalog));
        List<ControlDecision> decisions = ControlTopic.read(broker.bootstrapServers(), CONTROL, Duration.ofSeconds(15)).decisions();
        assertThat(decisions).hasSize(8);
        List<String> outcomes = new ArrayList<>();
        for (ControlDecision d : decisions) {
            DecisionOutcome o = ledger.decide(d, 1);
            outcomes.add(o.getStatus() + (o.getReason() == null ? "" : " " + o.getReason()));
        }
        assertThat(outcomes).containsOnly(DecisionStatus.APPLIED.name());
        ServingPlan plan = ledger.plan();
        assertThat(plan.groupOf("a")).isEqualTo("chain-first");
        assertThat(plan.groupOf("b")).isEqualTo("chain-second");
        assertThat(plan.devicesOf("chain-first")).extracting(v -> v.slot()).containsExactly(2);
        assertThat(plan.devicesOf("chain-second")).extracting(v -> v.slot()).containsExactly(0);
        assertThat(plan.devicesOf("chain-first").get(0).models()).isEqualTo(Set.of("a"));
        // A device serves one group: the default group keeps the rest, holding no model (a and b are the stages').
        assertThat(plan.devicesOf("default")).extracting(v -> v.slot()).containsExactly(1, 3);
        assertThat(plan.devicesOf("default")).allSatisfy(v -> assertThat(v.models()).isEmpty());
        assertThat(plan.policyOf("chain-first").policy()).isEqualTo("triton");
        assertThat(plan.policyOf("chain-first").params().group())
                .containsEntry("max_batch", "2").containsEntry("max_queue_delay_ms", "0").containsEntry("queue_timeout_ms", "0").containsEntry("shed", "false");
        assertThat(plan.pipeline("chain").sloP99Micros()).isEqualTo(11_000);
    }

    @Test
    void aTraceFromTheRequestsTopicTakesTheRecordsBetweenTheTwoTimes() {
        // 300 records 10 ms apart over both partitions, from an hour ago; the window takes the 200 in its middle.
        long base = System.currentTimeMillis() - 3_600_000;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of("bootstrap.servers", broker.bootstrapServers()),
                new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < 300; i++) producer.send(new ProducerRecord<>(REQUESTS, i % 2, base + i * 10L, null, new byte[]{1}));
        }
        CliRun r = CliRun.checkout("plan", "pipeline", "--bootstrap-servers", broker.bootstrapServers(), "--models", models, "--pipeline", chain,
                "--requests-topic", REQUESTS, "--trace-from-topic", (base + 500) + ".." + (base + 2_500), "--devices", "cpu:4,gpu:4", "--slo-p99", "30");
        assertThat(r.code()).as(r.err()).isZero();
        // Records 50 to 249: 200 arrivals from base + 500 to base + 2,490 ms.
        assertThat(r.out()).contains("trace " + REQUESTS + " ").contains(": 200 arrivals over 1.990 s, 100.5 requests/s, CV² 0")
                .contains("pipeline chain: P99 SLO 30 ms");

        CliRun none = CliRun.checkout("plan", "pipeline", "--bootstrap-servers", broker.bootstrapServers(), "--models", models, "--pipeline", chain,
                "--requests-topic", REQUESTS, "--trace-from-topic", (base - 60_000) + ".." + (base - 1), "--devices", "cpu:4");
        assertThat(none.code()).isEqualTo(2);
        assertThat(none.err().strip()).contains("--trace-from-topic topic '" + REQUESTS + "' has no record between ").doesNotContain("\n");
    }
}
