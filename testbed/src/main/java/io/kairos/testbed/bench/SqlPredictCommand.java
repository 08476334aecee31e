package io.kairos.testbed.bench;

import io.kairos.core.model.ModelCatalog;
import io.kairos.jobs.ServeCommand;
import io.kairos.jobs.ServingJob;
import io.kairos.jobs.config.ServingConfig;
import io.kairos.jobs.options.ConfigFlags;
import io.kairos.jobs.options.PolicyOptions;
import io.kairos.onnx.ModelProfiler;
import io.kairos.onnx.ModelRepository;
import io.kairos.onnx.OnnxDevice;
import io.kairos.onnx.examples.ExampleModels;
import io.kairos.tools.embedded.EmbeddedKafkaBroker;
import io.kairos.testbed.experiment.ResultTable;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.api.config.ExecutionConfigOptions;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code sql-predict}: a SQL job's {@code ML_PREDICT} through Kairos ({@code 'provider' = 'kairos'}:
 * each row a request to the serving job, which batches them on its ONNX Runtime devices) against the
 * same rows through Flink's own pattern ({@code 'provider' = 'onnx-per-row'}: an async call per row
 * to an ONNX Runtime session in the SQL job), on the same number of devices (sessions of one
 * intra-op thread each). The model is {@link ExampleModels.Wide}, where a batch costs little more
 * than one row on a CPU; the command profiles it first and serves it with that profile.
 *
 * <p>Each system's rows come from an open-loop source at a fixed rate; a row's latency runs from its
 * scheduled send time (so a source held back by the operator counts) to its output after
 * ML_PREDICT. A trial passes when every row after the warm-up comes out and at least 99 % of them
 * are OK within the SLO (p99 within the SLO). The search raises the rate by {@code --factor} until a
 * trial fails, then bisects twice; the figure is the highest rate that passed. Runs alternate the
 * two systems; the summary gives each system's median and their ratio. Writes {@code trials.csv}.
 */
@Command(name = "sql-predict", mixinStandardHelpOptions = true, sortOptions = false,
        description = "ML_PREDICT through Kairos against an ONNX Runtime call per row in the SQL job: rows/s at p99 within the SLO, same devices.")
public class SqlPredictCommand implements Callable<Integer> {

    @Option(names = "--hidden", paramLabel = "H", description = "Width of the model's two hidden layers (default: ${DEFAULT-VALUE}).")
    int hidden = 4096;

    @Option(names = "--devices", paramLabel = "N", description = "ONNX Runtime devices of the serving job, and sessions of the per-row SQL job (default: ${DEFAULT-VALUE}).")
    int devices = 2;

    @Option(names = "--slo-ms", paramLabel = "MS", description = "Each row's objective from its scheduled send (default: ${DEFAULT-VALUE}).")
    double sloMs = 1000;

    @Option(names = "--runs", paramLabel = "N", description = "Searches per system, alternated; the summary takes the median (default: ${DEFAULT-VALUE}).")
    int runs = 3;

    @Option(names = "--duration", paramLabel = "S", description = "Seconds of rows per trial (default: ${DEFAULT-VALUE}).")
    int durationSeconds = 8;

    @Option(names = "--warmup", paramLabel = "S", description = "Seconds at the start of each trial whose rows are not judged (default: ${DEFAULT-VALUE}).")
    int warmupSeconds = 3;

    @Option(names = "--start-rate", paramLabel = "R", description = "Rows/s of each search's first trial (default: ${DEFAULT-VALUE}).")
    double startRate = 100;

    @Option(names = "--factor", paramLabel = "F", description = "Rate multiple from one passed trial to the next (default: ${DEFAULT-VALUE}).")
    double factor = 1.6;

    @Option(names = "--max-in-flight", paramLabel = "N", description = "table.exec.async-ml-predict.max-concurrent-operations, both systems (default: ${DEFAULT-VALUE}).")
    int maxInFlight = 512;

    @Option(names = "--systems", split = ",", paramLabel = "S", description = "kairos, per-row or both (default: ${DEFAULT-VALUE}).")
    List<String> systems = List.of("kairos", "per-row");

    @CommandLine.Mixin
    PolicyOptions policy = new PolicyOptions();

