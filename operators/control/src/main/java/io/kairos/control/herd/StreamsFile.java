package io.kairos.control.herd;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The request streams Herd plans for, read from a JSON file (the project's spec files are JSON:
 * the model catalog, a pipeline's spec):
 *
 * <pre>{@code
 * {"streams": [
 *   {"name": "cameras", "model": "resnet50", "rate_per_s": 800, "slo_ms": 25, "cv2": 4, "affinity": "vision"},
 *   {"name": "search",  "model": "bert-tiny", "rate_per_s": 120, "slo_ms": 40}
 * ]}
 * }</pre>
 *
 * {@code name}, {@code model} and {@code slo_ms} are required; {@code rate_per_s} too unless the
 * rates come from the running job's telemetry; {@code cv2} (the burstiness, default 1: Poisson)
 * and {@code affinity} (a set's name) are optional. Names are unique. Every problem is one line
 * naming the file, the line and the field ({@link StreamsException}), and the streams keep the
 * lines of their fields, so that a later check (an unknown model, an SLO no device meets) names
 * them the same way.
 */
public final class StreamsFile {
    private StreamsFile() {}

    static final List<String> FIELDS = List.of("name", "model", "rate_per_s", "slo_ms", "cv2", "affinity");

    /** A problem in a streams file, in one line naming the file, the line and the field. */
    public static final class StreamsException extends IllegalArgumentException {
        public StreamsException(String message) {
            super(message);
        }
    }

    /** @throws StreamsException for a file that cannot be read or holds a problem */
    public static List<RequestStream> load(Path file) {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new StreamsException(file + ": cannot read the streams file (" + e.getMessage() + ")");
        }
        return parse(text, file.toString());
    }

    /** @param source what errors call the text: the file's name */
    public static List<RequestStream> parse(String text, String source) {
        ObjectMapper mapper = new ObjectMapper();
        List<RequestStream> streams = new ArrayList<>();
        try (JsonParser p = mapper.getFactory().createParser(text)) {
            if (p.nextToken() != JsonToken.START_OBJECT) throw at(source, p, "expected an object {\"streams\": [...]}");
            boolean seen = false;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String top = p.currentName();
                int topLine = line(p);
                p.nextToken();
                if (!top.equals("streams")) throw new StreamsException(source + " line " + topLine + ": field '" + top + "' is unknown; the file has one field, 'streams'");
                if (p.currentToken() != JsonToken.START_ARRAY) throw at(source, p, "field 'streams' must be a list of streams");
                seen = true;
                while (p.nextToken() != JsonToken.END_ARRAY) streams.add(stream(mapper, p, source, streams.size()));
            }
            if (p.currentToken() != JsonToken.END_OBJECT) throw at(source, p, "expected the end of the object");
            if (p.nextToken() != null) throw at(source, p, "text after the end of the object");
            if (!seen) throw new StreamsException(source + " line 1: field 'streams' is missing");
        } catch (JsonProcessingException e) {
            JsonLocation l = e.getLocation();
            throw new StreamsException(source + " line " + (l == null ? "?" : l.getLineNr()) + ": not valid JSON (" + e.getOriginalMessage() + ")");
        } catch (IOException e) {
            throw new StreamsException(source + ": cannot read the streams (" + e.getMessage() + ")");
        }
        if (streams.isEmpty()) throw new StreamsException(source + ": field 'streams' lists no stream");
        Set<String> names = new HashSet<>();
        for (RequestStream s : streams) {
            if (!names.add(s.name())) throw new StreamsException(s.where().field("name") + ": stream '" + s.name() + "' is named twice");
        }
        return streams;
    }

    private static RequestStream stream(ObjectMapper mapper, JsonParser p, String source, int index) throws IOException {
        int line = line(p);
        if (p.currentToken() != JsonToken.START_OBJECT) throw at(source, p, "stream " + (index + 1) + " must be an object with fields " + FIELDS);
        Map<String, Integer> lines = new HashMap<>();
        Map<String, JsonNode> values = new LinkedHashMap<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            int at = line(p);
            if (!FIELDS.contains(field)) {
                throw new StreamsException(source + " line " + at + ": stream " + (index + 1) + " field '" + field + "' is unknown; known: " + FIELDS);
            }
            p.nextToken();
            if (values.put(field, mapper.readTree(p)) != null) {
                throw new StreamsException(source + " line " + at + ": stream " + (index + 1) + " field '" + field + "' is given twice");
            }
            lines.put(field, at);
        }
        JsonNode nameNode = values.get("name");
        String name = nameNode != null && nameNode.isTextual() ? nameNode.asText() : null;
        RequestStream.Where where = new RequestStream.Where(source, index, name, Map.copyOf(lines), line);
        String model = text(values, "model", where, true);
        if (name == null) {
            if (nameNode == null) throw new StreamsException(where.field("name") + ": is missing");
            throw new StreamsException(where.field("name") + ": must be a string, got " + nameNode);
        }
        Double rate = number(values, "rate_per_s", where, false);
        Double slo = number(values, "slo_ms", where, true);
        Double cv2 = number(values, "cv2", where, false);
        String affinity = text(values, "affinity", where, false);
        try {
            return new RequestStream(name, model, rate, slo, cv2 == null ? 1 : cv2, affinity, where);
        } catch (IllegalArgumentException e) {
            throw new StreamsException(e.getMessage());
        }
    }

    private static String text(Map<String, JsonNode> values, String field, RequestStream.Where where, boolean required) {
        JsonNode v = values.get(field);
        if (v == null || v.isNull()) {
            if (required) throw new StreamsException(where.field(field) + ": is missing");
            return null;
        }
        if (!v.isTextual()) throw new StreamsException(where.field(field) + ": must be a string, got " + v);
        return v.asText();
    }

    private static Double number(Map<String, JsonNode> values, String field, RequestStream.Where where, boolean required) {
        JsonNode v = values.get(field);
        if (v == null || v.isNull()) {
            if (required) throw new StreamsException(where.field(field) + ": is missing");
            return null;
        }
        if (!v.isNumber()) throw new StreamsException(where.field(field) + ": must be a number, got " + v);
        return v.asDouble();
    }

    private static int line(JsonParser p) {
        return p.currentTokenLocation().getLineNr();
    }

    private static StreamsException at(String source, JsonParser p, String what) {
        return new StreamsException(source + " line " + line(p) + ": " + what);
    }
}
