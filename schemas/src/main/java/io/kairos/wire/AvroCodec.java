package io.kairos.wire;

import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;

/**
 * Avro binary encoding of one record type, as every Kairos topic carries it: the plain binary
 * encoding of the record, with no header or schema id, so that any stock Avro library that has
 * the {@code .avsc} file reads it. Not thread-safe: it reuses its encoder and decoder, so keep
 * one per thread (one per Flink function instance).
 */
public final class AvroCodec<T extends SpecificRecord> {

    static {
        // Avro allocates a declared length before reading it: without a bound, eight malformed
        // bytes can ask for 2 GiB. Tensors up to 64 MiB and strings up to 1 MiB are enough.
        setIfAbsent("org.apache.avro.limits.bytes.maxLength", 64L << 20);
        setIfAbsent("org.apache.avro.limits.string.maxLength", 1L << 20);
        setIfAbsent("org.apache.avro.limits.collectionItems.maxLength", 1L << 20);
        enableCustomCoders();
    }

    /**
     * Makes every Kairos record use the encoder and decoder generated for it instead of Avro's
     * reflective generic path: several times faster, same bytes. Avro 1.11 leaves them off by
     * default, and Flink's AvroSerializer uses the per-class model that this switches, so each
     * Flink function calls this in {@code open} (it is idempotent and cheap).
     */
    public static void enableCustomCoders() {
        System.setProperty("org.apache.avro.specific.use_custom_coders", "true");
        for (Class<?> type : WireTypes.ALL) SpecificData.getForClass(type).setCustomCoders(true);
    }

    private static void setIfAbsent(String property, long value) {
        if (System.getProperty(property) == null) System.setProperty(property, Long.toString(value));
    }

    private final Class<T> type;
    private final SpecificDatumWriter<T> writer;
    private final SpecificDatumReader<T> reader;
    /** Readers of records written with another schema (schema resolution), by that schema's parsing fingerprint. */
    private final Map<Long, SpecificDatumReader<T>> resolvingReaders = new HashMap<>();
    /** The parsing fingerprint of our own schema, once asked (0: not yet). */
    private long ownFingerprint;
    private final ByteArrayOutputStream buffer = new ByteArrayOutputStream(256);
    private BinaryEncoder encoder;
    private BinaryDecoder decoder;

    public AvroCodec(Class<T> type) {
        this.type = type;
        this.writer = new SpecificDatumWriter<>(type);
        this.reader = new SpecificDatumReader<>(type);
    }

    public static <T extends SpecificRecord> AvroCodec<T> of(Class<T> type) {
        return new AvroCodec<>(type);
    }

    /** The schema records are written with, and read into. */
    public Schema schema() {
        return SpecificData.get().getSchema(type);
    }


    public byte[] encode(T record) {
        buffer.reset();
        encoder = EncoderFactory.get().directBinaryEncoder(buffer, encoder);
        try {
            writer.write(record, encoder);
            encoder.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return buffer.toByteArray();
    }

    /**
     * Decodes one record; a malformed or truncated input throws {@link MalformedRecordException}.
     * Trailing bytes after a complete record are malformed too: they mean a different schema.
     */
    public T decode(byte[] bytes) {
        if (bytes == null) throw new MalformedRecordException("no bytes (null record value)");
        decoder = DecoderFactory.get().binaryDecoder(bytes, decoder);
        try {
            T record = reader.read(null, decoder);
            if (!decoder.isEnd()) throw new MalformedRecordException("trailing bytes after the record");
            return record;
        } catch (IOException | RuntimeException e) {
            T earlier = decodeEarlier(bytes);
            if (earlier != null) return earlier;
            String other = otherFormat(bytes);
            if (other != null) throw new MalformedRecordException(other);
            if (e instanceof MalformedRecordException m) throw m;
            throw new MalformedRecordException(e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()));
        }
    }

