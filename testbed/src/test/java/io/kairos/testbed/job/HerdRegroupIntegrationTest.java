package io.kairos.testbed.job;

import io.kairos.core.model.ModelCatalog;
import io.kairos.core.time.WallClock;
import io.kairos.jobs.ServingJob;
import io.kairos.jobs.config.ServingConfig;
import io.kairos.schema.DType;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.ResultStatus;
import io.kairos.schema.Tensor;
import io.kairos.testbed.CliRun;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A new Herd plan published to the running job mid-stream ({@code kairos plan herd --publish}):
 * the job regroups its models while requests keep coming, every request gets exactly one result,
 * and what it serves after the change is served as well as by a job started on the new plan.
 *
 * <p>Three models of 8 GiB on four 16 GiB devices (two fit one device), each 5 ms a request
 * (batch 1 only): a device serves 200 requests/s. The traffic: m3 at 300/s, m1 and m2 at 40/s
 * each. The first plan is for the opposite (m1 the busiest): {m1, m2} on devices 0-2, {m3} on
 * device 3, where m3 is over its one device's capacity. The second plan is for the traffic:
 * {m3, m2} on 0-2, {m1} on 3 (as {@code PlanHerdOnBrokerTest} works out), so m3 moves from
 * herd-2 to herd-1 and m1 from herd-1 to herd-2, with requests queued in both.
 */
