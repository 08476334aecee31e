package io.kairos.control.status;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

/** A {@link StatusSnapshot} as the JSON of {@code /api/status}: its records' fields by name; an undefined figure is null. */
public final class StatusJson {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private StatusJson() {}

    public static String of(StatusSnapshot snapshot) {
        try {
            return MAPPER.writeValueAsString(snapshot);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("the status could not be written as JSON", e);
        }
    }
}