    /**
     * Decodes one record from {@code bytes} after {@code offset}, written with {@code writerSchema}:
     * through Avro's schema resolution when that schema is not ours (it must be one ours can read:
     * see {@link org.apache.avro.SchemaCompatibility}). Malformed input throws as {@link #decode(byte[])} does.
     */
    public T decode(byte[] bytes, int offset, Schema writerSchema) {
        SpecificDatumReader<T> with = readerFor(writerSchema);
        decoder = DecoderFactory.get().binaryDecoder(bytes, offset, bytes.length - offset, decoder);
        try {
            T record = with.read(null, decoder);
            if (!decoder.isEnd()) throw new MalformedRecordException("trailing bytes after the record");
            return record;
        } catch (MalformedRecordException e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            throw new MalformedRecordException(e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()));
        }
    }

    /**
     * The record as an earlier schema of this type wrote it, or null. A field added at the end of
     * a record (InferenceRequest's window_start_ms) leaves what an older client writes one field
     * short: the current schema runs out of bytes, and the schema the client had reads them
     * whole, to be resolved to ours with the new field at its default. The earlier schemas are
     * resources {@code avro/earlier/<Record>-<n>.avsc (the folder schemas/earlier)}, n from 1; asked only after the
     * current schema failed, so a current record pays nothing.
     */
    private T decodeEarlier(byte[] bytes) {
        for (Schema s : earlierSchemas()) {
            try {
                return decode(bytes, 0, s);
            } catch (MalformedRecordException e) {
                // not this one either
            }
        }
        return null;
    }

    private java.util.List<Schema> earlier;

    private java.util.List<Schema> earlierSchemas() {
        if (earlier != null) return earlier;
        java.util.List<Schema> found = new java.util.ArrayList<>(0);
        String name = schema().getName();
        for (int n = 1; ; n++) {
            try (java.io.InputStream in = AvroCodec.class.getResourceAsStream("/avro/earlier/" + name + "-" + n + ".avsc")) {
                if (in == null) break;
                found.add(new Schema.Parser().parse(in));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        earlier = found;
        return earlier;
    }

    private SpecificDatumReader<T> readerFor(Schema writerSchema) {
        long fingerprint = SchemaNormalization.parsingFingerprint64(writerSchema);
        if (fingerprint == ownFingerprint()) return reader;
        return resolvingReaders.computeIfAbsent(fingerprint, f -> new SpecificDatumReader<>(writerSchema, schema()));
    }

    private long ownFingerprint() {
        if (ownFingerprint == 0) ownFingerprint = SchemaNormalization.parsingFingerprint64(schema());
        return ownFingerprint;
    }

    /**
     * What bytes that are not a plain Avro record most likely are, when they start as another
     * framing does; null when they look like nothing known. Asked only after decoding failed: a
     * plain record may start with any byte (0 is an empty first string).
     */
    static String otherFormat(byte[] bytes) {
        if (bytes.length >= 5 && bytes[0] == 0) {
            int schemaId = ((bytes[1] & 0xff) << 24) | ((bytes[2] & 0xff) << 16) | ((bytes[3] & 0xff) << 8) | (bytes[4] & 0xff);
            return "schema-registry framing: magic byte 0, schema id " + schemaId + "; send plain Avro binary, or give the job that id "
                    + "with serve --registry-schema-id or its registry with --schema-registry-url";
        }
        if (bytes.length >= 4 && bytes[0] == 'O' && bytes[1] == 'b' && bytes[2] == 'j' && bytes[3] == 1) {
            return "an Avro object container file (magic 'Obj' 1, with its schema in a header); send each record as plain Avro binary";
        }
        int first = 0;
        while (first < bytes.length && first < 64 && Character.isWhitespace(bytes[first])) first++;
        if (first < bytes.length && (bytes[first] == '{' || bytes[first] == '[')) {
            return "JSON text (starts with '" + (char) bytes[first] + "'); send the record as plain Avro binary, not JSON";
        }
        return null;
    }

    /** Decodes the remaining bytes of {@code buffer} without changing its position. */
    public T decode(java.nio.ByteBuffer buffer) {
        if (buffer == null) throw new MalformedRecordException("no bytes (null record value)");
        if (buffer.hasArray() && buffer.arrayOffset() == 0 && buffer.position() == 0 && buffer.remaining() == buffer.array().length) {
            return decode(buffer.array());
        }
        byte[] copy = new byte[buffer.remaining()];
        buffer.duplicate().get(copy);
        return decode(copy);
    }

    /** Bytes that are not a record of the expected schema. */
    public static final class MalformedRecordException extends RuntimeException {
        public MalformedRecordException(String message) {
            super(message);
        }
    }
}