class HerdRegroupIntegrationTest {

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(
            new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4).build());
    @RegisterExtension
    static final BrokerForClass BROKER = new BrokerForClass();
    @TempDir
    static Path dir;

    static final String CATALOG_JSON = """
            {"models": [
              {"name": "m1", "input": {"dtype": "FLOAT32", "shape": [1]}, "batch_sizes": [1], "latency_ms": {"table": {"1": 5}}, "memory_bytes": 8589934592},
              {"name": "m2", "input": {"dtype": "FLOAT32", "shape": [1]}, "batch_sizes": [1], "latency_ms": {"table": {"1": 5}}, "memory_bytes": 8589934592},
              {"name": "m3", "input": {"dtype": "FLOAT32", "shape": [1]}, "batch_sizes": [1], "latency_ms": {"table": {"1": 5}}, "memory_bytes": 8589934592}
            ]}""";
    static final ModelCatalog CATALOG = ModelCatalog.parse(CATALOG_JSON, "herd-regroup-test");
    /** Requests per second of m1, m2, m3. */
    static final double[] RATES = {40, 40, 300};
    static final double SLO_MS = 200;
    /** Results back before the measured part begins: the job is serving, its code warm. */
    static final int WARM_UP_RESULTS = 300;
    static final long AFTER_MS = 5_000;

    @Test
    void aNewPlanMidStreamMovesTheQueuesAndServesEveryRequestOnceAsWellAsAJobStartedOnIt() throws Exception {
        regroup(1);
    }

    /**
     * The same with the group scheduler on two subtasks, herd-1 on one and herd-2 on the other:
     * the queues of the models that change groups stay where they are and are served there
     * (HerdDecisions keeps a leaving model on its old group's devices until it is routed), every
     * request still gets one result.
     */
    @Test
    void theSameWithTheGroupsOnTwoSchedulerSubtasks() throws Exception {
        assertThat(KeyGroupRangeAssignment.assignKeyToParallelOperator("herd-1", 128, 2))
                .as("the two groups on different subtasks").isNotEqualTo(KeyGroupRangeAssignment.assignKeyToParallelOperator("herd-2", 128, 2));
        regroup(2);
    }

    private void regroup(int schedulerParallelism) throws Exception {
        Path models = Files.writeString(dir.resolve("models.json"), CATALOG_JSON);
        // The plans' rates only shape the groups (n in the ratio 4 : 2 : 1, then 1 : 2 : 4).
        Path first = streams("first.json", 80, 40, 20);
        Path second = streams("second.json", 20, 40, 80);

        // The job regrouped while serving.
        ServingConfig config = config("herd-regroup-" + schedulerParallelism + "-", schedulerParallelism);
        Served regrouped;
        long changeMs;
        try (TopicClient kafka = new TopicClient(BROKER.get().bootstrapServers())) {
            JobClient job = start(config);
            try {
                publish(config, models, first);
                Traffic traffic = new Traffic(kafka, config, "r-");
                traffic.start();
                traffic.warmUp();
                long changeFrom = WallClock.nowMicros();
                String out = publish(config, models, second);
                long changed = WallClock.nowMicros();
                changeMs = (changed - changeFrom) / 1000;
                assertThat(out).contains("group herd-1: 3 device(s) 0-2, models m3, m2").contains("group herd-2: 1 device(s) 3, models m1");
                Thread.sleep(AFTER_MS);
                traffic.stop();
                regrouped = traffic.results(changeFrom, changed);
                assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
            } finally {
                job.cancel().get();
            }
        }

        // A job started on the second plan, the same traffic.
        ServingConfig fresh = config("herd-fresh-" + schedulerParallelism + "-", schedulerParallelism);
        Served onPlan;
        try (TopicClient kafka = new TopicClient(BROKER.get().bootstrapServers())) {
            JobClient job = start(fresh);
            try {
                publish(fresh, models, second);
                Traffic traffic = new Traffic(kafka, fresh, "f-");
                traffic.start();
                traffic.warmUp();
                Thread.sleep(changeMs); // as long in service as the other before its window
                long from = WallClock.nowMicros();
                Thread.sleep(AFTER_MS);
                traffic.stop();
                onPlan = traffic.results(from, from);
            } finally {
                job.cancel().get();
            }
        }

        System.out.printf(Locale.ROOT, "regrouped: %d requests, %d during the change (%d ms), attainment after it %.2f %% (%d); started on the plan: %.2f %% (%d)%n",
                regrouped.sent(), regrouped.during(), changeMs, 100 * regrouped.attainmentAfter(), regrouped.after(), 100 * onPlan.attainmentAfter(), onPlan.after());
        assertThat(regrouped.after()).as("requests sent after the change").isGreaterThan(500);
        assertThat(100 * regrouped.attainmentAfter()).as("attainment after the change, against a job started on the plan")
                .isCloseTo(100 * onPlan.attainmentAfter(), org.assertj.core.data.Offset.offset(2.0));
    }

    private static ServingConfig config(String prefix, int schedulerParallelism) {
        return TestConfigs.onBroker(BROKER.get(), prefix, c -> {
            c.devices = 4;
            c.deviceMemoryMb = 16_384;
            c.schedulerParallelism = schedulerParallelism;
        });
    }

    private static Path streams(String name, double a, double b, double c) throws Exception {
        return Files.writeString(dir.resolve(name), String.format(Locale.ROOT, """
                {"streams": [
                  {"name": "a", "model": "m1", "rate_per_s": %s, "slo_ms": %s},
                  {"name": "b", "model": "m2", "rate_per_s": %s, "slo_ms": %s},
                  {"name": "c", "model": "m3", "rate_per_s": %s, "slo_ms": %s}
                ]}""", a, SLO_MS, b, SLO_MS, c, SLO_MS));
    }

    /** {@code kairos plan herd --publish}, every decision's outcome awaited; its output. */
    private static String publish(ServingConfig config, Path models, Path streams) {
        CliRun r = CliRun.job("plan", "herd", "--bootstrap-servers", config.bootstrapServers, "--control-topic", config.controlTopic,
                "--outcomes-topic", config.outcomesTopic, "--models", models.toString(), "--streams", streams.toString(),
                "--devices", "4", "--max-group", "3", "--device-memory-mb", "16384", "--wait-ms", "30000", "--publish");
        assertThat(r.code()).as(r.out() + "\n" + r.err()).isZero();
        return r.out();
    }

    private static JobClient start(ServingConfig config) throws Exception {
        Configuration flink = new Configuration();
        flink.set(RestartStrategyOptions.RESTART_STRATEGY, "disable");
        return ServingJob.onKafka(config, CATALOG).start(StreamExecutionEnvironment.getExecutionEnvironment(flink));
    }

    /**
     * What one job served: requests by their send time (after, during the change, the rest), and
     * of those sent after it, the share OK (by their deadline).
     */
    record Served(int sent, int during, int after, int okAfter) {
        double attainmentAfter() {
            return after == 0 ? 0 : (double) okAfter / after;
        }
    }

    /** The streams at their rates, every 10 ms, from a thread of its own, until stopped. */
    static final class Traffic {
        private final TopicClient kafka;
        private final ServingConfig config;
        private final String prefix;
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final Map<String, Long> sentAt = new java.util.concurrent.ConcurrentHashMap<>();
        private Thread thread;

        Traffic(TopicClient kafka, ServingConfig config, String prefix) {
            this.kafka = kafka;
            this.config = config;
            this.prefix = prefix;
        }

        void start() {
            thread = new Thread(() -> {
                double[] owed = new double[RATES.length];
                long seq = 0;
                long tick = System.nanoTime();
                while (running.get()) {
                    for (int m = 0; m < RATES.length; m++) {
                        owed[m] += RATES[m] / 100;
                        for (; owed[m] >= 1; owed[m]--) {
                            String id = prefix + (seq++);
                            InferenceRequest r = request(id, "m" + (m + 1));
                            sentAt.put(id, r.getSentAtMicros());
                            kafka.send(config.requestsTopic, InferenceRequest.class, r);
                        }
                    }
                    tick += 10_000_000;
                    long wait = tick - System.nanoTime();
                    if (wait > 0) java.util.concurrent.locks.LockSupport.parkNanos(wait);
                }
            }, "herd-regroup-traffic");
            thread.start();
        }

        /** Waits until the job has answered {@link #WARM_UP_RESULTS} of these requests, and a second more. */
        void warmUp() throws InterruptedException {
            List<InferenceResult> back = kafka.readUntil(config.resultsTopic, InferenceResult.class, l -> l.size() >= WARM_UP_RESULTS, Duration.ofSeconds(60));
            assertThat(back).as("results of the first requests").hasSizeGreaterThanOrEqualTo(WARM_UP_RESULTS);
            Thread.sleep(1_000);
        }

        void stop() throws InterruptedException {
            running.set(false);
            thread.join();
            kafka.flush();
        }

        /**
         * Every request's results, read until each has one, then a while longer for a second:
         * asserts exactly one each, and counts those sent after {@code changed} (and between
         * {@code changeFrom} and it).
         */
        Served results(long changeFrom, long changed) throws InterruptedException {
            int n = sentAt.size();
            int all = kafka.readUntil(config.resultsTopic, InferenceResult.class,
                    l -> l.stream().filter(r -> r.getRequestId().startsWith(prefix)).count() >= n, Duration.ofSeconds(90)).size();
            // Read again, a while later: a second result of a request would be there by now.
            Thread.sleep(1_000);
            List<InferenceResult> read = kafka.readUntil(config.resultsTopic, InferenceResult.class, l -> l.size() > all, Duration.ofSeconds(3));
            Map<String, Integer> count = new HashMap<>();
            List<InferenceResult> ours = new ArrayList<>();
            for (InferenceResult r : read) {
                if (!r.getRequestId().startsWith(prefix)) continue;
                ours.add(r);
                count.merge(r.getRequestId(), 1, Integer::sum);
            }
            assertThat(count.keySet()).as("a result of every request sent, none of another").isEqualTo(sentAt.keySet());
            assertThat(count.values()).as("one result each").containsOnly(1);
            int during = 0;
            int after = 0;
            int ok = 0;
            for (InferenceResult r : ours) {
                long sent = sentAt.get(r.getRequestId());
                if (sent >= changed) {
                    after++;
                    if (r.getStatus() == ResultStatus.OK) ok++;
                } else if (sent >= changeFrom) {
                    during++;
                }
            }
            return new Served(n, during, after, ok);
        }

        private static InferenceRequest request(String id, String model) {
            return InferenceRequest.newBuilder()
                    .setRequestId(id).setTenant("test").setModel(model)
                    .setInput(Tensor.newBuilder().setDtype(DType.FLOAT32).setShape(List.of(1L)).setData(ByteBuffer.allocate(4)).build())
                    .setSentAtMicros(WallClock.nowMicros())
                    .setSloMs(SLO_MS)
                    .build();
        }
    }
}
