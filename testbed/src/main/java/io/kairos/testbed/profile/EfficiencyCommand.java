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
    String model = ExampleModels.CNN;

    @Option(names = "--batch", description = "Batch size (default: ${DEFAULT-VALUE}).")
    int batch = 16;

    @Option(names = "--batches", description = "Batches of the job run (default: ${DEFAULT-VALUE}).")
    int batches = 400;

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

        double loopMs = plainLoop(m);
        out.printf("plain session.run loop, %s batch %d: p50 %.4f ms per batch, %.0f requests/s%n", model, batch, loopMs, batch * 1000 / loopMs);

        ServingConfig config = new ServingConfig();
        config.modelRepository = repository.toAbsolutePath().toString();
        config.devices = 1;
        config.intraOpThreads = intraOpThreads;
        config.fromEarliest = true;
        config.checkpointIntervalMs = 0;
        config.policy = "triton";
        config.policyParams = Map.of("max_batch", Integer.toString(batch), "max_queue_delay_ms", "50");
        ModelCatalog catalog = ServeCommand.catalog(config);
        List<Long> execMicros = new ArrayList<>();
        List<Long> emitted = new ArrayList<>();
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
                // Each batch's execution once: results of one batch share its start and end.
                Map<Long, Long> perBatch = new HashMap<>();
                results.onResult((r, at) -> {
                    if (r.getStatus() != ResultStatus.OK && r.getStatus() != ResultStatus.LATE) return;
                    emitted.add(r.getTimings().getEmitted());
                    if (r.getBatchSize() == batch) perBatch.put(r.getTimings().getExecStart(), r.getTimings().getExecEnd() - r.getTimings().getExecStart());
                });
                results.awaitResults(n, Duration.ofSeconds(30), Duration.ofMinutes(5));
                execMicros.addAll(perBatch.values());
            } finally {
                job.cancel().get();
            }
        }
        if (execMicros.isEmpty()) throw new IllegalStateException("the job ran no batch of " + batch);
        long[] exec = execMicros.stream().mapToLong(Long::longValue).sorted().toArray();
        double jobMs = exec[exec.length / 2] / 1000.0;
        // Throughput after the first fifth of the results: start-up and JIT compilation excluded.
        long[] times = emitted.stream().mapToLong(Long::longValue).sorted().toArray();
        int from = times.length / 5;
        double seconds = (times[times.length - 1] - times[from]) / 1e6;
        double rate = (times.length - 1 - from) / seconds;
        out.printf("full job, one ONNX device: %d of %d requests served, %d batches of %d; p50 %.4f ms execution per batch; %.0f requests/s after the first fifth%n",
                times.length, n, exec.length, batch, jobMs, rate);
        out.printf("device-path efficiency (loop / job execution, p50): %.3f; job throughput / loop throughput: %.3f%n",
                loopMs / jobMs, rate / (batch * 1000 / loopMs));
        return 0;
    }

    /** Median time of one {@code session.run} on a pre-stacked batch, as the device is configured. */
    private double plainLoop(ModelRepository.OnnxModel m) throws Exception {
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
            for (int i = 0; i < 200; i++) session.run(feed).close();
            double[] ms = new double[2000];
            for (int i = 0; i < ms.length; i++) {
                long t0 = System.nanoTime();
                session.run(feed).close();
                ms[i] = (System.nanoTime() - t0) / 1e6;
            }
            Arrays.sort(ms);
            return ms[ms.length / 2];
        }
    }
}
