package io.kairos.wire;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.SchemaParseException;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The writer's schema of a framed record, looked up by its id in a schema registry ({@code GET
 * /schemas/ids/{id}}, the REST call every Confluent-compatible registry answers) and checked to be
 * one that our schema can read (Avro's reader-writer compatibility, same record name).
 *
 * <p>Ids are immutable in a registry, so a schema found, or found unreadable, is kept for good. A
 * record whose id cannot be resolved now is malformed with the reason, and the job goes on: an id
 * the registry does not have is asked again after {@link #UNKNOWN_RETRY}; a registry that cannot be
 * reached (or answers an error) is not asked again for any id for {@link #DOWN_RETRY}, so that a
 * registry that is down costs one time-out per interval, not one per record. Not thread-safe.
 */
final class SchemaRegistryLookup {
    static final Duration UNKNOWN_RETRY = Duration.ofSeconds(30);
    static final Duration DOWN_RETRY = Duration.ofSeconds(5);
    /** More distinct ids than this are not remembered (a producer of random ids would grow the cache without end). */
    static final int MAX_REMEMBERED = 10_000;

    private static final ObjectMapper JSON = new ObjectMapper();

    private final String baseUrl;
    private final String shownUrl;
    private final String authorization;
    private final Schema reader;
    private final Duration timeout;
    private final LongSupplier nanoClock;
    private HttpClient http;
    /** Id to its writer's schema, or to why it cannot be used, with when to ask again (Long.MAX_VALUE: never). */
    private final Map<Integer, Answer> answers = new HashMap<>();
    private boolean down;
    private long downUntilNanos;
    private String downReason;
    private long lookups;

    /** An id's schema, or why there is none; asked again from {@code retryAtNanos} unless {@code forever}. */
    private record Answer(Schema schema, String reason, boolean forever, long retryAtNanos) {}

    SchemaRegistryLookup(String url, Schema reader, Duration timeout) {
        this(url, reader, timeout, System::nanoTime);
    }

    /** @param nanoClock what "now" is for the retry intervals (tests move it) */
    SchemaRegistryLookup(String url, Schema reader, Duration timeout, LongSupplier nanoClock) {
        URI uri = URI.create(url);
        // Basic authentication from the URL's user information (https://key:secret@registry), sent as a header.
        this.authorization = uri.getRawUserInfo() == null ? null
                : "Basic " + Base64.getEncoder().encodeToString(java.net.URLDecoder.decode(uri.getRawUserInfo(), StandardCharsets.UTF_8).getBytes(StandardCharsets.UTF_8));
        String withoutUser = uri.getRawUserInfo() == null ? url : url.replace(uri.getRawUserInfo() + "@", "");
        this.baseUrl = withoutUser.endsWith("/") ? withoutUser.substring(0, withoutUser.length() - 1) : withoutUser;
        this.shownUrl = Secrets.maskUris(this.baseUrl);
        this.reader = reader;
        this.timeout = timeout;
        this.nanoClock = nanoClock;
    }

    /** The writer's schema of {@code id}; throws {@link AvroCodec.MalformedRecordException} saying why there is none. */
    Schema writerSchema(int id) {
        long now = nanoClock.getAsLong();
        Answer known = answers.get(id);
        if (known != null && (known.forever() || now - known.retryAtNanos() < 0)) return answerOrThrow(known);
        if (down && now - downUntilNanos < 0) {
            throw new AvroCodec.MalformedRecordException("schema-registry framing, schema id " + id + ": the schema registry " + shownUrl
                    + " could not be reached a moment ago (" + downReason + "); not asked again for " + DOWN_RETRY.toSeconds() + " s");
        }
        Answer answer = lookUp(id, now);
        if (answer == null) { // the registry is down: the record fails, the id is asked again later
            throw new AvroCodec.MalformedRecordException("schema-registry framing, schema id " + id + ": the schema registry " + shownUrl
                    + " could not be reached: " + downReason);
        }
        if (answers.size() < MAX_REMEMBERED || answers.containsKey(id)) answers.put(id, answer);
        return answerOrThrow(answer);
    }

    /** How many times the registry was asked, for tests. */
    long lookups() {
        return lookups;
    }

    private static Schema answerOrThrow(Answer a) {
        if (a.schema() != null) return a.schema();
        throw new AvroCodec.MalformedRecordException(a.reason());
    }

    /** The registry's answer for {@code id}, or null when it could not be had (and the registry is marked down). */
    private Answer lookUp(int id, long now) {
        lookups++;
        String prefix = "schema-registry framing, schema id " + id + ": ";
        HttpResponse<String> response;
        try {
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl + "/schemas/ids/" + id)).timeout(timeout).GET()
                    .header("Accept", "application/vnd.schemaregistry.v1+json, application/json");
            if (authorization != null) request.header("Authorization", authorization);
            response = client().send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            return down(now, e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return down(now, "interrupted");
        }
        down = false;
        int status = response.statusCode();
        if (status == 404) {
            return new Answer(null, prefix + "the schema registry " + shownUrl + " has no schema with that id (HTTP 404)", false, now + UNKNOWN_RETRY.toNanos());
        }
        if (status != 200) return down(now, "HTTP " + status + " for schema id " + id);
        Schema writer;
        try {
            JsonNode body = JSON.readTree(response.body());
            JsonNode type = body.get("schemaType");
            if (type != null && !type.isNull() && !"AVRO".equals(type.asText())) {
                return forGood(prefix + "the registry's schema is " + type.asText() + ", not Avro");
            }
            JsonNode text = body.get("schema");
            if (text == null || !text.isTextual()) return forGood(prefix + "the registry's answer has no \"schema\" text");
            writer = new Schema.Parser().parse(text.asText());
        } catch (IOException | SchemaParseException e) {
            return forGood(prefix + "the registry's schema does not parse: " + e.getMessage());
        }
        if (writer.getType() != Schema.Type.RECORD || !writer.getName().equals(reader.getName())) {
            return forGood(prefix + "the registry's schema is " + (writer.getType() == Schema.Type.RECORD ? "record " + writer.getFullName() : writer.getType())
                    + ", not " + reader.getName());
        }
        SchemaCompatibility.SchemaPairCompatibility compatibility = SchemaCompatibility.checkReaderWriterCompatibility(reader, writer);
        if (compatibility.getType() != SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE) {
            return forGood(prefix + "the job cannot read records of the registry's schema: " + compatibility.getResult().getIncompatibilities().stream()
                    .map(i -> i.getType() + " at " + i.getLocation() + (i.getMessage() == null ? "" : " (" + i.getMessage() + ")"))
                    .reduce((a, b) -> a + "; " + b).orElse(compatibility.getDescription()));
        }
        return new Answer(writer, null, true, 0);
    }

    private static Answer forGood(String reason) {
        return new Answer(null, reason, true, 0);
    }

    private Answer down(long now, String reason) {
        down = true;
        downReason = reason;
        downUntilNanos = now + DOWN_RETRY.toNanos();
        return null;
    }

    private HttpClient client() {
        if (http == null) http = HttpClient.newBuilder().connectTimeout(timeout).build();
        return http;
    }
}
