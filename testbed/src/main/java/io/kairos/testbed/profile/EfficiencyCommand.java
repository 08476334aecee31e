package io.kairos.testbed.profile;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;
import io.kairos.core.model.ModelCatalog;
import io.kairos.onnx.examples.ExampleModels;
import io.kairos.onnx.ModelRepository;
import io.kairos.onnx.OnnxDevice;
import io.kairos.core.time.WallClock;
import io.kairos.jobs.ServeCommand;
import io.kairos.jobs.config.ServingConfig;
import io.kairos.jobs.options.ConfigFlags;
import io.kairos.jobs.ServingJob;
import io.kairos.tools.client.RandomTensors;
import io.kairos.tools.client.RequestProducer;
import io.kairos.tools.client.ResultConsumer;
import io.kairos.tools.embedded.EmbeddedKafkaBroker;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.ResultStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * {@code efficiency}: how much of an ONNX device's time the serving path keeps for inference. The
 * same model at the same batch size twice: a plain loop of {@code session.run} on one pre-stacked
 * tensor, and the full Flink job (Kafka in, admission, Triton-style batching to full batches, the
 * ONNX device, Kafka out) on a backlog of requests with one device. Reports the time per batch of
 * each (device-path efficiency = loop time / job execution time) and the job's throughput against
 * the loop's.
 */
