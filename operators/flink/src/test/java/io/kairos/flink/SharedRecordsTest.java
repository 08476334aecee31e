package io.kairos.flink;

import io.kairos.core.model.ModelCatalog;
import io.kairos.schema.DType;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.Tensor;
import io.kairos.schema.internal.AdmittedRequest;
import io.kairos.schema.internal.BatchOutcome;
import io.kairos.schema.internal.DispatchedBatch;
import io.kairos.wire.device.Device;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.formats.avro.typeutils.AvroSerializer;
import org.apache.flink.streaming.api.datastream.AsyncDataStream;
import org.apache.flink.streaming.api.operators.async.AsyncWaitOperatorFactory;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link SharedRecords}: the batch a device is handed is the very record that reached Flink's async
 * operator (its tensors are not copied there), where Avro's own type info copies it whole; the
 * records are written as Avro writes them, and the two serializers' snapshots are compatible both
 * ways (a savepoint of the job before the change restores after it, and back).
 */
class SharedRecordsTest {

    /** The tensors every execute() was handed. Static: the device is made from a serializable factory. */
    static final List<List<Tensor>> HANDED = new CopyOnWriteArrayList<>();

    static final class RecordingDevice implements Device {
        @Override
        public int slot() {
            return 0;
        }

        @Override
        public CompletableFuture<Execution> execute(String model, int size, List<Tensor> inputs) {
            HANDED.add(inputs);
            return new CompletableFuture<>();
        }
    }

    private static DispatchedBatch batch() {
        Tensor input = Tensor.newBuilder().setDtype(DType.FLOAT32).setShape(List.of(64L)).setData(ByteBuffer.allocate(256)).build();
        InferenceRequest r = InferenceRequest.newBuilder().setRequestId("r1").setTenant("t").setModel("mlp")
                .setInput(input).setSentAtMicros(1_000).setSloMs(50).build();
        AdmittedRequest admitted = AdmittedRequest.newBuilder().setRequest(r).setDeadlineAtMicros(51_000)
                .setIngestedAtMicros(1_100).setGroup("default").build();
        return DispatchedBatch.newBuilder().setBatchId("b1").setGroup("default").setModel("mlp").setDevice(0)
                .setDispatchedAtMicros(2_000).setPredictedStartMicros(2_000).setPredictedLatencyMicros(500)
                .setRequests(List.of(admitted)).build();
    }

    /** The tensor the device was handed for a batch pushed into the async operator with object reuse on. */
    private static Tensor handedThrough(TypeSerializer<DispatchedBatch> in, DispatchedBatch batch) throws Exception {
        HANDED.clear();
        AsyncInference function = new AsyncInference(ModelCatalog.builtIn(), (slot, gpu, catalog) -> new RecordingDevice());
        try (var harness = new OneInputStreamOperatorTestHarness<>(
                new AsyncWaitOperatorFactory<>(function, 1_000, 10, AsyncDataStream.OutputMode.UNORDERED), in)) {
            harness.getExecutionConfig().enableObjectReuse();
            harness.setup(new AvroSerializer<>(BatchOutcome.class));
            harness.open();
            harness.processElement(batch, 0);
            assertThat(HANDED).hasSize(1);
            return HANDED.get(0).get(0);
        }
    }

    @Test
    void theAsyncOperatorHandsTheBatchOnWithoutCopyingItsTensors() throws Exception {
        DispatchedBatch batch = batch();
        Tensor sent = batch.getRequests().get(0).getRequest().getInput();

        Tensor shared = handedThrough(new SharedRecords<>(DispatchedBatch.class).createSerializer(new SerializerConfigImpl()), batch);
        assertThat(shared).isSameAs(sent);

        // What it did before: Avro's serializer deep-copies the batch, tensor bytes included.
        Tensor copied = handedThrough(new AvroSerializer<>(DispatchedBatch.class), batch);
        assertThat(copied).isNotSameAs(sent).isEqualTo(sent);
        assertThat(copied.getData().array()).isNotSameAs(sent.getData().array());
    }

    @Test
    void writesWhatAvroWritesAndReadsItBack() throws Exception {
        DispatchedBatch batch = batch();
        TypeSerializer<DispatchedBatch> shared = new SharedRecords<>(DispatchedBatch.class).createSerializer(new SerializerConfigImpl());
        DataOutputSerializer ours = new DataOutputSerializer(512);
        shared.serialize(batch, ours);
        DataOutputSerializer avros = new DataOutputSerializer(512);
        new AvroSerializer<>(DispatchedBatch.class).serialize(batch, avros);
        assertThat(ours.getCopyOfBuffer()).isEqualTo(avros.getCopyOfBuffer());

        DispatchedBatch back = shared.duplicate().deserialize(new DataInputDeserializer(ours.getCopyOfBuffer()));
        assertThat(back).isEqualTo(batch).isNotSameAs(batch);
        assertThat(shared.copy(batch)).isSameAs(batch);
        assertThat(shared.isImmutableType()).isTrue();
        assertThat(shared.duplicate()).isEqualTo(shared).isNotSameAs(shared);
    }

    @Test
    void itsSnapshotIsAvrosBothWays() {
        TypeSerializer<DispatchedBatch> shared = new SharedRecords<>(DispatchedBatch.class).createSerializer(new SerializerConfigImpl());
        TypeSerializer<DispatchedBatch> avro = new AvroSerializer<>(DispatchedBatch.class);
        assertThat(shared.snapshotConfiguration().resolveSchemaCompatibility(avro.snapshotConfiguration()).isCompatibleAsIs()).isTrue();
        assertThat(avro.snapshotConfiguration().resolveSchemaCompatibility(shared.snapshotConfiguration()).isCompatibleAsIs()).isTrue();
    }
}
