package io.kairos.wire;

import io.kairos.schema.BatchTelemetry;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.DecisionOutcome;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.Tensor;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The committed self-contained schemas ({@code schemas/standalone/}) are what the build's schemas
 * print, and each one parses alone. After changing an {@code .avsc} source, write them again with
 * {@code mvn -B -o -q test -pl schemas -Dtest=StandaloneSchemasTest -Dkairos.schemas.write=true}.
 */
class StandaloneSchemasTest {
    private static final Path DIR = Path.of("standalone");

    @BeforeAll
    static void writeWhenAsked() throws IOException {
        if (Boolean.getBoolean("kairos.schemas.write")) StandaloneSchemas.write(DIR);
    }

    @Test
    void committedFilesAreWhatTheBuildsSchemasPrint() throws IOException {
        for (Map.Entry<String, Schema> e : StandaloneSchemas.PUBLIC.entrySet()) {
            Path file = DIR.resolve(e.getKey() + ".avsc");
            assertThat(file).as("%s: write it with -Dkairos.schemas.write=true", file).exists();
            assertThat(Files.readString(file))
                    .as("%s is not what the schema of the build prints: write it again with -Dkairos.schemas.write=true", file)
                    .isEqualTo(StandaloneSchemas.text(e.getValue()));
        }
    }

    @Test
    void noOtherFileLiesInTheFolder() throws IOException {
        try (Stream<Path> files = Files.list(DIR)) {
            assertThat(files.map(p -> p.getFileName().toString()).collect(Collectors.toSet()))
                    .isEqualTo(StandaloneSchemas.PUBLIC.keySet().stream().map(n -> n + ".avsc").collect(Collectors.toSet()));
        }
    }

    @Test
    void eachFileParsesAloneIntoTheBytesOfTheGeneratedClasses() throws IOException {
        Map<String, Schema> generated = Map.of("Tensor", Tensor.getClassSchema(), "InferenceRequest", InferenceRequest.getClassSchema(),
                "InferenceResult", InferenceResult.getClassSchema(), "BatchTelemetry", BatchTelemetry.getClassSchema(),
                "ControlDecision", ControlDecision.getClassSchema(), "DecisionOutcome", DecisionOutcome.getClassSchema());
        assertThat(StandaloneSchemas.PUBLIC.keySet()).containsExactlyInAnyOrderElementsOf(generated.keySet());
        for (Map.Entry<String, Schema> e : generated.entrySet()) {
            Schema alone = new Schema.Parser().parse(DIR.resolve(e.getKey() + ".avsc").toFile()); // a fresh parser: no names known before
            // Parsing canonical form: what decides the bytes (no docs, defaults or Java-only properties).
            assertThat(SchemaNormalization.toParsingForm(alone)).as(e.getKey()).isEqualTo(SchemaNormalization.toParsingForm(e.getValue()));
            assertThat(alone.toString()).as(e.getKey()).doesNotContain("avro.java");
        }
    }

    @Test
    void requestAndResultDefineTheTensorTheyUse() {
        // The two that the sources write with a reference to Tensor by name.
        for (String name : new String[] {"InferenceRequest", "InferenceResult"}) {
            assertThat(StandaloneSchemas.text(StandaloneSchemas.PUBLIC.get(name))).as(name)
                    .contains("\"name\" : \"Tensor\"").contains("\"name\" : \"DType\"");
        }
    }
}