    @Option(names = "--out", paramLabel = "DIR", description = "Output folder (default: testbed/experiments/sql-predict in the checkout).")
    Path out;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    static final String MODEL = "wide";
    static final List<String> COLUMNS = List.of("run", "system", "rate_per_s", "rows", "judged", "ok_in_slo", "missing", "p50_ms", "p99_ms", "passed");

    /** One trial's outcome. */
    record Trial(String system, double rate, int rows, int judged, int okInSlo, int missing, double p50Ms, double p99Ms, java.util.Map<String, Integer> notOk) {
        boolean passed() {
            return missing == 0 && judged > 0 && okInSlo >= Math.ceil(0.99 * judged);
        }
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter w = spec.commandLine().getOut();
        CommandLine cl = spec.commandLine();
        if (hidden < 16) throw new CommandLine.ParameterException(cl, "--hidden must be at least 16, got " + hidden);
        if (devices < 1) throw new CommandLine.ParameterException(cl, "--devices must be at least 1, got " + devices);
        if (!(sloMs > 0) || Double.isInfinite(sloMs)) throw new CommandLine.ParameterException(cl, "--slo-ms must be a positive number, got " + sloMs);
        if (runs < 1) throw new CommandLine.ParameterException(cl, "--runs must be at least 1, got " + runs);
        if (warmupSeconds < 0 || durationSeconds <= warmupSeconds) throw new CommandLine.ParameterException(cl, "--duration must be longer than --warmup");
        if (!(startRate > 0) || !(factor > 1)) throw new CommandLine.ParameterException(cl, "--start-rate must be positive and --factor above 1");
        for (String s : systems) if (!s.equals("kairos") && !s.equals("per-row")) throw new CommandLine.ParameterException(cl, "--systems: kairos or per-row, got " + s);
        policy.check(cl);
        Path dir = out != null ? out : Path.of(System.getProperty("kairos.home", "")).resolve("testbed").resolve("experiments").resolve("sql-predict");
        Files.createDirectories(dir);

        // The model and its profile on this machine: the serving job paces its devices by it.
        Path repository = Path.of(System.getProperty("kairos.home", "."), ".kairos", "sql-predict-models").toAbsolutePath();
        Path modelDir = repository.resolve(MODEL);
        Files.createDirectories(modelDir);
        ExampleModels.Wide wide = ExampleModels.Wide.seeded(ExampleModels.SEED + 5, hidden);
        Files.write(modelDir.resolve(ModelRepository.MODEL_FILE), wide.toOnnx());
        Files.writeString(modelDir.resolve(ModelRepository.MANIFEST_FILE), wide.manifest(MODEL, 1, 1), StandardCharsets.UTF_8);
        ModelProfiler profiler = new ModelProfiler(new OnnxDevice.Options(Long.MAX_VALUE, 1, -1), 3, 20);
        ModelProfiler.Profile profile = profiler.profile(ModelRepository.load(repository).get(MODEL), b -> {});
        w.println(ModelProfiler.table(profile));
        double alpha = Math.max(0.001, profile.alphaMs()), beta = Math.max(0.001, profile.betaMs());
        Files.writeString(modelDir.resolve(ModelRepository.MANIFEST_FILE), wide.manifest(MODEL, round3(alpha * 1.2), round3(beta * 1.2)), StandardCharsets.UTF_8);
        double b1 = profile.batches().get(0).p50Ms();
        ModelProfiler.BatchStats last = profile.batches().get(profile.batches().size() - 1);
        w.printf(Locale.ROOT, "%s: batch 1 %.2f ms a row, batch %d %.3f ms a row (%.1fx less); served with latency %.3f ms x b + %.3f ms (the fit, +20 %%)%n",
                MODEL, b1, last.batchSize(), last.p50Ms() / last.batchSize(), b1 / (last.p50Ms() / last.batchSize()), round3(alpha * 1.2), round3(beta * 1.2));

