package io.kairos.wire;

import org.apache.avro.specific.SpecificRecord;

import java.io.Serializable;
import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which records in a schema registry's wire format a consumer accepts, besides plain Avro binary.
 * That format (Confluent's serializers write it) is the magic byte 0, the id of the writer's schema
 * as 4 bytes big-endian, then the record's Avro binary encoding with that schema. An id is known
 * when it is one of {@link #schemaIds} (given as written with the consumer's own schema), or when a
 * registry at {@link #registryUrl} returns a schema for it that the consumer can read.
 *
 * <p>Serializable settings; {@link #decoder} makes the (stateful) decoder where it runs.
 *
 * @param schemaIds   ids of the consumer's own schema in the producers' registry
 * @param registryUrl base URL of a schema registry to look other ids up in, or null
 */
public record RegistryFraming(Set<Integer> schemaIds, String registryUrl) implements Serializable {
    /** Plain Avro binary only, as before any id was given. */
    public static final RegistryFraming NONE = new RegistryFraming(Set.of(), null);
    /** The magic byte and the schema id before the record's bytes. */
    public static final int HEADER_BYTES = 5;

    public RegistryFraming {
        schemaIds = Collections.unmodifiableSortedSet(new TreeSet<>(schemaIds)); // sorted, for messages
        for (int id : schemaIds) if (id < 0) throw new IllegalArgumentException("a schema id is not negative, got " + id);
        if (registryUrl != null) {
            if (!HttpUrls.withHost(registryUrl)) {
                throw new IllegalArgumentException("a schema registry URL is http:// or https:// with a host, got " + Secrets.maskUris(registryUrl));
            }
            while (registryUrl.endsWith("/")) registryUrl = registryUrl.substring(0, registryUrl.length() - 1);
        }
    }

    /** Whether framed records can be accepted at all (an id is given, or a registry). */
    public boolean enabled() {
        return !schemaIds.isEmpty() || registryUrl != null;
    }

    /** Whether {@code bytes} start as a framed record does: the magic byte 0 and room for a schema id. */
    public static boolean isFramed(byte[] bytes) {
        return bytes.length >= HEADER_BYTES && bytes[0] == 0;
    }

    /** The schema id of a framed record ({@link #isFramed}). */
    public static int schemaId(byte[] bytes) {
        return ByteBuffer.wrap(bytes, 1, 4).getInt();
    }

    /** {@code record} (Avro binary) framed with {@code schemaId}: what a registry-aware serializer writes. */
    public static byte[] frame(int schemaId, byte[] record) {
        return ByteBuffer.allocate(HEADER_BYTES + record.length).put((byte) 0).putInt(schemaId).put(record).array();
    }

    /** A decoder of records of {@code type}, plain or framed as these settings allow. Not thread-safe, like {@link AvroCodec}. */
    public <T extends SpecificRecord> FramedDecoder<T> decoder(Class<T> type) {
        return new FramedDecoder<>(AvroCodec.of(type), this);
    }

    @Override
    public String toString() {
        return enabled() ? "schema ids " + schemaIds + (registryUrl == null ? "" : ", registry " + Secrets.maskUris(registryUrl)) : "plain Avro only";
    }
}
