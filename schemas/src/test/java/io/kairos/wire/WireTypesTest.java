package io.kairos.wire;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.avro.specific.SpecificData;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every record schema of the build is in {@link WireTypes#ALL}, so that each is read with its
 * generated decoder: one left out is read on Avro's reflective path, with all it holds (a request's
 * tensor inside a scheduler's input was).
 */
class WireTypesTest {

    @Test
    void everyRecordSchemaOfTheBuildUsesItsGeneratedCoders() throws IOException {
        ObjectMapper json = new ObjectMapper();
        List<String> declared;
        try (Stream<Path> files = Files.list(Path.of("src", "main", "avro"))) {
            declared = files.filter(f -> f.toString().endsWith(".avsc")).map(f -> {
                try {
                    JsonNode schema = json.readTree(f.toFile());
                    return schema.get("namespace").asText() + "." + schema.get("name").asText();
                } catch (IOException e) {
                    throw new IllegalStateException(f + ": " + e, e);
                }
            }).toList();
        }
        assertThat(declared).hasSizeGreaterThan(10);
        assertThat(WireTypes.ALL.stream().map(Class::getName)).containsAll(declared);

        AvroCodec.enableCustomCoders();
        for (Class<?> type : WireTypes.ALL) assertThat(SpecificData.getForClass(type).useCustomCoders()).as(type.getName()).isTrue();
    }
}
