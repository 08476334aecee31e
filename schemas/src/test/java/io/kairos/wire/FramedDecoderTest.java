package io.kairos.wire;

import com.sun.net.httpserver.HttpServer;
import io.kairos.schema.DType;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.Tensor;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Records in a schema registry's wire format: the header, ids given and looked up, schema resolution, a registry that fails. */
class FramedDecoderTest {
    private static final AvroCodec<InferenceRequest> CODEC = AvroCodec.of(InferenceRequest.class);

    /** An older InferenceRequest, without the pipeline fields: what a client built on it registers and writes. */
    private static final String OLD_REQUEST_SCHEMA = """
            {"type": "record", "name": "InferenceRequest", "namespace": "io.kairos.schema", "fields": [
              {"name": "request_id", "type": "string"}, {"name": "tenant", "type": "string"}, {"name": "model", "type": "string"},
              {"name": "input", "type": {"type": "record", "name": "Tensor", "fields": [
                {"name": "dtype", "type": {"type": "enum", "name": "DType", "symbols": ["FLOAT32", "FLOAT64", "INT32", "INT64", "UINT8", "INT8", "BOOL"]}},
                {"name": "shape", "type": {"type": "array", "items": "long"}}, {"name": "data", "type": "bytes"}]}},
              {"name": "sent_at_micros", "type": "long"}, {"name": "slo_ms", "type": "double"}]}""";

    private HttpServer registry;
    /** What the fake registry answers per id: status and body. */
    private final Map<Integer, Object[]> registryAnswers = new HashMap<>();
    private final List<String> authorizations = new ArrayList<>();
    private final AtomicLong nanos = new AtomicLong(1_000);

    @AfterEach
    void stopRegistry() {
        if (registry != null) registry.stop(0);
    }

    private static InferenceRequest request(String id) {
        return InferenceRequest.newBuilder().setRequestId(id).setTenant("t").setModel("mlp")
                .setInput(Tensor.newBuilder().setDtype(DType.FLOAT32).setShape(List.of(2L)).setData(ByteBuffer.wrap(new byte[8])).build())
                .setSentAtMicros(1_700_000_000_000_000L).setSloMs(50).setPipelineId("p").setStage(1).build();
    }

    @Test
    void theHeaderIsTheMagicByteAndTheIdBigEndian() {
        byte[] framed = RegistryFraming.frame(0x01020304, new byte[] {9, 8});
        assertThat(framed).containsExactly(0, 1, 2, 3, 4, 9, 8);
        assertThat(RegistryFraming.isFramed(framed)).isTrue();
        assertThat(RegistryFraming.schemaId(framed)).isEqualTo(0x01020304);
        assertThat(RegistryFraming.isFramed(new byte[] {0, 1, 2, 3})).isFalse();
        assertThat(RegistryFraming.isFramed(new byte[] {2, 0, 0, 0, 7})).isFalse();
    }

    @Test
    void aGivenIdIsReadWithOurSchemaAndPlainRecordsStillDecode() {
        FramedDecoder<InferenceRequest> decoder = new RegistryFraming(Set.of(42), null).decoder(InferenceRequest.class);
        byte[] plain = CODEC.encode(request("r1"));
        assertThat(decoder.decode(RegistryFraming.frame(42, plain))).isEqualTo(request("r1"));
        assertThat(decoder.decode(plain)).isEqualTo(request("r1"));
        assertThat(decoder.decode(ByteBuffer.wrap(RegistryFraming.frame(42, plain)))).isEqualTo(request("r1"));
    }

    @Test
    void anUnknownIdIsMalformedNamingIt() {
        FramedDecoder<InferenceRequest> decoder = new RegistryFraming(Set.of(42, 3), null).decoder(InferenceRequest.class);
        assertThatThrownBy(() -> decoder.decode(RegistryFraming.frame(7, CODEC.encode(request("r")))))
                .isInstanceOf(AvroCodec.MalformedRecordException.class)
                .hasMessage("schema-registry framing with schema id 7, which the job does not know: it knows [3, 42]; "
                        + "give it more with serve --registry-schema-id, or their registry with --schema-registry-url");
    }

    @Test
    void withoutFramingAFramedRecordIsNamedAsBefore() {
        FramedDecoder<InferenceRequest> decoder = RegistryFraming.NONE.decoder(InferenceRequest.class);
        assertThatThrownBy(() -> decoder.decode(RegistryFraming.frame(42, CODEC.encode(request("r")))))
                .hasMessageStartingWith("schema-registry framing: magic byte 0, schema id 42; send plain Avro binary");
    }

    @Test
    void aTruncatedFramedRecordIsMalformed() {
        FramedDecoder<InferenceRequest> decoder = new RegistryFraming(Set.of(42), null).decoder(InferenceRequest.class);
        byte[] framed = RegistryFraming.frame(42, CODEC.encode(request("r")));
        assertThatThrownBy(() -> decoder.decode(java.util.Arrays.copyOf(framed, framed.length - 3)))
                .isInstanceOf(AvroCodec.MalformedRecordException.class).hasMessageStartingWith("schema-registry framing, schema id 42: ");
        byte[] longer = java.util.Arrays.copyOf(framed, framed.length + 1);
        assertThatThrownBy(() -> decoder.decode(longer)).hasMessage("schema-registry framing, schema id 42: trailing bytes after the record");
    }

