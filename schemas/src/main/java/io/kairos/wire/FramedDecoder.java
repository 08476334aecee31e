package io.kairos.wire;

import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificRecord;

import java.nio.ByteBuffer;
import java.time.Duration;

/**
 * Decodes records that come either as plain Avro binary or in a schema registry's wire format
 * ({@link RegistryFraming}). A record that starts with the magic byte 0 is taken as framed when
 * framing is enabled (a plain request starting with 0 has an empty id, which is never valid); its
 * schema id must be known, given or found in the registry, else the record is malformed with a
 * reason that names the id. A writer's schema other than ours is read through Avro's schema
 * resolution. Not thread-safe: keep one per thread, like {@link AvroCodec}.
 */
public final class FramedDecoder<T extends SpecificRecord> {
    /** How long one look-up in the registry may take. */
    static final Duration LOOKUP_TIMEOUT = Duration.ofSeconds(2);

    private final AvroCodec<T> codec;
    private final RegistryFraming framing;
    private final SchemaRegistryLookup registry;

    FramedDecoder(AvroCodec<T> codec, RegistryFraming framing) {
        this(codec, framing, framing.registryUrl() == null ? null : new SchemaRegistryLookup(framing.registryUrl(), codec.schema(), LOOKUP_TIMEOUT));
    }

    FramedDecoder(AvroCodec<T> codec, RegistryFraming framing, SchemaRegistryLookup registry) {
        this.codec = codec;
        this.framing = framing;
        this.registry = registry;
    }

    /** Decodes one record; bytes that are no record we can read throw {@link AvroCodec.MalformedRecordException} with the reason. */
    public T decode(byte[] bytes) {
        if (bytes == null || !framing.enabled() || !RegistryFraming.isFramed(bytes)) return codec.decode(bytes);
        int id = RegistryFraming.schemaId(bytes);
        Schema writer;
        if (framing.schemaIds().contains(id)) {
            writer = codec.schema();
        } else if (registry != null) {
            writer = registry.writerSchema(id);
        } else {
            throw new AvroCodec.MalformedRecordException("schema-registry framing with schema id " + id + ", which the job does not know: it knows "
                    + framing.schemaIds() + "; give it more with serve --registry-schema-id, or their registry with --schema-registry-url");
        }
        try {
            return codec.decode(bytes, RegistryFraming.HEADER_BYTES, writer);
        } catch (AvroCodec.MalformedRecordException e) {
            throw new AvroCodec.MalformedRecordException("schema-registry framing, schema id " + id + ": " + e.getMessage());
        }
    }

    /** Decodes the remaining bytes of {@code buffer} without changing its position. */
    public T decode(ByteBuffer buffer) {
        if (buffer == null) return codec.decode((byte[]) null);
        byte[] bytes;
        if (buffer.hasArray() && buffer.arrayOffset() == 0 && buffer.position() == 0 && buffer.remaining() == buffer.array().length) {
            bytes = buffer.array();
        } else {
            bytes = new byte[buffer.remaining()];
            buffer.duplicate().get(bytes);
        }
        return decode(bytes);
    }
}
