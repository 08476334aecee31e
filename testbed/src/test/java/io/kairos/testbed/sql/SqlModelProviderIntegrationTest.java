package io.kairos.testbed.sql;

import io.kairos.core.model.ModelCatalog;
import io.kairos.jobs.ServeCommand;
import io.kairos.jobs.ServingJob;
import io.kairos.jobs.config.ServingConfig;
import io.kairos.onnx.examples.ExampleModels;
import io.kairos.tools.embedded.EmbeddedKafkaBroker;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;

import static org.apache.flink.table.api.DataTypes.FIELD;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * ML_PREDICT through the kairos model provider: a SQL job on a Flink mini-cluster of its own sends
 * its rows to the real serving job (ONNX Runtime CPU devices, the generated example models) on an
 * embedded broker, and every prediction is checked against the model's maths in plain Java. A row
 * whose deadline no device meets comes out DROPPED; a killed TaskManager of the SQL job loses no row.
 */
class SqlModelProviderIntegrationTest {
    private static EmbeddedKafkaBroker broker;
    private static MiniCluster serving;
    private static Path repository;
    private static ServingConfig config;
    private static JobClient servingJob;
    private static final ExampleModels.Mlp MLP = ExampleModels.Mlp.seeded(ExampleModels.SEED);

    @BeforeAll
    static void startTheServingJob() throws Exception {
        broker = EmbeddedKafkaBroker.start();
        repository = ExampleModels.writeRepository(Path.of("target", "sql-it-models").toAbsolutePath());
        ServingConfig.Builder b = ServingConfig.builder();
        b.bootstrapServers = broker.bootstrapServers();
        b.kafkaProperties = new java.util.LinkedHashMap<>(broker.clientProperties());
        b.topicsNamed("sql-it-");
        b.consumerGroup = "sql-it-serving";
        b.fromEarliest = true;
        b.devices = 2;
        b.checkpointIntervalMs = 0;
        b.policy = "triton";
        b.policyParams = Map.of("max_batch", "16", "max_queue_delay_ms", "5");
        b.intraOpThreads = 1;
        b.modelRepository = repository.toString();
        config = b.build();
        for (String topic : config.topics()) broker.createTopic(topic, 2);
        ModelCatalog catalog = ServeCommand.catalog(config);
        // The serving job on a cluster of its own: killing the SQL job's TaskManager leaves it running.
        serving = cluster(2);
        StreamExecutionEnvironment env = remote(serving, c -> {});
        servingJob = ServingJob.onKafka(config, catalog).start(env);
    }

    @AfterAll
    static void stop() throws Exception {
        if (servingJob != null) servingJob.cancel().get();
        if (serving != null) serving.close();
        if (broker != null) broker.close();
    }

    private static MiniCluster cluster(int slots) throws Exception {
        Configuration c = new Configuration();
        c.set(TaskManagerOptions.NUM_TASK_SLOTS, slots);
        c.set(RestOptions.BIND_PORT, "0"); // two clusters in one JVM, beside whatever holds 8081
        MiniCluster cluster = new MiniCluster(new MiniClusterConfiguration.Builder().setConfiguration(c)
                .setNumTaskManagers(1).setNumSlotsPerTaskManager(slots).build());
        cluster.start();
        return cluster;
    }

    private static StreamExecutionEnvironment remote(MiniCluster cluster, Consumer<Configuration> adjust) throws Exception {
        URI rest = cluster.getRestAddress().get();
        Configuration c = new Configuration();
        adjust.accept(c);
        return StreamExecutionEnvironment.createRemoteEnvironment(rest.getHost(), rest.getPort(), c);
    }

    /** The model's DDL: x is the tensor, slo the row's objective in ms. */
    private static String createModel(String name, String extraOptions) {
        return "CREATE MODEL " + name + " INPUT (x ARRAY<FLOAT>, slo DOUBLE) OUTPUT (y ARRAY<FLOAT>, status STRING, reason STRING, batch_size INT) WITH ("
                + "'provider' = 'kairos', 'bootstrap.servers' = '" + broker.bootstrapServers() + "', 'model' = 'mlp', "
                + "'slo-ms' = '60000', 'slo-column' = 'slo', 'model-repository' = '" + repository + "', "
                + "'requests-topic' = '" + config.requestsTopic + "', 'results-topic' = '" + config.resultsTopic + "'" + extraOptions + ")";
    }