    @Test
    void aRegistrysSchemaIsLookedUpOnceAndAnOlderOneIsResolved() throws IOException {
        answer(5, 200, schemaBody(StandaloneSchemas.text(StandaloneSchemas.PUBLIC.get("InferenceRequest"))));
        answer(6, 200, schemaBody(OLD_REQUEST_SCHEMA));
        SchemaRegistryLookup lookup = lookup(url());
        FramedDecoder<InferenceRequest> decoder = new FramedDecoder<>(CODEC, new RegistryFraming(Set.of(), url()), lookup);
        assertThat(decoder.decode(RegistryFraming.frame(5, CODEC.encode(request("a"))))).isEqualTo(request("a"));
        assertThat(decoder.decode(RegistryFraming.frame(5, CODEC.encode(request("b"))))).isEqualTo(request("b"));
        assertThat(lookup.lookups()).isEqualTo(1);

        // Written with the older schema: no pipeline fields, which take their defaults.
        Schema old = new Schema.Parser().parse(OLD_REQUEST_SCHEMA);
        GenericRecord tensor = new GenericData.Record(old.getField("input").schema());
        tensor.put("dtype", new GenericData.EnumSymbol(tensor.getSchema().getField("dtype").schema(), "FLOAT32"));
        tensor.put("shape", List.of(2L));
        tensor.put("data", ByteBuffer.wrap(new byte[8]));
        GenericRecord r = new GenericData.Record(old);
        r.put("request_id", "old"); r.put("tenant", "t"); r.put("model", "mlp"); r.put("input", tensor);
        r.put("sent_at_micros", 1_700_000_000_000_000L); r.put("slo_ms", 50.0);
        InferenceRequest read = decoder.decode(RegistryFraming.frame(6, write(old, r)));
        InferenceRequest expected = request("old");
        expected.setPipelineId(null);
        expected.setStage(null);
        assertThat(read).isEqualTo(expected);
        assertThat(lookup.lookups()).isEqualTo(2);
    }

    @Test
    void aSchemaTheJobCannotReadIsRejectedForGood() throws IOException {
        answer(8, 200, schemaBody(OLD_REQUEST_SCHEMA.replace("{\"name\": \"request_id\", \"type\": \"string\"}", "{\"name\": \"request_id\", \"type\": \"int\"}")));
        answer(9, 200, schemaBody("{\"type\": \"record\", \"name\": \"Order\", \"fields\": []}"));
        answer(10, 200, "{\"schemaType\": \"PROTOBUF\", \"schema\": \"syntax = \\\"proto3\\\";\"}");
        answer(11, 200, "{\"schema\": \"{not json\"}");
        SchemaRegistryLookup lookup = lookup(url());
        FramedDecoder<InferenceRequest> decoder = new FramedDecoder<>(CODEC, new RegistryFraming(Set.of(), url()), lookup);
        byte[] record = CODEC.encode(request("x"));
        for (int i = 0; i < 2; i++) {
            assertThatThrownBy(() -> decoder.decode(RegistryFraming.frame(8, record)))
                    .hasMessageStartingWith("schema-registry framing, schema id 8: the job cannot read records of the registry's schema: ")
                    .hasMessageContaining("/fields/0/type");
            assertThatThrownBy(() -> decoder.decode(RegistryFraming.frame(9, record)))
                    .hasMessage("schema-registry framing, schema id 9: the registry's schema is record Order, not InferenceRequest");
            assertThatThrownBy(() -> decoder.decode(RegistryFraming.frame(10, record)))
                    .hasMessage("schema-registry framing, schema id 10: the registry's schema is PROTOBUF, not Avro");
            assertThatThrownBy(() -> decoder.decode(RegistryFraming.frame(11, record)))
                    .hasMessageStartingWith("schema-registry framing, schema id 11: the registry's schema does not parse: ");
        }
        assertThat(lookup.lookups()).as("ids never change: each asked once").isEqualTo(4);
    }

    @Test
    void anIdTheRegistryLacksIsAskedAgainAfterAWhile() throws IOException {
        SchemaRegistryLookup lookup = lookup(url());
        FramedDecoder<InferenceRequest> decoder = new FramedDecoder<>(CODEC, new RegistryFraming(Set.of(), url()), lookup);
        byte[] framed = RegistryFraming.frame(12, CODEC.encode(request("y")));
        assertThatThrownBy(() -> decoder.decode(framed))
                .hasMessage("schema-registry framing, schema id 12: the schema registry " + url() + " has no schema with that id (HTTP 404)");
        assertThatThrownBy(() -> decoder.decode(framed)).hasMessageContaining("HTTP 404");
        assertThat(lookup.lookups()).isEqualTo(1);
        answer(12, 200, schemaBody(StandaloneSchemas.text(StandaloneSchemas.PUBLIC.get("InferenceRequest"))));
        nanos.addAndGet(SchemaRegistryLookup.UNKNOWN_RETRY.toNanos());
        assertThat(decoder.decode(framed)).isEqualTo(request("y"));
        assertThat(lookup.lookups()).isEqualTo(2);
    }

