package io.kairos.testbed.job;

import io.kairos.control.ControlTopic;
import io.kairos.control.DecisionPublisher;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.plan.ServingPlan;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.jobs.ServingJob;
import io.kairos.jobs.config.ServingConfig;
import io.kairos.schema.AssignGroup;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.DecisionOutcome;
import io.kairos.schema.DecisionStatus;
import io.kairos.schema.DevicePlacement;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.ResultStatus;
import io.kairos.schema.SetPlacement;
import io.kairos.schema.SetPolicy;
import io.kairos.testbed.CliRun;
import io.kairos.wire.AvroCodec;
import io.kairos.wire.plan.DecisionLedger;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.assertj.core.groups.Tuple.tuple;

/**
 * The control plane against the real job: bad decisions are rejected with their reason and serving
 * goes on; two writers share the control topic without losing each other's decisions, through
 * compaction and a restart from a savepoint; a decision the job did not apply never hides, after
 * compaction, the one it holds from a fresh start. The job runs with restarts disabled, so RUNNING means
 * it never failed.
 */
class ControlPlaneIntegrationTest {

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(
            new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4).build());

    private static final ModelCatalog CATALOG = ModelCatalog.builtIn();
    // The log cleaner looks for work every 100 ms rather than every 15 s, so that compaction is seen within a test.
    @RegisterExtension
    static final BrokerForClass BROKER = new BrokerForClass(Map.of("log.cleaner.backoff.ms", "100"));
    private static int run;

    @Test
    void badDecisionsAreRejectedWithTheirReasonAndServingGoesOn() throws Exception {
        ServingConfig config = config(c -> {});
        try (TopicClient kafka = new TopicClient(BROKER.get().bootstrapServers());
             DecisionPublisher user = publisher(config, "user")) {
            JobClient job = start(config, null);
            try {
                awaitServing(kafka, config, "warm-up");

                // The command waits for the job's verdict and prints it.
                CliRun place = CliRun.job("control", "place", "--bootstrap-servers", BROKER.get().bootstrapServers(),
                        "--control-topic", config.controlTopic, "--outcomes-topic", config.outcomesTopic,
                        "--group", "default", "--device", "7=mlp");
                assertThat(place.code()).as(place.err()).isEqualTo(1);
                assertThat(place.out().strip()).isEqualTo("rejected: device 7 does not exist: the job has devices 0..1");

                DecisionOutcome unknownPolicy = decide(user, SetPolicy.newBuilder().setGroup("default").setPolicy("fastest").build());
                assertThat(unknownPolicy.getStatus()).isEqualTo(DecisionStatus.REJECTED);
                assertThat(unknownPolicy.getReason()).startsWith("unknown scheduling policy 'fastest'");
                assertThat(unknownPolicy.getKey()).isEqualTo("policy/default");

                // A writer that files a decision under another key: compaction would lose it, so it is refused.
                sendRaw(config, "assign/resnet50", ControlDecision.newBuilder().setVersion(1).setIssuedAtMicros(1).setIssuedBy("raw")
                        .setAction(AssignGroup.newBuilder().setModel("mlp").setGroup("elsewhere").build()).build());
                DecisionOutcome misfiled = kafka.readUntil(config.outcomesTopic, DecisionOutcome.class,
                        l -> l.stream().anyMatch(o -> o.getWriter().equals("raw")), Duration.ofSeconds(30))
                        .stream().filter(o -> o.getWriter().equals("raw")).findFirst().orElseThrow();
                assertThat(misfiled.getStatus()).isEqualTo(DecisionStatus.REJECTED);
                assertThat(misfiled.getReason()).isEqualTo("written under key 'assign/resnet50', but the key of its action is 'assign/mlp'");

                // The plan is unchanged and requests are served, by the same job: it never restarted.
                List<InferenceResult> served = serve(kafka, config, "after-", List.of("mlp", "resnet50"), 20);
                assertThat(served).hasSize(20).allSatisfy(r -> assertThat(r.getStatus()).as(r.getReason()).isEqualTo(ResultStatus.OK));
                assertThat(served).extracting(InferenceResult::getDevice).containsOnly(0, 1).contains(0, 1);
                assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
            } finally {
                job.cancel().get();
            }
        }
    }

    /** For each policy, a value its parameters cannot take. */
    private static final List<SetPolicy> BAD_PARAMETERS = List.of(
            policy("clockwork", "lookahead_ms", "abc"),
            policy("kairos", "lookahead_ms", "abc"),
            policy("flex", "lambda", "abc"),
            policy("triton", "max_batch", "-5"),
            policy("triton", "max_queue_delay_ms", "soon"),
            policy("static", "batch", "abc"),
            policy("fifo", "shed", "maybe"),
            policy("edf", "shed", "maybe"),
            policy("work-conserving", "shed", "maybe"));

    @Test
    void aBadPolicyParameterIsRejectedForEveryPolicyAndServingGoesOn() throws Exception {
        // The values are checked by the policies' typed configuration when a decision is applied;
        // until every policy has one, this test has nothing to check.
        ServingPlan local = new ServingPlan(2, "clockwork", PolicyParams.NONE);
        DecisionLedger ledger = new DecisionLedger(local);
        List<String> unchecked = new ArrayList<>();
        long v = 0;
        for (SetPolicy p : BAD_PARAMETERS) {
            ControlDecision d = ControlDecision.newBuilder().setVersion(++v).setIssuedAtMicros(1).setIssuedBy("probe").setAction(p).build();
            if (ledger.decide(d, 1).getStatus() != DecisionStatus.REJECTED) unchecked.add(p.getPolicy() + " " + p.getParams());
        }
        assumeThat(unchecked).as("policy parameters the core does not check when a decision is applied").isEmpty();

        ServingConfig config = config(c -> {});
        try (TopicClient kafka = new TopicClient(BROKER.get().bootstrapServers());
             DecisionPublisher tuner = publisher(config, "tuner")) {
            JobClient job = start(config, null);
            try {
                awaitServing(kafka, config, "warm-up");
                for (SetPolicy p : BAD_PARAMETERS) {
                    DecisionOutcome o = decide(tuner, p);
                    String param = p.getParams().keySet().iterator().next();
                    assertThat(o.getStatus()).as(p.toString()).isEqualTo(DecisionStatus.REJECTED);
                    assertThat(o.getReason()).as(p.toString()).contains("default").contains(param).contains(p.getParams().get(param));
                }
                List<InferenceResult> served = serve(kafka, config, "after-", List.of("mlp", "resnet50"), 20);
                assertThat(served).hasSize(20).allSatisfy(r -> assertThat(r.getStatus()).as(r.getReason()).isEqualTo(ResultStatus.OK));
                assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
            } finally {
                job.cancel().get();
            }
        }
    }

    @Test
    void twoWritersKeepTheirDecisionsThroughCompactionAndRestarts(@TempDir Path savepoints) throws Exception {
        ServingConfig config = config(c -> BROKER.get().createTopic(c.controlTopic, 1, Map.of(
                "cleanup.policy", "compact", "segment.ms", "100", "min.cleanable.dirty.ratio", "0.01", "min.compaction.lag.ms", "0")));
        AtomicLong tunerClock = new AtomicLong(); // the tuner counts 1, 2, 3...: a global counter would drop all its decisions
        try (TopicClient kafka = new TopicClient(BROKER.get().bootstrapServers());
             DecisionPublisher planner = publisher(config, "planner");
             DecisionPublisher tuner = new DecisionPublisher(BROKER.get().bootstrapServers(), config.controlTopic, config.outcomesTopic, "tuner", tunerClock::incrementAndGet)) {
            JobClient job = start(config, null);
            String savepoint;
            try {
                awaitServing(kafka, config, "warm-up-1");
                // The planner splits the two devices: the default group on device 0, "vision" on device 1 ...
                assertApplied(planner, placement("default", 0, "mlp", "resnet50", "googlenet"));
                assertApplied(planner, placement("vision", 1, "mlp", "resnet50", "googlenet"));
                assertApplied(planner, assign("mlp", "default"));
                assertApplied(planner, assign("mlp", "vision"));
                assertApplied(planner, assign("googlenet", "vision"));
                // ... and the tuner, counting from 1, moves resnet50 in and googlenet back out.
                assertApplied(tuner, assign("resnet50", "vision"));
                assertApplied(tuner, assign("googlenet", "default"));
                assertThat(devicesServing(kafka, config, "phase1-")).isEqualTo(Map.of("mlp", List.of(1), "resnet50", List.of(1), "googlenet", List.of(0)));

                // Compaction: a record written after segment.ms closes the segment that holds the
                // first seven; the cleaner keeps the latest of each of their five keys.
                Thread.sleep(200);
                assertApplied(tuner, assign("resnet50", "vision"));
                List<ControlDecision> compacted = awaitCompaction(config, 6);
                assertThat(compacted).extracting(d -> d.getIssuedBy() + " " + d.getKey()).containsExactly(
                        "planner placement/default", "planner placement/vision", "planner assign/mlp",
                        "tuner assign/resnet50", "tuner assign/googlenet", "tuner assign/resnet50");

                savepoint = job.stopWithSavepoint(false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL).get();
            } catch (Exception | AssertionError e) {
                job.cancel();
                throw e;
            }

            // Restart from the savepoint: the plan comes from the job's state, not from the log.
            int outcomesBefore = kafka.readUntil(config.outcomesTopic, DecisionOutcome.class, l -> false, Duration.ofSeconds(2)).size();
            job = start(config, savepoint);
            try {
                assertThat(devicesServing(kafka, config, "phase2-")).isEqualTo(Map.of("mlp", List.of(1), "resnet50", List.of(1), "googlenet", List.of(0)));
                // The tuner's googlenet decision once more (a replay): its version is remembered. The
                // planner then takes googlenet back, under the same key, so that the replay is
                // superseded in the log too.
                sendRaw(config, "assign/googlenet", ControlDecision.newBuilder().setVersion(2).setIssuedAtMicros(1).setIssuedBy("tuner").setKey("assign/googlenet")
                        .setAction(assign("googlenet", "default")).build());
                assertApplied(planner, assign("googlenet", "vision"));
                List<DecisionOutcome> after = kafka.readUntil(config.outcomesTopic, DecisionOutcome.class,
                        l -> l.size() >= outcomesBefore + 2 && l.subList(outcomesBefore, l.size()).stream().anyMatch(o -> o.getStatus() == DecisionStatus.APPLIED),
                        Duration.ofSeconds(30));
                List<DecisionOutcome> since = after.subList(outcomesBefore, after.size());
                assertThat(tuple(since.get(0).getWriter(), since.get(0).getStatus())).isEqualTo(tuple("tuner", DecisionStatus.DUPLICATE));
                // The replay (its content differs from the decision held: another issued_at) made
                // the job restore the key; reading that back is a duplicate too.
                assertThat(since).as("no decision decided again: the ledger came from the savepoint")
                        .filteredOn(o -> o.getStatus() != DecisionStatus.DUPLICATE)
                        .extracting(DecisionOutcome::getWriter, DecisionOutcome::getStatus)
                        .containsExactly(tuple("planner", DecisionStatus.APPLIED));
                assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
                // The restore that the replay set off races with the planner's decision to the log.
                // Once the job has read its restore back (the tuner's second duplicate), any restore
                // still needed is on its way: wait for the log's last record of the key to be the
                // planner's, which is what a fresh start reads. (A job stopped inside that window
                // leaves the stale restore last: docs/control-plane.md, "Compaction keeps what the job holds".)
                kafka.readUntil(config.outcomesTopic, DecisionOutcome.class, l -> l.subList(Math.min(outcomesBefore, l.size()), l.size()).stream()
                        .filter(o -> o.getWriter().equals("tuner") && o.getStatus() == DecisionStatus.DUPLICATE).count() >= 2, Duration.ofSeconds(30));
                List<ControlDecision> log = kafka.readUntil(config.controlTopic, ControlDecision.class,
                        l -> lastOfKey(l, "assign/googlenet").map(d -> d.getIssuedBy().equals("planner")).orElse(false), Duration.ofSeconds(30));
                assertThat(lastOfKey(log, "assign/googlenet")).get().extracting(ControlDecision::getIssuedBy).isEqualTo("planner");
            } finally {
                job.cancel().get();
            }

            // A fresh start, with no state: the plan is rebuilt from the compacted topic alone. The
            // requests wait until the job has read the planner's last decision: a fresh job serves
            // from its start, with the plan as far as it has read the topic.
            int outcomesBeforeFresh = kafka.readUntil(config.outcomesTopic, DecisionOutcome.class, l -> false, Duration.ofSeconds(1)).size();
            job = start(config, null);
            try {
                kafka.readUntil(config.outcomesTopic, DecisionOutcome.class, l -> l.subList(Math.min(outcomesBeforeFresh, l.size()), l.size()).stream()
                        .anyMatch(o -> o.getWriter().equals("planner") && o.getKey().equals("assign/googlenet") && o.getStatus() == DecisionStatus.APPLIED),
                        Duration.ofSeconds(30));
                assertThat(devicesServing(kafka, config, "phase3-")).isEqualTo(Map.of("mlp", List.of(1), "resnet50", List.of(1), "googlenet", List.of(1)));
            } finally {
                job.cancel().get();
            }
        }
    }

    @Test
    void aDecisionTheJobDidNotApplyNeverHidesTheOneItHoldsFromAFreshStart() throws Exception {
        ServingConfig config = config(c -> BROKER.get().createTopic(c.controlTopic, 1, Map.of(
                "cleanup.policy", "compact", "segment.ms", "100", "min.cleanable.dirty.ratio", "0.01", "min.compaction.lag.ms", "0")));
        try (TopicClient kafka = new TopicClient(BROKER.get().bootstrapServers());
             DecisionPublisher planner = publisher(config, "planner");
             DecisionPublisher tuner = publisher(config, "tuner")) {
            JobClient job = start(config, null);
            Map<String, List<Integer>> expected = Map.of("mlp", List.of(1), "resnet50", List.of(0), "googlenet", List.of(0));
            try {
                awaitServing(kafka, config, "warm-up");
                assertApplied(planner, placement("default", 0, "mlp", "resnet50", "googlenet"));
                assertApplied(planner, placement("vision", 1, "mlp", "resnet50", "googlenet"));
                DecisionPublisher.Published mlpToVision = planner.publish(assign("mlp", "vision"));
                assertThat(planner.awaitOutcome(mlpToVision, Duration.ofSeconds(30))).get()
                        .extracting(DecisionOutcome::getStatus).isEqualTo(DecisionStatus.APPLIED);

                // After each good decision, a record of its key that the job does not apply: a
                // rejection, and the planner's version written again with other content. Each is
                // now the last record of its key; compaction would keep it and drop the good one.
                assertThat(decide(tuner, placement("vision", 7, "mlp")).getStatus()).isEqualTo(DecisionStatus.REJECTED);
                sendRaw(config, "assign/mlp", ControlDecision.newBuilder().setVersion(mlpToVision.version()).setIssuedAtMicros(1)
                        .setIssuedBy("planner").setKey("assign/mlp").setAction(assign("mlp", "default")).build());
                // And a rejected first decision of a key: the job holds nothing for it.
                assertThat(decide(tuner, SetPolicy.newBuilder().setGroup("vision").setPolicy("fastest").build()).getStatus())
                        .isEqualTo(DecisionStatus.REJECTED);

                // The job wrote back what it holds for placement/vision and assign/mlp, and a
                // tombstone for policy/vision; it read the two decisions back as duplicates, and
                // that is all: reading back a restore writes nothing.
                List<DecisionOutcome> echoes = kafka.readUntil(config.outcomesTopic, DecisionOutcome.class,
                        l -> duplicates(l, "planner") >= 3, Duration.ofSeconds(30));
                assertThat(echoes).filteredOn(o -> o.getStatus() == DecisionStatus.DUPLICATE)
                        .extracting(DecisionOutcome::getKey).containsExactlyInAnyOrder("assign/mlp", "placement/vision", "assign/mlp");
                assertThat(devicesServing(kafka, config, "running-")).isEqualTo(expected);

                // Compaction: a record written after segment.ms closes the segment that holds the rest.
                Thread.sleep(200);
                assertApplied(planner, assign("resnet50", "default"));
                List<ControlDecision> compacted = awaitCompaction(config, 4);
                assertThat(compacted).extracting(d -> d.getIssuedBy() + " " + d.getKey()).containsExactly(
                        "planner placement/default", "planner placement/vision", "planner assign/mlp", "planner assign/resnet50");
                assertThat(((AssignGroup) compacted.get(2).getAction()).getGroup()).isEqualTo("vision");
                assertThat(((SetPlacement) compacted.get(1).getAction()).getDevices()).extracting(DevicePlacement::getDevice).containsExactly(1);
                assertThat(ControlTopic.read(config.bootstrapServers, config.controlTopic, Duration.ofSeconds(10)).skipped())
                        .as("the tombstone of policy/vision").isEqualTo(1);

                List<DecisionOutcome> all = kafka.readUntil(config.outcomesTopic, DecisionOutcome.class, l -> false, Duration.ofSeconds(1));
                assertThat(all).as("nothing more was decided: no restore loops").hasSize(echoes.size() + 1);
                assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
            } finally {
                job.cancel().get();
            }

            // A fresh start, with no state, from the compacted topic: the plan the running job had.
            int outcomesBefore = kafka.readUntil(config.outcomesTopic, DecisionOutcome.class, l -> false, Duration.ofSeconds(1)).size();
            job = start(config, null);
            try {
                List<DecisionOutcome> fresh = kafka.readUntil(config.outcomesTopic, DecisionOutcome.class, l -> l.size() >= outcomesBefore + 4, Duration.ofSeconds(30));
                assertThat(devicesServing(kafka, config, "fresh-")).isEqualTo(expected);
                assertThat(fresh.subList(outcomesBefore, fresh.size())).extracting(DecisionOutcome::getKey, DecisionOutcome::getStatus).containsExactly(
                        tuple("placement/default", DecisionStatus.APPLIED), tuple("placement/vision", DecisionStatus.APPLIED),
                        tuple("assign/mlp", DecisionStatus.APPLIED), tuple("assign/resnet50", DecisionStatus.APPLIED));
            } finally {
                job.cancel().get();
            }
        }
    }

    private static long duplicates(List<DecisionOutcome> outcomes, String writer) {
        return outcomes.stream().filter(o -> o.getWriter().equals(writer) && o.getStatus() == DecisionStatus.DUPLICATE).count();
    }

    // ---- helpers ----

    private static SetPolicy policy(String policy, String key, String value) {
        return SetPolicy.newBuilder().setGroup("default").setPolicy(policy).setParams(Map.of(key, value)).build();
    }

    private static SetPlacement placement(String group, int device, String... models) {
        return SetPlacement.newBuilder().setGroup(group)
                .setDevices(List.of(DevicePlacement.newBuilder().setDevice(device).setModels(List.of(models)).build())).build();
    }

    private static AssignGroup assign(String model, String group) {
        return AssignGroup.newBuilder().setModel(model).setGroup(group).build();
    }

    private static DecisionPublisher publisher(ServingConfig config, String writer) {
        return new DecisionPublisher(config.bootstrapServers, config.controlTopic, config.outcomesTopic, writer);
    }

    private static DecisionOutcome decide(DecisionPublisher publisher, Object action) {
        return publisher.awaitOutcome(publisher.publish(action), Duration.ofSeconds(30)).orElseThrow(() -> new AssertionError("no outcome for " + action));
    }

    private static void assertApplied(DecisionPublisher publisher, Object action) {
        DecisionOutcome o = decide(publisher, action);
        assertThat(o.getStatus()).as(o.getReason()).isEqualTo(DecisionStatus.APPLIED);
    }

    private static void sendRaw(ServingConfig config, String key, ControlDecision decision) {
        try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(Map.of("bootstrap.servers", config.bootstrapServers), new ByteArraySerializer(), new ByteArraySerializer())) {
            p.send(new ProducerRecord<>(config.controlTopic, key.getBytes(StandardCharsets.UTF_8), AvroCodec.of(ControlDecision.class).encode(decision)));
        }
    }

    /** The control topic once the cleaner has left {@code records} of it. */
    private static List<ControlDecision> awaitCompaction(ServingConfig config, int records) throws InterruptedException {
        long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        List<ControlDecision> read;
        while ((read = ControlTopic.read(config.bootstrapServers, config.controlTopic, Duration.ofSeconds(10)).decisions()).size() > records
                && System.nanoTime() < until) {
            Thread.sleep(100);
        }
        return read;
    }

    /** Sends a few requests of each model and returns the devices that served each. */
    private static Map<String, List<Integer>> devicesServing(TopicClient kafka, ServingConfig config, String prefix) {
        List<InferenceResult> served = serve(kafka, config, prefix, List.of("mlp", "resnet50", "googlenet"), 12);
        assertThat(served).hasSize(12).allSatisfy(r -> assertThat(r.getStatus()).as(r.getReason()).isEqualTo(ResultStatus.OK));
        return served.stream().collect(Collectors.groupingBy(InferenceResult::getModel,
                Collectors.collectingAndThen(Collectors.mapping(InferenceResult::getDevice, Collectors.toSet()), s -> s.stream().sorted().toList())));
    }

    private static List<InferenceResult> serve(TopicClient kafka, ServingConfig config, String prefix, List<String> models, int n) {
        for (int i = 0; i < n; i++) kafka.send(config.requestsTopic, InferenceRequest.class, ServingJobIntegrationTest.request(prefix + i, models.get(i % models.size()), 5_000));
        kafka.flush();
        return kafka.readUntil(config.resultsTopic, InferenceResult.class,
                l -> l.stream().filter(r -> r.getRequestId().startsWith(prefix)).count() >= n, Duration.ofSeconds(60))
                .stream().filter(r -> r.getRequestId().startsWith(prefix)).toList();
    }

    private static void awaitServing(TopicClient kafka, ServingConfig config, String id) {
        kafka.send(config.requestsTopic, InferenceRequest.class, ServingJobIntegrationTest.request(id, "mlp", 120_000));
        kafka.flush();
        assertThat(kafka.readUntil(config.resultsTopic, InferenceResult.class, l -> l.stream().anyMatch(r -> r.getRequestId().equals(id)), Duration.ofSeconds(60)))
                .extracting(InferenceResult::getRequestId).contains(id);
    }

    private static ServingConfig config(Consumer<ServingConfig.Builder> adjust) {
        run++;
        return TestConfigs.onBroker(BROKER.get(), "cp" + run + "-", adjust);
    }

    /** Starts the job with restarts disabled (a failure ends it), from {@code savepoint} if given. */
    private static JobClient start(ServingConfig config, String savepoint) throws Exception {
        Configuration flink = new Configuration();
        flink.set(RestartStrategyOptions.RESTART_STRATEGY, "disable");
        if (savepoint != null) flink.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        return ServingJob.onKafka(config, CATALOG).start(StreamExecutionEnvironment.getExecutionEnvironment(flink));
    }

    /** The last decision in {@code log} filed under {@code key}. */
    private static java.util.Optional<ControlDecision> lastOfKey(List<ControlDecision> log, String key) {
        ControlDecision last = null;
        for (ControlDecision d : log) {
            if (key.equals(d.getKey())) last = d;
        }
        return java.util.Optional.ofNullable(last);
    }
}
