package io.kairos.testbed.job;

import com.sun.net.httpserver.HttpServer;
import io.kairos.core.model.ModelCatalog;
import io.kairos.jobs.config.ServingConfig;
import io.kairos.jobs.ServingJob;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.ResultStatus;
import io.kairos.wire.AvroCodec;
import io.kairos.wire.RegistryFraming;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The serving job on a real broker reads requests in a schema registry's wire format, as
 * Confluent's serializers write them: under an id it was given, under one its registry has (a
 * producer on an older InferenceRequest, read through schema resolution), and rejects an id the
 * registry lacks and, once the registry is gone, one it cannot look up, serving on.
 */
class RegistryFramingIntegrationTest {

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(
            new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).build());

    private static final ModelCatalog CATALOG = ModelCatalog.builtIn();
    /** What an older client registered: InferenceRequest before the pipeline fields. */
    private static final Schema OLDER = olderRequestSchema();

    @RegisterExtension
    static final BrokerForClass BROKER = new BrokerForClass();

    @Test
    void framedRequestsOfKnownIdsAreServedAndOthersRejectedNamingTheId() throws Exception {
        HttpServer registry = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        byte[] older = ("{\"schema\": " + com.fasterxml.jackson.databind.node.TextNode.valueOf(OLDER.toString()) + "}").getBytes(StandardCharsets.UTF_8);
        registry.createContext("/schemas/ids/", exchange -> {
            boolean found = exchange.getRequestURI().getPath().equals("/schemas/ids/9");
            byte[] body = found ? older : "{\"error_code\": 40403}".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(found ? 200 : 404, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        registry.start();
        String url = "http://127.0.0.1:" + registry.getAddress().getPort();
        ServingConfig config = TestConfigs.onBroker(BROKER.get(), "framing-", c -> {
            c.registrySchemaIds = new java.util.TreeSet<>(Set.of(5));
            c.schemaRegistryUrl = url;
        });
        AvroCodec<InferenceRequest> codec = AvroCodec.of(InferenceRequest.class);
        try (TopicClient kafka = new TopicClient(BROKER.get().bootstrapServers())) {
            JobClient job = ServingJob.onKafka(config, CATALOG).start(StreamExecutionEnvironment.getExecutionEnvironment());
            try {
                kafka.send(config.requestsTopic, RegistryFraming.frame(5, codec.encode(ServingJobIntegrationTest.request("given-id", "mlp", 60_000))));
                kafka.send(config.requestsTopic, RegistryFraming.frame(9, writtenWithOlderSchema(ServingJobIntegrationTest.request("registered-id", "mlp", 60_000))));
                kafka.send(config.requestsTopic, RegistryFraming.frame(10, codec.encode(ServingJobIntegrationTest.request("unregistered-id", "mlp", 60_000))));
                kafka.flush();
                Map<String, InferenceResult> results = byId(kafka.readUntil(config.resultsTopic, InferenceResult.class, l -> l.size() >= 3, Duration.ofSeconds(90)));
                assertThat(results.get("given-id").getStatus()).isEqualTo(ResultStatus.OK);
                assertThat(results.get("registered-id").getStatus()).isEqualTo(ResultStatus.OK);
                assertThat(results.get("registered-id").getPipelineId()).as("a field the older writer lacks takes its default").isNull();
                assertThat(results).hasSize(3).containsKey("framing-requests-0@2");
                assertThat(results.get("framing-requests-0@2").getReason()).isEqualTo("malformed request: schema-registry framing, schema id 10: the schema registry "
                        + url + " has no schema with that id (HTTP 404) (record framing-requests-0@2)");

                // The registry goes away: an id it would have had to look up is rejected, the rest served.
                registry.stop(0);
                kafka.send(config.requestsTopic, RegistryFraming.frame(11, codec.encode(ServingJobIntegrationTest.request("registry-down", "mlp", 60_000))));
                kafka.send(config.requestsTopic, RegistryFraming.frame(9, writtenWithOlderSchema(ServingJobIntegrationTest.request("registered-again", "mlp", 60_000))));
                kafka.send(config.requestsTopic, codec.encode(ServingJobIntegrationTest.request("plain", "mlp", 60_000)));
                kafka.flush();
                Map<String, InferenceResult> more = byId(kafka.readUntil(config.resultsTopic, InferenceResult.class, l -> l.size() >= 6, Duration.ofSeconds(90)));
                assertThat(more.get("framing-requests-0@3").getStatus()).isEqualTo(ResultStatus.REJECTED);
                assertThat(more.get("framing-requests-0@3").getReason())
                        .startsWith("malformed request: schema-registry framing, schema id 11: the schema registry " + url + " could not be reached: ");
                assertThat(more.get("registered-again").getStatus()).as("its schema was looked up before: no registry needed").isEqualTo(ResultStatus.OK);
                assertThat(more.get("plain").getStatus()).isEqualTo(ResultStatus.OK);
            } finally {
                job.cancel().get();
                registry.stop(0);
            }
        }
    }

    /** Results by request id (a rejected record without a key is named by its origin). */
    private static Map<String, InferenceResult> byId(List<InferenceResult> results) {
        return results.stream().collect(Collectors.toMap(InferenceResult::getRequestId, Function.identity()));
    }

    /** The request as a client on the older schema writes it (it has no pipeline fields to write). */
    private static byte[] writtenWithOlderSchema(InferenceRequest request) throws IOException {
        byte[] current = AvroCodec.of(InferenceRequest.class).encode(request);
        GenericRecord asOlder = new GenericDatumReader<GenericRecord>(InferenceRequest.getClassSchema(), OLDER)
                .read(null, DecoderFactory.get().binaryDecoder(current, null));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<GenericRecord>(OLDER).write(asOlder, encoder);
        encoder.flush();
        return out.toByteArray();
    }

    private static Schema olderRequestSchema() {
        Schema current = InferenceRequest.getClassSchema();
        List<Schema.Field> fields = current.getFields().stream()
                .filter(f -> !f.name().equals("pipeline_id") && !f.name().equals("stage"))
                .map(f -> new Schema.Field(f, f.schema()))
                .toList();
        return Schema.createRecord(current.getName(), current.getDoc(), current.getNamespace(), false, fields);
    }
}