    private static Table rows(StreamTableEnvironment t, List<float[]> inputs, Map<Integer, Double> slos) {
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < inputs.size(); i++) {
            Float[] boxed = new Float[inputs.get(i).length];
            for (int j = 0; j < boxed.length; j++) boxed[j] = inputs.get(i)[j];
            rows.add(Row.of(i, boxed, slos.get(i)));
        }
        return t.fromValues(DataTypes.ROW(FIELD("id", DataTypes.INT()), FIELD("x", DataTypes.ARRAY(DataTypes.FLOAT())), FIELD("slo", DataTypes.DOUBLE())), rows);
    }

    private static List<float[]> inputs(int n, long seed) {
        Random random = new Random(seed);
        List<float[]> inputs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            float[] x = new float[64];
            for (int j = 0; j < x.length; j++) x[j] = (float) random.nextGaussian();
            inputs.add(x);
        }
        return inputs;
    }

    @Test
    void rowsGoThroughTheServingJobAndComeOutWithTheModelsOutputAndAMissedDeadlineDropped() throws Exception {
        MiniCluster sql = cluster(2);
        try {
            StreamTableEnvironment t = StreamTableEnvironment.create(remote(sql, c -> {}));
            int n = 120;
            List<float[]> inputs = inputs(n, 11);
            // Row 7: 1 µs to answer in, which no device meets.
            t.createTemporaryView("requests", rows(t, inputs, Map.of(7, 0.001)));
            t.executeSql(createModel("mlp_model", ""));
            Map<Integer, Row> out = new HashMap<>();
            TableResult result = t.executeSql("SELECT id, y, status, reason, batch_size FROM ML_PREDICT(TABLE requests, MODEL mlp_model, DESCRIPTOR(x, slo))");
            try (CloseableIterator<Row> it = result.collect()) {
                it.forEachRemaining(r -> assertThat(out.put((Integer) r.getField("id"), r)).as("one row per id").isNull());
            }
            assertThat(out).hasSize(n);
            Row dropped = out.get(7);
            assertThat(dropped.getField("status")).isEqualTo("DROPPED");
            assertThat((String) dropped.getField("reason")).isNotBlank();
            assertThat(dropped.getField("y")).isNull();
            int batched = 0;
            for (int i = 0; i < n; i++) {
                if (i == 7) continue;
                Row r = out.get(i);
                assertThat(r.getField("status")).as("row %d: %s", i, r.getField("reason")).isEqualTo("OK");
                Float[] y = (Float[]) r.getField("y");
                float[] expected = MLP.forward(inputs.get(i));
                assertThat(y).hasSize(10);
                for (int j = 0; j < 10; j++) assertThat(y[j]).as("row %d logit %d", i, j).isCloseTo(expected[j], within(1e-3f * Math.max(1f, Math.abs(expected[j]))));
                if ((Integer) r.getField("batch_size") > 1) batched++;
            }
            assertThat(batched).as("rows served in batches of more than one").isPositive();
        } finally {
            sql.close();
        }
    }

    @Test
    void aKilledTaskManagerOfTheSqlJobLosesNoRow() throws Exception {
        MiniCluster sql = cluster(2);
        try {
            StreamTableEnvironment t = StreamTableEnvironment.create(remote(sql, c -> {
                c.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
                c.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 5);
                c.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(200));
            }));
            t.getConfig().set("execution.checkpointing.interval", "200 ms");
            t.getConfig().set("execution.checkpointing.mode", CheckpointingMode.EXACTLY_ONCE.name());
            int n = 400;
            List<float[]> inputs = inputs(n, 12);
            // A source that paces its rows (each needs its predecessor's prediction: one in flight), so the kill lands mid-stream.
            t.createTemporaryView("requests", rows(t, inputs, Map.of()));
            t.getConfig().set("table.exec.async-ml-predict.max-concurrent-operations", "1");
            t.executeSql(createModel("mlp_model", ""));
            TableResult result = t.executeSql("SELECT id, y, status FROM ML_PREDICT(TABLE requests, MODEL mlp_model, DESCRIPTOR(x, slo))");
            Map<Integer, Row> out = new HashMap<>();
            boolean killed = false;
            try (CloseableIterator<Row> it = result.collect()) {
                while (it.hasNext()) {
                    Row r = it.next();
                    out.put((Integer) r.getField("id"), r);
                    if (!killed && out.size() >= 40) {
                        // The TaskManager dies with rows in flight; a new one takes its place.
                        sql.terminateTaskManager(0).get();
                        sql.startTaskManager();
                        killed = true;
                    }
                }
            }
            assertThat(killed).isTrue();
            assertThat(sql.getExecutionGraph(result.getJobClient().orElseThrow().getJobID()).get().getStatusTimestamp(JobStatus.RESTARTING))
                    .as("the SQL job restarted after the kill").isPositive();
            assertThat(out).as("every row, once (the collect sink is exactly once over restarts)").hasSize(n);
            for (int i = 0; i < n; i++) {
                Row r = out.get(i);
                assertThat(r.getField("status")).as("row %d", i).isEqualTo("OK");
                float[] expected = MLP.forward(inputs.get(i));
                assertThat(((Float[]) r.getField("y"))[3]).isCloseTo(expected[3], within(1e-3f * Math.max(1f, Math.abs(expected[3]))));
            }
        } finally {
            sql.close();
        }
    }
}