        ServingConfig.Builder config = ServingConfig.builder();
        config.devices = devices;
        config.intraOpThreads = 1;
        config.modelRepository = repository.toString();
        config.fromEarliest = true;
        config.checkpointIntervalMs = 0;
        policy.applyTo(config);
        ResultTable table = new ResultTable(COLUMNS);
        List<List<Double>> best = new ArrayList<>();
        for (int i = 0; i < systems.size(); i++) best.add(new ArrayList<>());
        w.print("starting Kafka broker, the serving job and the SQL job's mini-cluster ... ");
        w.flush();
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start()) {
            config.bootstrapServers = broker.bootstrapServers();
            config.kafkaProperties = new java.util.LinkedHashMap<>(broker.clientProperties());
            config.topicsNamed("sqlp-");
            config.consumerGroup = "sqlp-serving";
            for (String topic : config.topics()) broker.createTopic(topic, Math.max(2, devices));
            ServingConfig job = ConfigFlags.build(config, cl);
            ModelCatalog catalog = ServeCommand.catalog(job);
            try (MiniCluster serving = cluster(Math.max(2, devices)); MiniCluster sql = cluster(Math.max(2, devices))) {
                JobClient servingJob = ServingJob.onKafka(job, catalog).start(remote(serving));
                w.println("serving (" + job.policy + ")");
                Rig rig = new Rig(broker, job, repository, sql);
                try {
                    // A trial of each system not counted: the first SQL job's and the serving job's code runs cold.
                    for (String system : systems) {
                        Trial t = rig.run(system, startRate);
                        w.printf(Locale.ROOT, "  warm-up, %s at %.0f rows/s (not counted): p50 %.1f ms, p99 %.1f ms%n", system, startRate, t.p50Ms(), t.p99Ms());
                    }
                    for (int run = 1; run <= runs; run++) {
                        for (int s = 0; s < systems.size(); s++) {
                            String system = systems.get(s);
                            double rate = search(w, rig, table, run, system);
                            best.get(s).add(rate);
                            w.printf(Locale.ROOT, "run %d, %s: %.0f rows/s at p99 within %.0f ms%n", run, system, rate, sloMs);
                        }
                    }
                } finally {
                    servingJob.cancel().get(30, TimeUnit.SECONDS);
                }
            }
        }
        table.write(dir.resolve("trials.csv"));
        w.println();
        double[] medians = new double[systems.size()];
        for (int s = 0; s < systems.size(); s++) {
            medians[s] = median(best.get(s));
            w.printf(Locale.ROOT, "%s: rows/s at p99 within %.0f ms, median of %d: %.0f (runs %s)%n", systems.get(s), sloMs, runs, medians[s], best.get(s));
        }
        if (systems.size() == 2 && systems.contains("kairos") && systems.contains("per-row")) {
            double k = medians[systems.indexOf("kairos")], p = medians[systems.indexOf("per-row")];
            w.printf(Locale.ROOT, "kairos / per-row: %.2fx (target 2x)%n", p > 0 ? k / p : Double.NaN);
        }
        w.println("wrote " + dir.resolve("trials.csv"));
        return 0;
    }

    /** The highest rate at which a trial passes: up by the factor until one fails, then two bisections. */
    private double search(PrintWriter w, Rig rig, ResultTable table, int run, String system) throws Exception {
        double passed = 0, failed = Double.NaN, rate = startRate;
        while (Double.isNaN(failed)) {
            Trial t = trial(w, rig, table, run, system, rate);
            if (t.passed()) {
                passed = rate;
                rate *= factor;
            } else {
                failed = rate;
            }
        }
        for (int i = 0; i < 2; i++) {
            double mid = Math.round((passed > 0 ? (passed + failed) / 2 : failed / 2));
            if (trial(w, rig, table, run, system, mid).passed()) passed = mid;
            else failed = mid;
        }
        return passed;
    }

    private Trial trial(PrintWriter w, Rig rig, ResultTable table, int run, String system, double rate) throws Exception {
        Trial t = rig.run(system, rate);
        table.add(List.of(Integer.toString(run), system, String.format(Locale.ROOT, "%.0f", rate), Integer.toString(t.rows()), Integer.toString(t.judged()),
                Integer.toString(t.okInSlo()), Integer.toString(t.missing()), String.format(Locale.ROOT, "%.2f", t.p50Ms()),
                String.format(Locale.ROOT, "%.2f", t.p99Ms()), Boolean.toString(t.passed())));
        w.printf(Locale.ROOT, "  %s at %.0f rows/s: %d of %d judged OK within the SLO, %d missing, p50 %.1f ms, p99 %.1f ms: %s%s%n",
                system, rate, t.okInSlo(), t.judged(), t.missing(), t.p50Ms(), t.p99Ms(), t.passed() ? "passed" : "failed", t.notOk().isEmpty() ? "" : " " + t.notOk());
        w.flush();
        return t;
    }

    /** The SQL side of a trial: a fresh SQL job of the system's at the rate. */
    private final class Rig {
        private final EmbeddedKafkaBroker broker;
        private final ServingConfig config;
        private final Path repository;
        private final MiniCluster sql;

        Rig(EmbeddedKafkaBroker broker, ServingConfig config, Path repository, MiniCluster sql) {
            this.broker = broker;
            this.config = config;
            this.repository = repository;
            this.sql = sql;
        }

        Trial run(String system, double rate) throws Exception {
            StreamExecutionEnvironment env = remote(sql);
            // Rows leave a task as they come, as on the serving job's path (Flink's default holds them up to 100 ms).
            env.setBufferTimeout(0);
            boolean kairos = system.equals("kairos");
            // Kairos' SQL job only sends and receives: one subtask; the per-row job runs a session per device.
            env.setParallelism(kairos ? 1 : devices);
            StreamTableEnvironment t = StreamTableEnvironment.create(env);
            t.getConfig().set(ExecutionConfigOptions.TABLE_EXEC_ASYNC_ML_PREDICT_MAX_CONCURRENT_OPERATIONS, maxInFlight);
            t.getConfig().set(ExecutionConfigOptions.TABLE_EXEC_ASYNC_ML_PREDICT_TIMEOUT, Duration.ofMinutes(5));
            t.getConfig().set(ExecutionConfigOptions.TABLE_EXEC_ASYNC_ML_PREDICT_OUTPUT_MODE, ExecutionConfigOptions.AsyncOutputMode.ALLOW_UNORDERED);
            int n = (int) Math.round(rate * durationSeconds);
            long judgedFrom = Math.round(rate * warmupSeconds);
            DataStream<Row> rows = env.fromSequence(0, n - 1).setParallelism(1)
                    .map(new Pacer(rate)).setParallelism(1)
                    .returns(Types.ROW_NAMED(new String[]{"id", "x", "sent"}, Types.LONG, Types.OBJECT_ARRAY(Types.FLOAT), Types.LONG));
            t.createTemporaryView("rows_in", t.fromDataStream(rows));
            String output = "INPUT (x ARRAY<FLOAT>) OUTPUT (y ARRAY<FLOAT>, status STRING)";
            if (kairos) {
                t.executeSql("CREATE MODEL m " + output + " WITH ('provider' = 'kairos', 'bootstrap.servers' = '" + broker.bootstrapServers()
                        + "', 'model' = '" + MODEL + "', 'slo-ms' = '" + sloMs + "', 'model-repository' = '" + repository
                        + "', 'requests-topic' = '" + config.requestsTopic + "', 'results-topic' = '" + config.resultsTopic + "')");
            } else {
                t.executeSql("CREATE MODEL m " + output + " WITH ('provider' = 'onnx-per-row', 'model-path' = '"
                        + repository.resolve(MODEL).resolve(ModelRepository.MODEL_FILE) + "', 'threads' = '1', 'intra-op-threads' = '1')");
            }
            Table predicted = t.sqlQuery("SELECT id, sent, status FROM ML_PREDICT(TABLE rows_in, MODEL m, DESCRIPTOR(x))");
            DataStream<Tuple3<Long, String, Long>> latencies = t.toDataStream(predicted)
                    .map(r -> Tuple3.of((Long) r.getField("id"), String.valueOf(r.getField("status")), System.nanoTime() - (Long) r.getField("sent")))
                    .returns(Types.TUPLE(Types.LONG, Types.STRING, Types.LONG));
            CloseableIterator<Tuple3<Long, String, Long>> it = latencies.collectAsync();
            JobClient job = env.executeAsync("sql-predict " + system + " " + Math.round(rate));
            ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor();
            watchdog.schedule(() -> job.cancel(), durationSeconds + 60L, TimeUnit.SECONDS);
            double slo = sloMs * 1e6;
            List<Long> judged = new ArrayList<>();
            boolean[] seen = new boolean[n];
            int ok = 0, out = 0;
            java.util.Map<String, Integer> notOk = new java.util.TreeMap<>();
            try (it) {
                while (out < n && it.hasNext()) {
                    Tuple3<Long, String, Long> r = it.next();
                    int id = (int) (long) r.f0;
                    if (seen[id]) continue;
                    seen[id] = true;
                    out++;
                    if (id < judgedFrom) continue;
                    boolean isOk = r.f1.equals("OK");
                    if (!isOk) notOk.merge(r.f1, 1, Integer::sum);
                    else if (r.f2 > slo) notOk.merge("OK after the SLO", 1, Integer::sum);
                    long latency = isOk ? r.f2 : Long.MAX_VALUE;
                    judged.add(latency);
                    if (latency <= slo) ok++;
                }
            } catch (RuntimeException e) {
                // The job failed or the watchdog cancelled it: the rows not out are missing.
                Throwable root = e;
                while (root.getCause() != null) root = root.getCause();
                spec.commandLine().getErr().println("  " + system + " at " + Math.round(rate) + " rows/s: the SQL job ended early: " + root);
            } finally {
                watchdog.shutdownNow();
                try {
                    job.cancel().get(30, TimeUnit.SECONDS);
                } catch (Exception e) {
                    // already finished
                }
            }
            int missing = 0;
            for (int i = (int) judgedFrom; i < n; i++) if (!seen[i]) missing++;
            long[] sorted = judged.stream().mapToLong(Long::longValue).toArray();
            Arrays.sort(sorted);
            // Let the serving job shed what an overloaded trial left before the next trial starts.
            Thread.sleep(3000);
            return new Trial(system, rate, n, judged.size() + missing, ok, missing, quantileMs(sorted, 0.50), quantileMs(sorted, 0.99), notOk);
        }
    }

    /** Stamps each row with its scheduled send time and holds it until then (open loop; a late row keeps its schedule). */
    static final class Pacer extends RichMapFunction<Long, Row> {
        private final double rate;
        private transient long base;
        private transient Float[][] inputs;

        Pacer(double rate) {
            this.rate = rate;
        }

        @Override
        public void open(OpenContext context) {
            Random random = new Random(7);
            inputs = new Float[64][ExampleModels.Wide.IN];
            for (Float[] x : inputs) for (int j = 0; j < x.length; j++) x[j] = (float) random.nextGaussian();
        }

        @Override
        public Row map(Long i) {
            if (base == 0) base = System.nanoTime();
            long due = base + (long) (i * 1e9 / rate);
            long wait = due - System.nanoTime();
            if (wait > 0) LockSupport.parkNanos(wait);
            return Row.of(i, inputs[(int) (i % inputs.length)], due);
        }
    }

    private static MiniCluster cluster(int slots) throws Exception {
        Configuration c = new Configuration();
        c.set(TaskManagerOptions.NUM_TASK_SLOTS, slots);
        c.set(RestOptions.BIND_PORT, "0");
        MiniCluster cluster = new MiniCluster(new MiniClusterConfiguration.Builder().setConfiguration(c)
                .setNumTaskManagers(1).setNumSlotsPerTaskManager(slots).build());
        cluster.start();
        return cluster;
    }

    private static StreamExecutionEnvironment remote(MiniCluster cluster) throws Exception {
        URI rest = cluster.getRestAddress().get();
        return StreamExecutionEnvironment.createRemoteEnvironment(rest.getHost(), rest.getPort(), new Configuration());
    }

    private static double quantileMs(long[] sorted, double q) {
        if (sorted.length == 0) return Double.NaN;
        long v = sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)];
        return v == Long.MAX_VALUE ? Double.POSITIVE_INFINITY : v / 1e6;
    }

    private static double median(List<Double> values) {
        double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        if (v.length == 0) return Double.NaN;
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    private static double round3(double v) {
        return Math.round(v * 1000) / 1000.0;
    }
}
