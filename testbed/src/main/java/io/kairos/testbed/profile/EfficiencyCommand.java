package io.kairos.testbed.profile;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.onnx.ExampleModels;
import io.kairos.core.onnx.ModelRepository;
import io.kairos.core.onnx.OnnxDevice;
import io.kairos.jobs.ServeCommand;
import io.kairos.jobs.ServingConfig;
import io.kairos.jobs.ServingJob;
import io.kairos.jobs.client.RequestProducer;
import io.kairos.jobs.client.ResultConsumer;
import io.kairos.jobs.embedded.EmbeddedKafkaBroker;
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
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;

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

    @Option(names = "--model", description = "Example model (default: ${DEFAULT-VALUE}).")
    String model = ExampleModels.RESNET;

    @Option(names = "--batch", description = "Batch size (default: ${DEFAULT-VALUE}).")
    int batch = 16;

    @Option(names = "--batches", description = "Batches of the job run (default: ${DEFAULT-VALUE}).")
    int batches = 1500;

    @Option(names = "--intra-op-threads", description = "default: ${DEFAULT-VALUE}")
    int intraOpThreads = 1;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        Path repository = ExampleModels.writeRepository(Path.of(System.getProperty("kairos.home", "."), ".kairos", "models"));
        ModelRepository models = ModelRepository.load(repository);
        ModelRepository.OnnxModel m = models.get(model);
        if (m == null) throw new CommandLine.ParameterException(spec.commandLine(), "--model '" + model + "' is not one of " + models.models().keySet());

        Loop loop = plainLoop(m);
        double loopRate = loop.rate(batch);
        out.printf("plain session.run loop, %s batch %d: %d runs, p50 %.4f ms per batch, %.0f requests/s%n", model, batch, loop.runs(), loop.p50Ms(), loopRate);

        ServingConfig config = new ServingConfig();
        config.modelRepository = repository.toAbsolutePath().toString();
        config.devices = 1;
        config.intraOpThreads = intraOpThreads;
        config.fromEarliest = true;
        config.checkpointIntervalMs = 0;
        config.policy = "triton";
        config.policyParams = Map.of("max_batch", Integer.toString(batch), "max_queue_delay_ms", "50");
        ModelCatalog catalog = ServeCommand.catalog(config);
        // Each batch once: the results of one batch share its execution start and end.
        Map<Long, ExecutedBatch> executed = new HashMap<>();
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
            JobClient job = ServingJob.onKafka(config, catalog).start(StreamExecutionEnvironment.createLocalEnvironment(1, flink));
            try (ResultConsumer results = new ResultConsumer(broker.bootstrapServers(), config.resultsTopic, ResultConsumer.StartAt.EARLIEST)) {
                results.onResult((r, at) -> {
                    if (r.getStatus() != ResultStatus.OK && r.getStatus() != ResultStatus.LATE) return;
                    executed.computeIfAbsent(r.getTimings().getExecStart(), start -> new ExecutedBatch(start, r.getTimings().getExecEnd(), r.getBatchSize()));
                });
                results.awaitResults(n, Duration.ofSeconds(30), Duration.ofMinutes(10));
            } finally {
                job.cancel().get();
            }
        }
        List<ExecutedBatch> ran = executed.values().stream().sorted(Comparator.comparingLong(ExecutedBatch::start)).toList();
        if (ran.isEmpty()) throw new IllegalStateException("the job ran no batch");
        out.printf("full job, one ONNX device: %d of %d requests served in %d batches%n", ran.stream().mapToInt(ExecutedBatch::size).sum(), n, ran.size());
        out.println("  batches      requests/s   vs loop   execution p50 ms   device busy");
        int tenth = Math.max(1, ran.size() / 10);
        for (int from = 0; from + tenth <= ran.size(); from += tenth) {
            Window w = new Window(ran.subList(from, from + tenth));
            out.printf("  %4d-%-4d  %12.0f  %8.3f  %17.3f  %11.1f%%%n", from + 1, from + tenth, w.rate(), w.rate() / loopRate, w.execP50Ms(), 100 * w.busy());
        }
        // Steady state: the job's second half, once the JIT compiler has settled (an in-process
        // broker and Flink keep a core's worth of compilation going for the first minute or so).
        Window steady = new Window(ran.subList(ran.size() / 2, ran.size()));
        out.printf("steady state (second half of the batches): %.0f requests/s, execution p50 %.3f ms, device busy %.1f%%%n",
                steady.rate(), steady.execP50Ms(), 100 * steady.busy());
        out.printf("efficiency: job throughput / loop throughput %.3f (execution time, loop / job: %.3f)%n",
                steady.rate() / loopRate, loop.p50Ms() / steady.execP50Ms());
        return 0;
    }

    private record ExecutedBatch(long start, long end, int size) {}

    /** Consecutive batches of the job: requests per second from the first start to the last end. */
    private record Window(List<ExecutedBatch> batches) {
        double rate() {
            return batches.stream().mapToInt(ExecutedBatch::size).sum() / seconds();
        }

        double seconds() {
            return (batches.get(batches.size() - 1).end() - batches.get(0).start()) / 1e6;
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
    private record Loop(int runs, double p50Ms, double totalMs) {
        double rate(int batch) {
            return runs * batch * 1000 / totalMs;
        }
    }

    /** Timed runs of {@code session.run} on one pre-stacked batch, as the device is configured. */
    private Loop plainLoop(ModelRepository.OnnxModel m) throws Exception {
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        long[] shape = new long[m.input().shape().length + 1];
        shape[0] = batch;
        System.arraycopy(m.input().shape(), 0, shape, 1, shape.length - 1);
        ByteBuffer data = ByteBuffer.allocateDirect((int) (batch * m.input().byteSize())).order(ByteOrder.nativeOrder());
        Random random = new Random(42);
        while (data.hasRemaining()) data.putFloat((float) random.nextGaussian());
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
            Arrays.sort(ms, 0, runs);
            return new Loop(runs, ms[runs / 2], totalMs);
        }
    }
}
