package io.kairos.jobs;

import io.kairos.core.model.ModelCatalog;
import io.kairos.core.time.WallClock;
import io.kairos.jobs.config.ServingConfig;
import io.kairos.schema.BatchTelemetry;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.DType;
import io.kairos.schema.DecisionOutcome;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.ResultStatus;
import io.kairos.schema.Tensor;
import io.kairos.schema.internal.ControlRestore;
import io.kairos.schema.internal.RawRequest;
import io.kairos.wire.AvroCodec;
import io.kairos.wire.device.DeviceFactory;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import picocli.CommandLine;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The serving job's own restart strategy (exponential delay with a reset, no count of attempts) on a
 * mini-cluster: a job that fails again and again, more often than the old fixed-delay strategy
 * allowed (3 attempts in the job's life), restarts every time and serves once the cause is gone.
 */
class ServingJobRestartTest {

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(
            new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).build());

    private static final ModelCatalog CATALOG = ModelCatalog.builtIn();

    /** Failures thrown so far by {@link FailingSink}s (static: the sink is serialized with the job). */
    private static final AtomicInteger FAILURES = new AtomicInteger();

    /** A telemetry sink that fails the job on its first write, {@code times} times in all. */
    private record FailingSink(int times) implements Sink<BatchTelemetry> {
        @Override
        public SinkWriter<BatchTelemetry> createWriter(WriterInitContext context) {
            return new SinkWriter<>() {
                @Override
                public void write(BatchTelemetry element, Context context) {
                    if (FAILURES.get() < times) throw new IllegalStateException("injected failure " + FAILURES.incrementAndGet());
                }

                @Override
                public void flush(boolean endOfInput) {}

                @Override
                public void close() {}
            };
        }
    }

    private static RawRequest record(long offset, String id) {
        var input = CATALOG.get("mlp").input();
        List<Long> shape = new ArrayList<>();
        for (long d : input.shape()) shape.add(d);
        InferenceRequest r = InferenceRequest.newBuilder()
                .setRequestId(id).setTenant("t").setModel("mlp")
                .setInput(Tensor.newBuilder().setDtype(DType.valueOf(input.dtype())).setShape(shape)
                        .setData(ByteBuffer.allocate((int) input.byteSize())).build())
                .setSentAtMicros(WallClock.nowMicros()).setSloMs(300_000)
                .build();
        return new RawRequest("requests", 0, offset, WallClock.nowMicros(), ByteBuffer.wrap(AvroCodec.of(InferenceRequest.class).encode(r)), null);
    }

    @Test
    void aJobThatFailsSixTimesRestartsEveryTimeAndServes() throws Exception {
        int failures = 6;
        FAILURES.set(0);
        List<RawRequest> records = new ArrayList<>();
        for (int i = 0; i < 20; i++) records.add(record(i, "r" + i));
        ServingConfig.Builder builder = ServingConfig.builder();
        builder.devices = 1;
        builder.checkpointIntervalMs = 0;
        // Short delays, so that six restarts take well under a second (1, 1.5, 2.25, ... up to 20 ms).
        builder.restarts = new ServingConfig.Restarts(1, 20, 60_000);
        ServingConfig config = builder.build();
        CollectingSink<InferenceResult> results = new CollectingSink<>();
        ServingJob job = new ServingJob(config, CATALOG, DeviceFactory.simulated(0, config.deviceMemoryMb << 20),
                ServingJob.Endpoints.openLoop(
                        new InMemorySource<>(records, new AvroTypeInfo<>(RawRequest.class)),
                        new InMemorySource<>(List.<ControlDecision>of(), new AvroTypeInfo<>(ControlDecision.class)),
                        results, new FailingSink(failures), new CollectingSink<DecisionOutcome>(), new CollectingSink<ControlRestore>()));

        JobClient running = job.start(StreamExecutionEnvironment.getExecutionEnvironment());
        try {
            long until = System.currentTimeMillis() + 60_000;
            while (System.currentTimeMillis() < until && !(FAILURES.get() == failures && served(results).size() == records.size())) {
                JobStatus status = running.getJobStatus().get();
                assertThat(status.isGloballyTerminalState()).as("the job ended %s after %d failures", status, FAILURES.get()).isFalse();
                Thread.sleep(20);
            }
            assertThat(FAILURES.get()).isEqualTo(failures);
            // Every attempt replays the in-memory source from its start: the last one serves all.
            assertThat(served(results)).hasSize(records.size());
            assertThat(running.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
        } finally {
            running.cancel().get();
            results.discard();
        }
    }

    private static Set<String> served(CollectingSink<InferenceResult> results) {
        return results.collected().stream().filter(r -> r.getStatus() == ResultStatus.OK)
                .map(InferenceResult::getRequestId).collect(Collectors.toSet());
    }

    @Test
    void serveTakesTheRestartDelaysAndRejectsAMaximumBelowTheFirst() {
        ServeCommand serve = new ServeCommand();
        new CommandLine(serve).parseArgs("--restart-backoff-ms", "100", "--restart-max-backoff-ms", "5000", "--restart-reset-after-ms", "20000");
        assertThat(serve.config().restarts).isEqualTo(new ServingConfig.Restarts(100, 5_000, 20_000));
        ServeCommand defaults = new ServeCommand();
        new CommandLine(defaults).parseArgs();
        assertThat(defaults.config().restarts).isEqualTo(ServingConfig.Restarts.SERVING);

        assertThat(ServeConfigErrors.of("--restart-backoff-ms", "1000", "--restart-max-backoff-ms", "500"))
                .isEqualTo("kairos: --restart-*: the maximum restart backoff (500 ms) must not be below the initial one (1000 ms)");
    }
}
