package io.kairos.jobs;

import io.kairos.core.model.ModelCatalog;
import io.kairos.core.time.WallClock;
import io.kairos.jobs.config.ServingConfig;
import io.kairos.jobs.options.DevicesOption;
import io.kairos.schema.BatchTelemetry;
import io.kairos.wire.CoalescedRecords;
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

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The job on devices of two hardware types, as {@code serve --devices cpu:1,gpu-t4:1} configures
 * it with simulated devices: each batch is predicted and runs in its device's type's time.
 */
class ServingJobHardwareTypesTest {

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(
            new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).build());

    /** m: 20 ms alone on cpu, 4 ms on gpu-t4. */
    private static final ModelCatalog CATALOG = ModelCatalog.parse("""
            {"hardware": [{"name": "cpu", "price_per_hour": 0.10}, {"name": "gpu-t4", "price_per_hour": 0.53}],
             "models": [{"name": "m", "input": {"dtype": "FLOAT32", "shape": [4]}, "latency_ms": {"table": {"1": 20, "2": 30}},
                         "hardware_profiles": {"gpu-t4": {"latency_ms": {"table": {"1": 4, "2": 6}}}}}]}""", "typed-job-test");

    @Test
    void eachBatchIsPredictedAndRunsInItsDevicesTypeTime() throws Exception {
        @CommandLine.Command(name = "serve")
        class Flags {
            @CommandLine.Mixin
            DevicesOption devices = new DevicesOption();
        }
        Flags flags = new Flags();
        new CommandLine(flags).parseArgs("--devices", "cpu:1,gpu-t4:1");
        ServingConfig.Builder builder = ServingConfig.builder();
        flags.devices.applyTo(builder);
        builder.policy = "fifo"; // one request at a time, on whichever device is idle: both get some
        builder.checkpointIntervalMs = 0;
        ServingConfig config = builder.build();

        long now = WallClock.nowMicros();
        List<RawRequest> records = new ArrayList<>();
        int n = 12;
        for (int i = 0; i < n; i++) {
            InferenceRequest r = InferenceRequest.newBuilder().setRequestId("r" + i).setTenant("t").setModel("m")
                    .setInput(Tensor.newBuilder().setDtype(DType.FLOAT32).setShape(List.of(4L)).setData(ByteBuffer.allocate(16)).build())
                    .setSentAtMicros(now).setSloMs(120_000).build();
            records.add(new RawRequest("requests", 0, (long) i, now, ByteBuffer.wrap(AvroCodec.of(InferenceRequest.class).encode(r)), null));
        }
        CollectingSink<InferenceResult> results = new CollectingSink<>();
        CollectingSink<BatchTelemetry> telemetry = new CollectingSink<>();
        ServingJob job = new ServingJob(config, CATALOG, ServingJob.devices(config),
                ServingJob.Endpoints.openLoop(
                        new InMemorySource<>(records, new AvroTypeInfo<>(RawRequest.class)),
                        new InMemorySource<>(List.<ControlDecision>of(), new AvroTypeInfo<>(ControlDecision.class)),
                        results, telemetry, new CollectingSink<DecisionOutcome>(), new CollectingSink<ControlRestore>()));
        JobClient running = job.start(StreamExecutionEnvironment.getExecutionEnvironment());
        try {
            long until = System.currentTimeMillis() + 60_000;
            while (System.currentTimeMillis() < until && results.collected().size() < n) Thread.sleep(50);
        } finally {
            running.cancel().get();
        }

        assertThat(results.collected()).hasSize(n).allMatch(r -> r.getStatus() == ResultStatus.OK);
        List<BatchTelemetry> batches = telemetry.collected().stream().flatMap(t -> CoalescedRecords.batches(AvroCodec.of(BatchTelemetry.class), t).stream()).toList();
        assertThat(batches).extracting(BatchTelemetry::getDevice).as("both devices served").contains(0, 1);
        for (BatchTelemetry b : batches) {
            String type = b.getDevice() == 0 ? "cpu" : "gpu-t4";
            long profiled = CATALOG.get("m").latencyOn(type).latencyMicros(b.getBatchSize());
            assertThat(b.getPredictedLatencyMicros()).as("predicted, batch of %d on device %d (%s)", b.getBatchSize(), b.getDevice(), type).isEqualTo(profiled);
            assertThat(b.getExecEndMicros() - b.getExecStartMicros()).as("ran, batch on device %d (%s)", b.getDevice(), type).isEqualTo(profiled);
        }
        results.discard();
        telemetry.discard();
    }
}
