package io.kairos.wire;

import org.apache.avro.Schema;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Collections;
import java.util.List;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The schemas a client reads or writes, each self-contained: every type it uses defined inside it
 * (the {@code .avsc} sources refer to {@code Tensor} by name, which a stock Avro library cannot
 * resolve from one file alone). They are what the build's own schema of each record prints, so
 * the sources stay the one truth: {@code schemas/standalone/} holds them as committed files, and a
 * test checks that they are still what this class prints from the sources, and that they describe
 * the same bytes as the generated classes' schemas.
 */
public final class StandaloneSchemas {
    private StandaloneSchemas() {}

    /**
     * The public records in an order in which each one's named types come before it (Tensor, which
     * the request and the result use, first), as their sources ship in this jar under {@code avro/}.
     */
    static final List<String> NAMES = List.of("Tensor", "InferenceRequest", "InferenceResult", "BatchTelemetry", "ControlDecision", "DecisionOutcome");

    /**
     * File name without {@code .avsc} to the schema, for every record a client of the topics sees:
     * parsed from the sources as written (the generated classes' schemas carry Java-only
     * properties such as {@code avro.java.string}), in {@link #NAMES}' order with one parser.
     */
    public static final Map<String, Schema> PUBLIC = parseSources();

    private static Map<String, Schema> parseSources() {
        Schema.Parser parser = new Schema.Parser();
        Map<String, Schema> m = new LinkedHashMap<>();
        for (String name : NAMES) {
            try (InputStream in = StandaloneSchemas.class.getResourceAsStream("/avro/" + name + ".avsc")) {
                if (in == null) throw new IllegalStateException("avro/" + name + ".avsc is not on the classpath");
                m.put(name, parser.parse(in));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return Collections.unmodifiableMap(m);
    }

    /** The self-contained text of a schema: Avro's JSON with every named type defined at its first use. */
    public static String text(Schema schema) {
        return schema.toString(true) + "\n";
    }

    /** Writes every public schema into {@code dir} as {@code NAME.avsc}. */
    public static void write(Path dir) throws IOException {
        Files.createDirectories(dir);
        for (Map.Entry<String, Schema> e : PUBLIC.entrySet()) {
            Files.writeString(dir.resolve(e.getKey() + ".avsc"), text(e.getValue()));
        }
    }
}
