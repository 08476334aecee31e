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
import io.kairos.wire.CoalescedRecords;
import io.kairos.wire.device.DeviceFactory;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The production topology of {@link ServingJob} on a Flink mini-cluster with in-memory sources and
 * sinks instead of Kafka (the job takes them in its constructor, as {@link ServingJob.Endpoints}): every request, good or bad,
 * gets exactly one result with the status its input calls for, and every batch a telemetry record.
 */
class ServingJobTopologyTest {

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(
            new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).build());

    private static final ModelCatalog CATALOG = ModelCatalog.builtIn();
    private static final List<String> MODELS = List.of("resnet50", "googlenet", "mlp");
    private static final double SLO_MS = 120_000; // far beyond the mini-cluster's start: nothing good is late

    private long offset;

    private static InferenceRequest request(String id, String model, long sentAtMicros, double sloMs) {
        var input = CATALOG.get(model) == null ? CATALOG.get("mlp").input() : CATALOG.get(model).input();
        List<Long> shape = new ArrayList<>();
        for (long d : input.shape()) shape.add(d);
        return InferenceRequest.newBuilder()
                .setRequestId(id).setTenant("t").setModel(model)
                .setInput(Tensor.newBuilder().setDtype(DType.valueOf(input.dtype())).setShape(shape)
                        .setData(ByteBuffer.allocate((int) input.byteSize())).build())
                .setSentAtMicros(sentAtMicros).setSloMs(sloMs)
                .build();
    }

    /** A record of partition 0 of the requests topic, as the Kafka source would hand it over. */
    private RawRequest record(byte[] payload) {
        return new RawRequest("requests", 0, offset++, WallClock.nowMicros(), ByteBuffer.wrap(payload), null);
    }

    private RawRequest record(InferenceRequest r) {
        return record(AvroCodec.of(InferenceRequest.class).encode(r));
    }

    @Test
    void everyRequestGetsExactlyOneResultWithItsStatusAndEveryBatchATelemetryRecord() throws Exception {
        long now = WallClock.nowMicros();
        int good = 60;
        List<RawRequest> records = new ArrayList<>();
        Map<String, ResultStatus> expected = new HashMap<>();
        for (int i = 0; i < good; i++) {
            if (i == 20) { // bad input in the middle of the stream: it must not disturb what follows
                expected.put("requests-0@" + offset, ResultStatus.REJECTED);
                records.add(record("not a request".getBytes(StandardCharsets.UTF_8)));
                expected.put("unknown-model", ResultStatus.REJECTED);
                records.add(record(request("unknown-model", "no-such-model", now, SLO_MS)));
                InferenceRequest wrongShape = request("wrong-shape", "resnet50", now, SLO_MS);
                wrongShape.getInput().setShape(List.of(3L, 16L, 16L));
                expected.put("wrong-shape", ResultStatus.REJECTED);
                records.add(record(wrongShape));
                // Once, a 600 KB id or model name made a result over the producer's limit, and the sink failed the job for good.
                expected.put("x".repeat(256), ResultStatus.REJECTED);
                records.add(record(request("x".repeat(600_000), "mlp", now, SLO_MS)));
                expected.put("huge-model", ResultStatus.REJECTED);
                records.add(record(request("huge-model", "m".repeat(600_000), now, SLO_MS)));
                expected.put("expired", ResultStatus.DROPPED);
                records.add(record(request("expired", "mlp", now - 10_000_000, 5)));
            }
            String id = "r" + i;
            expected.put(id, ResultStatus.OK);
            records.add(record(request(id, MODELS.get(i % MODELS.size()), now, SLO_MS)));
        }

        ServingConfig.Builder builder = ServingConfig.builder();
        builder.devices = 2;
        builder.checkpointIntervalMs = 0;
        builder.reportCoalesceMicros = 2_000; // each device gathers its telemetry: every batch must still be there once
        ServingConfig config = builder.build();
        CollectingSink<InferenceResult> results = new CollectingSink<>();
        CollectingSink<BatchTelemetry> telemetry = new CollectingSink<>();
        CollectingSink<DecisionOutcome> outcomes = new CollectingSink<>();
        CollectingSink<ControlRestore> restores = new CollectingSink<>();
        ServingJob job = new ServingJob(config, CATALOG, DeviceFactory.simulated(1.0, config.deviceMemoryMb << 20),
                ServingJob.Endpoints.openLoop(
                        new InMemorySource<>(records, new AvroTypeInfo<>(RawRequest.class)),
                        new InMemorySource<>(List.<ControlDecision>of(), new AvroTypeInfo<>(ControlDecision.class)),
                        results, telemetry, outcomes, restores));

        JobClient running = job.start(StreamExecutionEnvironment.getExecutionEnvironment());
        try {
            long until = System.currentTimeMillis() + 60_000;
            while (System.currentTimeMillis() < until
                    && (results.collected().size() < expected.size() || sizes(telemetry.collected()) < good)) {
                Thread.sleep(50);
            }
            Thread.sleep(500); // time for a duplicate to show up, were there one
        } finally {
            running.cancel().get();
        }

        List<InferenceResult> out = results.collected();
        assertThat(out).extracting(InferenceResult::getRequestId).doesNotHaveDuplicates();
        assertThat(outcomes.collected()).as("no control decision was sent, so none was decided").isEmpty();
        assertThat(restores.collected()).as("nor any key restored on the control topic").isEmpty();
        Map<String, ResultStatus> statuses = out.stream().collect(Collectors.toMap(InferenceResult::getRequestId, InferenceResult::getStatus));
        assertThat(statuses).isEqualTo(expected);
        Map<String, InferenceResult> byId = out.stream().collect(Collectors.toMap(InferenceResult::getRequestId, Function.identity()));
        assertThat(byId.get("unknown-model").getReason()).startsWith("unknown model 'no-such-model'");
        assertThat(byId.get("wrong-shape").getReason()).startsWith("input shape [3, 16, 16] does not match model 'resnet50'");
        assertThat(byId.get("expired").getReason()).startsWith("deadline passed");
        assertThat(byId.get("x".repeat(256)).getReason())
                .isEqualTo("request_id is 600000 bytes, over the limit of 256 bytes; request_id truncated to its first 256 of 600000 bytes");
        assertThat(byId.get("huge-model").getReason())
                .isEqualTo("model is 600000 bytes, over the limit of 256 bytes; model truncated to its first 256 of 600000 bytes");
        AvroCodec<InferenceResult> codec = AvroCodec.of(InferenceResult.class);
        for (InferenceResult r : out) {
            assertThat(codec.encode(r).length + r.getRequestId().length()).as(r.getRequestId()).isLessThan(config.resultBounds().maxRecordBytes());
        }

        List<InferenceResult> served = out.stream().filter(r -> r.getStatus() == ResultStatus.OK).toList();
        for (InferenceResult r : served) {
            assertThat(r.getDevice()).isBetween(0, config.devices - 1);
            assertThat(r.getTimings().getExecEnd() - r.getTimings().getExecStart())
                    .as("execution of a batch of %d %s", r.getBatchSize(), r.getModel())
                    .isEqualTo(CATALOG.get(r.getModel()).latency().latencyMicros(r.getBatchSize()));
        }

        // One telemetry record per batch (a device's batches gathered into one record, each read on
        // its own): its requests add up to the requests served, all OK, and a batch of b requests
        // is b results of batch size b (so sum(1/b) over results counts batches).
        List<BatchTelemetry> batches = batches(telemetry.collected());
        assertThat(batches).extracting(BatchTelemetry::getBatchId).doesNotHaveDuplicates();
        assertThat(sizes(batches)).isEqualTo(good);
        assertThat(batches.stream().mapToInt(BatchTelemetry::getOk).sum()).isEqualTo(good);
        assertThat(batches.stream().mapToInt(b -> b.getLate() + b.getFailed()).sum()).isZero();
        assertThat(served.stream().mapToDouble(r -> 1.0 / r.getBatchSize()).sum()).isCloseTo(batches.size(), within(1e-9));
        for (String model : MODELS) {
            assertThat(batches.stream().filter(b -> b.getModel().equals(model)).mapToInt(BatchTelemetry::getBatchSize).sum())
                    .as("requests of %s in batches", model).isEqualTo(good / MODELS.size());
        }
        // Each batch's energy estimate: googlenet's zeta(b) at the size it ran as (padded), none for
        // the models without an energy profile.
        for (BatchTelemetry b : batches) {
            if (b.getModel().equals("googlenet")) {
                assertThat(b.getEnergyMj()).as("energy of a batch of %d googlenet", b.getBatchSize())
                        .isEqualTo(CATALOG.get("googlenet").batchEnergyMillijoules(b.getBatchSize()).getAsDouble());
            } else {
                assertThat(b.getEnergyMj()).as("energy of a batch of %s", b.getModel()).isNull();
            }
        }
        results.discard();
        telemetry.discard();
    }

    private static int sizes(List<BatchTelemetry> records) {
        return batches(records).stream().mapToInt(BatchTelemetry::getBatchSize).sum();
    }

    /** Every batch the telemetry records carry. */
    private static List<BatchTelemetry> batches(List<BatchTelemetry> records) {
        return records.stream().flatMap(t -> CoalescedRecords.batches(AvroCodec.of(BatchTelemetry.class), t).stream()).toList();
    }
}