    @Test
    void aRegistryThatIsDownFailsTheRecordNotTheDecoderAndIsAskedAgainLater() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort(); // nothing listens there once closed
        }
        String url = "http://127.0.0.1:" + port;
        SchemaRegistryLookup lookup = lookup(url);
        FramedDecoder<InferenceRequest> decoder = new FramedDecoder<>(CODEC, new RegistryFraming(Set.of(42), url), lookup);
        byte[] record = CODEC.encode(request("z"));
        assertThatThrownBy(() -> decoder.decode(RegistryFraming.frame(5, record)))
                .isInstanceOf(AvroCodec.MalformedRecordException.class)
                .hasMessageStartingWith("schema-registry framing, schema id 5: the schema registry " + url + " could not be reached: ConnectException");
        assertThatThrownBy(() -> decoder.decode(RegistryFraming.frame(6, record)))
                .hasMessageContaining("could not be reached a moment ago (ConnectException");
        assertThat(lookup.lookups()).as("not asked again while it is down").isEqualTo(1);
        // An id given on the command line needs no registry.
        assertThat(decoder.decode(RegistryFraming.frame(42, record))).isEqualTo(request("z"));
        nanos.addAndGet(SchemaRegistryLookup.DOWN_RETRY.toNanos());
        assertThatThrownBy(() -> decoder.decode(RegistryFraming.frame(6, record))).hasMessageContaining("could not be reached: ConnectException");
        assertThat(lookup.lookups()).isEqualTo(2);
    }

    @Test
    void credentialsInTheUrlGoInABasicAuthorizationHeaderAndNeverInAMessage() throws IOException {
        url(); // starts the registry
        String withCredentials = "http://key:s3cret@127.0.0.1:" + registry.getAddress().getPort() + "/";
        SchemaRegistryLookup lookup = lookup(withCredentials);
        FramedDecoder<InferenceRequest> decoder = new FramedDecoder<>(CODEC, new RegistryFraming(Set.of(), withCredentials), lookup);
        assertThatThrownBy(() -> decoder.decode(RegistryFraming.frame(13, CODEC.encode(request("w")))))
                .hasMessageNotContaining("s3cret").hasMessageContaining("HTTP 404");
        assertThat(authorizations).containsExactly("Basic " + java.util.Base64.getEncoder().encodeToString("key:s3cret".getBytes(StandardCharsets.UTF_8)));
        assertThat(new RegistryFraming(Set.of(), withCredentials).toString()).doesNotContain("s3cret");
    }

    @Test
    void settingsRefuseWhatIsNoRegistryUrl() {
        assertThatThrownBy(() -> new RegistryFraming(Set.of(), "ftp://host")).hasMessageContaining("http:// or https://");
        assertThatThrownBy(() -> new RegistryFraming(Set.of(), "http//host")).hasMessageContaining("http:// or https://");
        assertThatThrownBy(() -> new RegistryFraming(Set.of(-1), null)).hasMessageContaining("-1");
        assertThat(new RegistryFraming(Set.of(), "http://h:8081/").registryUrl()).isEqualTo("http://h:8081");
        assertThat(RegistryFraming.NONE.enabled()).isFalse();
    }

    private SchemaRegistryLookup lookup(String url) {
        return new SchemaRegistryLookup(url, CODEC.schema(), Duration.ofSeconds(2), nanos::get);
    }

    private void answer(int id, int status, String body) {
        registryAnswers.put(id, new Object[] {status, body});
    }

    private static String schemaBody(String schema) {
        return "{\"schema\": " + com.fasterxml.jackson.databind.node.TextNode.valueOf(schema) + "}";
    }

    private String url() throws IOException {
        if (registry == null) {
            registry = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            registry.createContext("/schemas/ids/", exchange -> {
                String auth = exchange.getRequestHeaders().getFirst("Authorization");
                if (auth != null) authorizations.add(auth);
                int id = Integer.parseInt(exchange.getRequestURI().getPath().substring("/schemas/ids/".length()));
                Object[] a = registryAnswers.getOrDefault(id, new Object[] {404, "{\"error_code\": 40403, \"message\": \"Schema not found\"}"});
                byte[] body = ((String) a[1]).getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().add("Content-Type", "application/vnd.schemaregistry.v1+json");
                exchange.sendResponseHeaders((Integer) a[0], body.length);
                exchange.getResponseBody().write(body);
                exchange.close();
            });
            registry.start();
        }
        return "http://127.0.0.1:" + registry.getAddress().getPort();
    }

    private static byte[] write(Schema schema, GenericRecord record) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<GenericRecord>(schema).write(record, encoder);
        encoder.flush();
        return out.toByteArray();
    }
}