@Command(name = "efficiency", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Serving-path efficiency: the full job with one ONNX device against a plain session.run loop on the same batches.")
public class EfficiencyCommand implements Callable<Integer> {

    @Option(names = "--model", description = "Model to run: an example model, or one of --model-repository (default: ${DEFAULT-VALUE}).")
    String model = ExampleModels.RESNET;

    @Option(names = "--model-repository", paramLabel = "DIR",
            description = "Model repository holding --model (default: the example models, generated into .kairos/models).")
    Path modelRepository;

    @Option(names = "--batch", description = "Batch size (default: ${DEFAULT-VALUE}).")
    int batch = 16;

    @Option(names = "--batches", description = "Batches of the job run (default: ${DEFAULT-VALUE}).")
    int batches = 3000;

    @Option(names = "--intra-op-threads", description = "default: ${DEFAULT-VALUE}")
    int intraOpThreads = 1;

    @Option(names = "--warmup", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "The device warms up before it takes traffic, as serve --warmup does (default: ${DEFAULT-VALUE}).")
    boolean warmUp = true;

    @Option(names = "--lookahead-ms", paramLabel = "MS",
            description = "The triton policy's lookahead_ms: the device counts as idle this long before its predicted end, so its next batch"
                    + " is already on its way when it frees. Default: the loop's p50 per batch (one batch kept queued on the device); 0 for"
                    + " Triton's own behaviour, a batch sent only when the device is predicted idle.")
    Double lookaheadMs;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        Path repository = modelRepository != null ? modelRepository
                : ExampleModels.writeRepository(Path.of(System.getProperty("kairos.home", "."), ".kairos", "models"));
        ModelRepository models;
        try {
            models = ModelRepository.load(repository);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--model-repository: " + e.getMessage());
        }
        ModelRepository.OnnxModel m = models.get(model);
        if (m == null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--model '" + model + "' is not one of " + models.models().keySet()
                    + (models.problems().isEmpty() ? "" : "; left out: " + String.join("; ", models.problems())));
        }

        // The loop runs before and after the job, and the job is compared with both together:
        // on a shared machine the cores' speed drifts over minutes, and the job runs in between.
        Loop before = plainLoop(m);
        out.printf("plain session.run loop before the job, %s batch %d: %d runs, p50 %.4f ms per batch, %.0f requests/s%n",
                model, batch, before.runs(), before.p50Ms(), before.rate(batch));

        if (lookaheadMs != null && !(lookaheadMs >= 0 && Double.isFinite(lookaheadMs))) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--lookahead-ms must be a number of milliseconds, at least 0, got " + lookaheadMs);
        }
        // One batch's time ahead: the next batch is on the device while this one runs, as a
        // Triton instance would pull it, whatever the hand-over and the report's way back take.
        double lookahead = lookaheadMs != null ? lookaheadMs : Math.ceil(before.p50Ms() * 10) / 10;
        out.printf("lookahead: %.1f ms (%s)%n", lookahead, lookaheadMs != null ? "--lookahead-ms" : "the loop's p50 per batch");
        ServingConfig.Builder config = ServingConfig.builder();
        config.modelRepository = repository.toAbsolutePath().toString();
        config.devices = 1;
        config.intraOpThreads = intraOpThreads;
        config.fromEarliest = true;
        config.checkpointIntervalMs = 0;
        config.policy = "triton";
        config.warmUp = warmUp;
        // The whole backlog waits in the scheduler: none of it may be shed for a full queue.
        config.policyParams = Map.of("max_batch", Integer.toString(batch), "max_queue_delay_ms", "50",
                "max_pending", Integer.toString(batches * batch),
                "lookahead_ms", Double.toString(lookahead));
        ModelCatalog catalog = ServeCommand.catalog(ConfigFlags.build(config, spec.commandLine()));
        // Each batch once: the results of one batch share its execution start and end.
        Map<Long, ExecutedBatch> executed = new HashMap<>();
        CompilerActivity compiler = new CompilerActivity();
        int n = batches * batch;
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start()) {
            config.bootstrapServers = broker.bootstrapServers();
            for (String topic : config.topics()) broker.createTopic(topic, 1);
            // The whole backlog is in the topic before the job starts, so that the job, not the
            // client in the same process, sets the pace.
            try (RequestProducer producer = new RequestProducer(broker.bootstrapServers(), config.requestsTopic, catalog)) {
                out.printf("writing %d requests (%d batches of %d) to the requests topic ...%n", n, batches, batch);
                for (int i = 0; i < n; i++) producer.send("bench", model, 600_000);
                producer.flush();
            }
            Configuration flink = new Configuration();
            flink.set(RestOptions.BIND_PORT, "0");
            compiler.start();
            jobStart = JvmActivity.now();
            cpuAtStart = ThreadCpu.read();
            JobClient job = ServingJob.onKafka(ConfigFlags.build(config, spec.commandLine()), catalog).start(StreamExecutionEnvironment.createLocalEnvironment(1, flink));
            try (ResultConsumer results = new ResultConsumer(broker.bootstrapServers(), config.resultsTopic, ResultConsumer.StartAt.EARLIEST)) {
                results.onResult((r, at) -> {
                    if (r.getStatus() != ResultStatus.OK && r.getStatus() != ResultStatus.LATE) return;
                    executed.computeIfAbsent(r.getTimings().getExecStart(), start -> new ExecutedBatch(start, r.getTimings().getExecEnd(), r.getBatchSize()));
                });
                // Silence of 30 s ends the wait, or of 60 batches' time for a model whose batch
                // takes seconds (ResNet-50 on a CPU core): the start, the device's warm-up at every
                // batch size and a slow batch on a busy machine are not an end.
                results.awaitResults(n, Duration.ofMillis(Math.max(30_000, Math.round(60 * before.p50Ms()))), Duration.ofMinutes(10));
                jobEnd = JvmActivity.now();
                cpuAtEnd = ThreadCpu.read();
            } finally {
                compiler.stop();
                job.cancel().get();
            }
        }
        Loop after = plainLoop(m);
        out.printf("plain session.run loop after the job: %d runs, p50 %.4f ms per batch, %.0f requests/s%n",
                after.runs(), after.p50Ms(), after.rate(batch));
        Loop loop = before.and(after);
        double loopRate = loop.rate(batch);
        out.printf("plain loop, both runs: p50 %.4f ms per batch, %.0f requests/s%n", loop.p50Ms(), loopRate);
        List<ExecutedBatch> ran = executed.values().stream().sorted(Comparator.comparingLong(ExecutedBatch::start)).toList();
        if (ran.isEmpty()) throw new IllegalStateException("the job ran no batch");
        out.printf("full job, one ONNX device: %d of %d requests served in %d batches%n", ran.stream().mapToInt(ExecutedBatch::size).sum(), n, ran.size());
        out.println("  batches      requests/s   vs loop   execution p50 ms   device busy   JIT compiler, % of a core");
        int tenth = Math.max(1, ran.size() / 10);
        // Steady state starts after the last tenth in which the JIT compiler took more than a
        // tenth of a core: on two cores an in-process broker and Flink keep the compiler busy for
        // a minute or more, a start-up cost that a long-running job pays once.
        int steadyFrom = 0;
        for (int from = 0; from + tenth <= ran.size(); from += tenth) {
            Window w = new Window(ran.subList(from, from + tenth));
            double jit = compiler.shareOfACore(w.startMicros(), w.endMicros());
            if (jit > STEADY_COMPILER_SHARE) steadyFrom = from + tenth;
            out.printf("  %4d-%-4d  %12.0f  %8.3f  %17.3f  %11.1f%%  %26.0f%n", from + 1, from + tenth, w.rate(), w.rate() / loopRate,
                    w.execP50Ms(), 100 * w.busy(), 100 * jit);
        }
        Window whole = new Window(ran);
        out.printf("whole run (the compiler's warm-up included): %.0f requests/s, %.3f of the loop%n", whole.rate(), whole.rate() / loopRate);
        long firstBatchMicros = ran.get(0).start();
        // The same requests over the time from the job's submission: the start (Flink's start-up,
        // the device's warm-up) charged to the run, so that a warm-up cannot buy its figure above
        // by moving the start out of the window.
        double fromSubmission = whole.rate() * whole.seconds() / ((ran.get(ran.size() - 1).end() - jobStart.wallMicros()) / 1e6);
        out.printf("whole run from the job's submission (its start-up included): %.0f requests/s, %.3f of the loop%n", fromSubmission, fromSubmission / loopRate);
        out.printf("start-up: JVM start to the job's submission %.1f s; submission to the first batch %.2f s (Flink's start-up and the device's warm-up: %s)%n",
                (jobStart.wallMicros() / 1000 - ManagementFactory.getRuntimeMXBean().getStartTime()) / 1e3,
                (firstBatchMicros - jobStart.wallMicros()) / 1e6, warmUp ? "on" : "off");
        JvmActivity during = jobEnd.minus(jobStart);
        out.printf("the JVM while the job ran (%.1f s): JIT compiler %.1f s, GC %.1f s in %d collections, %d classes loaded%n",
                during.wallMicros() / 1e6, during.compilerMs() / 1e3, during.gcMs() / 1e3, during.gcCount(), during.classesLoaded());
        Window steady;
        if (steadyFrom + tenth <= ran.size()) {
            steady = new Window(ran.subList(steadyFrom, ran.size()));
            out.printf("steady state (batches %d-%d, the compiler under %.0f%% of a core): %.0f requests/s, execution p50 %.3f ms, device busy %.1f%%%n",
                    steadyFrom + 1, ran.size(), 100 * STEADY_COMPILER_SHARE, steady.rate(), steady.execP50Ms(), 100 * steady.busy());
        } else {
            steady = new Window(ran.subList(ran.size() / 2, ran.size()));
            out.printf("no steady state: the compiler was busy to the end (run longer with --batches); second half: %.0f requests/s, execution p50 %.3f ms, device busy %.1f%%%n",
                    steady.rate(), steady.execP50Ms(), 100 * steady.busy());
        }
        out.printf("efficiency: job throughput / loop throughput %.3f (execution time, loop / job: %.3f)%n",
                steady.rate() / loopRate, loop.p50Ms() / steady.execP50Ms());
        if (cpuAtStart != null && cpuAtEnd != null) {
            ThreadCpu cpu = cpuAtEnd.minus(cpuAtStart);
            // CPU seconds, not wall seconds: what each took of the machine, whatever else ran on it.
            out.printf("CPU while the job ran: the process %.1f s; JIT compiler threads %.1f s (%.0f%%), the device's thread %.1f s, GC threads %.1f s, the rest %.1f s%n",
                    cpu.total(), cpu.jit(), 100 * cpu.jit() / Math.max(1e-9, cpu.total()), cpu.device(), cpu.gc(),
                    cpu.total() - cpu.jit() - cpu.device() - cpu.gc());
        }
        // The whole run against the job's own steady state: what the start costs, free of the
        // loop's drift between its two runs minutes apart on a shared machine.
        out.printf("whole run / steady state (the job against itself): %.3f; device busy over the whole run %.1f%%%n",
                whole.rate() / steady.rate(), 100 * whole.busy());
        out.printf("summary: lookahead_ms %.1f from_submission %.3f whole %.3f steady %.3f whole/steady %.3f busy %.3f loop_ms %.3f exec_first_tenth_ms %.3f exec_steady_ms %.3f served %d first_batch_s %.2f jit_s %.1f gc_s %.1f warmup %s%n",
                lookahead, fromSubmission / loopRate, whole.rate() / loopRate, steady.rate() / loopRate, whole.rate() / steady.rate(), whole.busy(), loop.p50Ms(),
                new Window(ran.subList(0, tenth)).execP50Ms(), steady.execP50Ms(), ran.stream().mapToInt(ExecutedBatch::size).sum(),
                (firstBatchMicros - jobStart.wallMicros()) / 1e6, during.compilerMs() / 1e3, during.gcMs() / 1e3, warmUp);
        return 0;
    }

    private JvmActivity jobStart;
    private JvmActivity jobEnd;
    private ThreadCpu cpuAtStart;
    private ThreadCpu cpuAtEnd;

    /** What the JVM had done by an instant: compiler time, collections, classes loaded (totals since it started). */
    private record JvmActivity(long wallMicros, long compilerMs, long gcMs, long gcCount, long classesLoaded) {
        static JvmActivity now() {
            long gcMs = 0;
            long gcCount = 0;
            for (var gc : ManagementFactory.getGarbageCollectorMXBeans()) {
                gcMs += Math.max(0, gc.getCollectionTime());
                gcCount += Math.max(0, gc.getCollectionCount());
            }
            return new JvmActivity(WallClock.nowMicros(), ManagementFactory.getCompilationMXBean().getTotalCompilationTime(), gcMs, gcCount,
                    ManagementFactory.getClassLoadingMXBean().getTotalLoadedClassCount());
        }

        JvmActivity minus(JvmActivity before) {
            return new JvmActivity(wallMicros - before.wallMicros, compilerMs - before.compilerMs, gcMs - before.gcMs,
                    gcCount - before.gcCount, classesLoaded - before.classesLoaded);
        }
    }

    private static final double STEADY_COMPILER_SHARE = 0.10;

    private record ExecutedBatch(long start, long end, int size) {}

    /** The JIT compiler's total time, sampled every 250 ms while the job runs. */
    private static final class CompilerActivity {
        private final CompilationMXBean bean = ManagementFactory.getCompilationMXBean();
        private final List<long[]> samples = Collections.synchronizedList(new ArrayList<>()); // {wall micros, compiler ms}
        private final ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "kairos-compiler-sampler");
            t.setDaemon(true);
            return t;
        });

        void start() {
            sampler.scheduleAtFixedRate(() -> samples.add(new long[] {WallClock.nowMicros(), bean.getTotalCompilationTime()}), 0, 250, TimeUnit.MILLISECONDS);
        }

        void stop() {
            sampler.shutdownNow();
        }

        /** Compiler time over wall time between two instants, from the samples around them. */
        double shareOfACore(long fromMicros, long toMicros) {
            long[] first = null;
            long[] last = null;
            synchronized (samples) {
                for (long[] s : samples) {
                    if (s[0] <= fromMicros || first == null) first = s;
                    if (last == null || s[0] <= toMicros) last = s;
                }
            }
            if (first == null || last[0] <= first[0]) return 0;
            return (last[1] - first[1]) * 1000.0 / (last[0] - first[0]);
        }
    }

    /** Consecutive batches of the job: requests per second from the first start to the last end. */
    private record Window(List<ExecutedBatch> batches) {
        double rate() {
            return batches.stream().mapToInt(ExecutedBatch::size).sum() / seconds();
        }

        long startMicros() {
            return batches.get(0).start();
        }

        long endMicros() {
            return batches.get(batches.size() - 1).end();
        }

        double seconds() {
            return (endMicros() - startMicros()) / 1e6;
        }

        double busy() {
            return batches.stream().mapToLong(b -> b.end() - b.start()).sum() / 1e6 / seconds();
        }

        double execP50Ms() {
            long[] exec = batches.stream().mapToLong(b -> b.end() - b.start()).sorted().toArray();
            return exec[exec.length / 2] / 1000.0;
        }
    }

    /**
     * The loop's timed runs: their median, and their total wall time, so that its throughput is
     * measured as the job's is (requests over elapsed time), not derived from the median.
     */
    private record Loop(double[] sortedMs, double totalMs) {
        int runs() {
            return sortedMs.length;
        }

        double p50Ms() {
            return sortedMs[sortedMs.length / 2];
        }

        double rate(int batch) {
            return runs() * batch * 1000 / totalMs;
        }

        Loop and(Loop other) {
            double[] all = Arrays.copyOf(sortedMs, runs() + other.runs());
            System.arraycopy(other.sortedMs, 0, all, runs(), other.runs());
            Arrays.sort(all);
            return new Loop(all, totalMs + other.totalMs);
        }
    }

    /** Timed runs of {@code session.run} on one pre-stacked batch, as the device is configured. */
    private Loop plainLoop(ModelRepository.OnnxModel m) throws Exception {
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        long[] shape = new long[m.input().shape().length + 1];
        shape[0] = batch;
        System.arraycopy(m.input().shape(), 0, shape, 1, shape.length - 1);
        // The very tensor every request of the job carries (RequestProducer's), stacked: the same
        // batches, not only the same shapes. A CPU's time per batch may depend on the values (x86
        // cores compute subnormal numbers far slower), so other data could compare other work.
        ByteBuffer one = RandomTensors.of(m.input(), new SplittableRandom(model.hashCode())).getData().order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer data = ByteBuffer.allocateDirect((int) (batch * m.input().byteSize())).order(ByteOrder.nativeOrder());
        for (int i = 0; i < batch; i++) data.put(one.duplicate());
        data.flip();
        try (OrtSession.SessionOptions so = OnnxDevice.sessionOptions(new OnnxDevice.Options(Long.MAX_VALUE, intraOpThreads, -1));
             OrtSession session = env.createSession(m.file().toString(), so);
             OnnxTensor input = OnnxTensor.createTensor(env, data, shape, ai.onnxruntime.OnnxJavaType.FLOAT)) {
            Map<String, OnnxTensor> feed = Map.of(m.inputTensor().name(), input);
            // At most 200 warm-up and 2,000 timed runs, and about 2 s and 10 s of them: a model
            // that takes 25 ms a batch gets 400 timed runs, one that takes 0.3 ms the full 2,000.
            long warmUntil = System.nanoTime() + 2_000_000_000L;
            for (int i = 0; i < 200 && System.nanoTime() < warmUntil; i++) session.run(feed).close();
            double[] ms = new double[2000];
            int runs = 0;
            long start = System.nanoTime();
            long timeUntil = start + 10_000_000_000L;
            while (runs < ms.length && (runs < 20 || System.nanoTime() < timeUntil)) {
                long t0 = System.nanoTime();
                session.run(feed).close();
                ms[runs++] = (System.nanoTime() - t0) / 1e6;
            }
            double totalMs = (System.nanoTime() - start) / 1e6;
            double[] sorted = Arrays.copyOf(ms, runs);
            Arrays.sort(sorted);
            return new Loop(sorted, totalMs);
        }
    }
}
