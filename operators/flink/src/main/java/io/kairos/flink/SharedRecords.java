package io.kairos.flink;

import org.apache.avro.specific.SpecificRecordBase;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.formats.avro.typeutils.AvroSerializer;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;

import java.io.IOException;

/**
 * The type of a stream of Avro records that no operator changes once it has been emitted: Flink
 * may then hand the same record on where it would copy it, and a copy of a batch is a copy of
 * every tensor in it.
 *
 * <p>With object reuse on (the serving job), chained operators pass records without copying, but
 * Flink's async operator still copies each input it takes (it keeps the input until its result
 * comes, and an upstream operator could reuse the object meanwhile): for the batches reaching
 * {@link AsyncInference} that was a deep copy of every request of the batch, tensors included.
 * The batches come off the network, a new object each, and nothing changes them after, so the
 * copy protects nothing.
 *
 * <p>On the wire and in state the records are Avro exactly as {@link AvroTypeInfo} writes them,
 * with the same serializer snapshot, so a savepoint taken with either restores with the other.
 */
public final class SharedRecords<T extends SpecificRecordBase> extends AvroTypeInfo<T> {
    private final Class<T> type;

    public SharedRecords(Class<T> type) {
        super(type);
        this.type = type;
    }

    @Override
    public TypeSerializer<T> createSerializer(SerializerConfig config) {
        return new Serializer<>(new AvroSerializer<>(type));
    }

    /** Avro's serializer, but for copies, which hand the record itself on. */
    static final class Serializer<T> extends TypeSerializer<T> {
        private final AvroSerializer<T> avro;

        Serializer(AvroSerializer<T> avro) {
            this.avro = avro;
        }

        @Override
        public boolean isImmutableType() {
            return true;
        }

        @Override
        public TypeSerializer<T> duplicate() {
            // Avro's serializer keeps per-thread encoders: every duplicate needs its own.
            return new Serializer<>((AvroSerializer<T>) avro.duplicate());
        }

        @Override
        public T createInstance() {
            return avro.createInstance();
        }

        @Override
        public T copy(T from) {
            return from;
        }

        @Override
        public T copy(T from, T reuse) {
            return from;
        }

        @Override
        public int getLength() {
            return avro.getLength();
        }

        @Override
        public void serialize(T record, DataOutputView target) throws IOException {
            avro.serialize(record, target);
        }

        @Override
        public T deserialize(DataInputView source) throws IOException {
            return avro.deserialize(source);
        }

        @Override
        public T deserialize(T reuse, DataInputView source) throws IOException {
            return avro.deserialize(reuse, source);
        }

        @Override
        public void copy(DataInputView source, DataOutputView target) throws IOException {
            avro.copy(source, target);
        }

        @Override
        public TypeSerializerSnapshot<T> snapshotConfiguration() {
            return avro.snapshotConfiguration();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Serializer<?> other && other.avro.getType() == avro.getType();
        }

        @Override
        public int hashCode() {
            return 31 * Serializer.class.hashCode() + avro.getType().hashCode();
        }

        @Override
        public String toString() {
            return "SharedRecords(" + avro + ")";
        }
    }
}
