package io.kairos.flink;

import io.kairos.core.model.ModelCatalog;
import io.kairos.core.request.AdmissionLimits;
import io.kairos.core.time.ManualClock;
import io.kairos.schema.AssignGroup;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.DType;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.ResultStatus;
import io.kairos.schema.Tensor;
import io.kairos.schema.internal.AdmittedRequest;
import io.kairos.schema.internal.RawRequest;
import io.kairos.wire.AvroCodec;
import io.kairos.wire.RegistryFraming;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.BroadcastOperatorTestHarness;
import org.apache.flink.streaming.util.ProcessFunctionTestHarnesses;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

/**
 * Drives {@link AdmitRequests} with Flink's broadcast test harness and a manual clock: each way a
 * record of the requests topic can go (malformed, invalid, too late, admitted) and where it ends
 * up (the main output, or a result on the {@link AdmitRequests#TURNED_AWAY} side output).
 */
class AdmitRequestsHarnessTest {

    private static final ModelCatalog CATALOG = ModelCatalog.builtIn();
    private static final long NOW = 1_700_000_000_000_000L;
    private static final long READ_AT = NOW - 300; // when the source read the record

    private final ManualClock clock = new ManualClock(NOW);
    private BroadcastOperatorTestHarness<RawRequest, ControlDecision, AdmittedRequest> harness;
    private long offset;

    @BeforeEach
    void open() throws Exception {
        harness = ProcessFunctionTestHarnesses.forBroadcastProcessFunction(
                new AdmitRequests(CATALOG, new ControlPlane(1, "triton", Map.of()), clock), ControlPlane.DECISIONS);
    }

    @AfterEach
    void close() throws Exception {
        harness.close();
    }

    /** resnet50 and googlenet of the built-in catalog take FLOAT32 [3, 32, 32]. */
    private static InferenceRequest request(String id, String model, long sentAtMicros, double sloMs) {
        return InferenceRequest.newBuilder()
                .setRequestId(id).setTenant("t").setModel(model)
                .setInput(Tensor.newBuilder().setDtype(DType.FLOAT32).setShape(List.of(3L, 32L, 32L))
                        .setData(ByteBuffer.allocate(3 * 32 * 32 * 4)).build())
                .setSentAtMicros(sentAtMicros).setSloMs(sloMs)
                .build();
    }

    /** Feeds a record of partition 0 of the requests topic, at the next offset. */
    private void read(byte[] payload) throws Exception {
        read(payload, null);
    }

    /** The same with a Kafka key (null: none). */
    private void read(byte[] payload, byte[] key) throws Exception {
        harness.processElement(new RawRequest("requests", 0, offset++, READ_AT, ByteBuffer.wrap(payload), key == null ? null : ByteBuffer.wrap(key)), 0);
    }

    private void read(InferenceRequest request) throws Exception {
        read(AvroCodec.of(InferenceRequest.class).encode(request));
    }

    private List<InferenceResult> turnedAway() {
        var side = harness.getSideOutput(AdmitRequests.TURNED_AWAY);
        return side == null ? List.of() : side.stream().map(StreamRecord::getValue).toList();
    }

    @Test
    void bytesThatAreNotARequestAreRejectedUnderTheirOrigin() throws Exception {
        offset = 7;
        read("not avro at all".getBytes(StandardCharsets.UTF_8));

        assertThat(harness.extractOutputValues()).isEmpty();
        assertThat(turnedAway()).singleElement().satisfies(r -> {
            assertThat(r.getRequestId()).isEqualTo("requests-0@7");
            assertThat(r.getStatus()).isEqualTo(ResultStatus.REJECTED);
            assertThat(r.getReason()).startsWith("malformed request: ");
            assertThat(r.getModel()).isEmpty();
            assertThat(r.getTimings().getIngested()).isEqualTo(READ_AT);
            assertThat(r.getTimings().getEmitted()).isEqualTo(NOW);
        });
    }

    @Test
    void bytesThatAreNotARequestAreRejectedUnderTheirKeyWhenItCouldBeARequestId() throws Exception {
        offset = 7;
        byte[] junk = "not avro at all".getBytes(StandardCharsets.UTF_8);
        read(junk, "client-42".getBytes(StandardCharsets.UTF_8));            // offset 7: a key like an id
        read(junk, new byte[] {(byte) 0xC3, (byte) 0x28});                      // 8: not UTF-8
        read(junk, "   ".getBytes(StandardCharsets.UTF_8));                  // 9: blank
        read(junk, "k".repeat(257).getBytes(StandardCharsets.UTF_8));        // 10: over the 256-byte id limit
        read(junk, new byte[0]);                                              // 11: empty

        assertThat(turnedAway()).extracting(InferenceResult::getRequestId)
                .containsExactly("client-42", "requests-0@8", "requests-0@9", "requests-0@10", "requests-0@11");
        assertThat(turnedAway()).allSatisfy(r -> assertThat(r.getStatus()).isEqualTo(ResultStatus.REJECTED));
        // The origin is in the reason whatever the id: the key alone may not be unique.
        assertThat(turnedAway().get(0).getReason()).startsWith("malformed request: ").endsWith(" (record requests-0@7)");
        assertThat(turnedAway().get(1).getReason()).endsWith(" (record requests-0@8)");
    }

    @Test
    void aRequestTheCatalogCannotServeIsRejectedWithTheReason() throws Exception {
        read(request("r1", "no-such-model", NOW - 1_000, 100));
        read(request("r2", "resnet50", NOW - 1_000, -5));

        assertThat(harness.extractOutputValues()).isEmpty();
        assertThat(turnedAway()).extracting(InferenceResult::getRequestId, InferenceResult::getStatus).containsExactly(
                tuple("r1", ResultStatus.REJECTED),
                tuple("r2", ResultStatus.REJECTED));
        assertThat(turnedAway().get(0).getReason()).startsWith("unknown model 'no-such-model'; served models: ");
        assertThat(turnedAway().get(0).getModel()).isEqualTo("no-such-model");
        assertThat(turnedAway().get(1).getReason()).isEqualTo("slo_ms must be a positive number of milliseconds, got -5.0");
        assertThat(turnedAway().get(1).getTimings().getSent()).isEqualTo(NOW - 1_000);
    }

    @Test
    void aRequestWhoseDeadlinePassedBeforeItWasReadIsDropped() throws Exception {
        read(request("late", "resnet50", NOW - 10_500, 10));  // deadline NOW - 500
        read(request("just", "resnet50", NOW - 10_000, 10));  // deadline NOW: no time left either

        assertThat(harness.extractOutputValues()).isEmpty();
        assertThat(turnedAway()).extracting(InferenceResult::getRequestId, InferenceResult::getStatus, InferenceResult::getReason).containsExactly(
                tuple("late", ResultStatus.DROPPED, "deadline passed 500 us before the request was read"),
                tuple("just", ResultStatus.DROPPED, "deadline passed 0 us before the request was read"));
        assertThat(turnedAway().get(0).getTimings().getDeadline()).isEqualTo(NOW - 500);
        assertThat(turnedAway().get(0).getTimings().getEmitted()).isEqualTo(NOW);
    }

    @Test
    void aRequestWithLessTimeLeftThanItsModelTakesAloneIsDroppedOnArrival() throws Exception {
        // resnet50 takes 2.7 ms alone (the catalog's batch of one): with 2,699 us left no device
        // could finish it, with 2,700 us an idle one could.
        read(request("short", "resnet50", NOW - 7_301, 10));
        read(request("enough", "resnet50", NOW - 7_300, 10));

        assertThat(turnedAway()).extracting(InferenceResult::getRequestId, InferenceResult::getStatus, InferenceResult::getReason).containsExactly(
                tuple("short", ResultStatus.DROPPED, "deadline unreachable when read: 2699 us left, and model 'resnet50' takes 2700 us alone"));
        assertThat(harness.extractOutputValues()).extracting(r -> r.getRequest().getRequestId()).containsExactly("enough");
    }

    @Test
    void aGoodRequestIsAdmittedWithItsDeadlineAndRoutedToTheGroupThePlanGivesItsModel() throws Exception {
        harness.processBroadcastElement(ControlDecision.newBuilder().setVersion(1).setIssuedAtMicros(NOW).setIssuedBy("test")
                .setAction(AssignGroup.newBuilder().setModel("resnet50").setGroup("vision").build()).build(), 0);

        read(request("r", "resnet50", NOW - 7_300, 10));    // 2.7 ms left: what resnet50 takes alone
        read(request("g", "googlenet", NOW - 1_000, 50));   // no assignment: the default group

        assertThat(turnedAway()).isEmpty();
        assertThat(harness.extractOutputValues()).satisfiesExactly(
                a -> {
                    assertThat(a.getRequest().getRequestId()).isEqualTo("r");
                    assertThat(a.getGroup()).isEqualTo("vision");
                    assertThat(a.getDeadlineAtMicros()).isEqualTo(NOW + 2_700);
                    assertThat(a.getIngestedAtMicros()).isEqualTo(READ_AT);
                },
                a -> {
                    assertThat(a.getRequest().getRequestId()).isEqualTo("g");
                    assertThat(a.getGroup()).isEqualTo("default");
                    assertThat(a.getDeadlineAtMicros()).isEqualTo(NOW + 49_000);
                });
    }

    @Test
    void aLaterAssignmentRoutesTheNextRequestsOnly() throws Exception {
        read(request("before", "resnet50", NOW, 100));
        harness.processBroadcastElement(ControlDecision.newBuilder().setVersion(1).setIssuedAtMicros(NOW).setIssuedBy("test")
                .setAction(AssignGroup.newBuilder().setModel("resnet50").setGroup("vision").build()).build(), 0);
        read(request("after", "resnet50", NOW, 100));

        assertThat(harness.extractOutputValues()).extracting(a -> a.getRequest().getRequestId(), AdmittedRequest::getGroup)
                .containsExactly(
                        tuple("before", "default"),
                        tuple("after", "vision"));
    }

    @Test
    void otherFramingsAreNamedInTheReason() throws Exception {
        byte[] plain = AvroCodec.of(InferenceRequest.class).encode(request("c", "resnet50", NOW, 10));
        byte[] confluent = new byte[plain.length + 5];
        confluent[4] = 42; // magic byte 0, schema id 42 (big-endian), then the record
        System.arraycopy(plain, 0, confluent, 5, plain.length);
        read(confluent);
        read("Obj\u0001 and a header".getBytes(StandardCharsets.ISO_8859_1));
        read(" {\"request_id\": \"j\"}".getBytes(StandardCharsets.UTF_8));

        assertThat(harness.extractOutputValues()).isEmpty();
        assertThat(turnedAway()).extracting(InferenceResult::getStatus, InferenceResult::getReason).containsExactly(
                tuple(ResultStatus.REJECTED, "malformed request: schema-registry framing: magic byte 0, schema id 42; send plain Avro binary, or give the job that id "
                        + "with serve --registry-schema-id or its registry with --schema-registry-url (record requests-0@0)"),
                tuple(ResultStatus.REJECTED, "malformed request: an Avro object container file (magic 'Obj' 1, with its schema in a header); send each record as plain Avro binary (record requests-0@1)"),
                tuple(ResultStatus.REJECTED, "malformed request: JSON text (starts with '{'); send the record as plain Avro binary, not JSON (record requests-0@2)"));
    }

    @Test
    void aFramedRecordOfAKnownSchemaIdIsAdmittedAndOneOfAnUnknownIdRejectedUnderItsKey() throws Exception {
        harness.close();
        harness = ProcessFunctionTestHarnesses.forBroadcastProcessFunction(new AdmitRequests(CATALOG, new ControlPlane(1, "triton", Map.of()),
                AdmissionLimits.DEFAULTS, new RegistryFraming(Set.of(42), null), clock), ControlPlane.DECISIONS);
        byte[] plain = AvroCodec.of(InferenceRequest.class).encode(request("framed", "resnet50", NOW, 10));
        read(RegistryFraming.frame(42, plain), "framed".getBytes(StandardCharsets.UTF_8));
        read(RegistryFraming.frame(43, plain), "framed-43".getBytes(StandardCharsets.UTF_8));
        read(AvroCodec.of(InferenceRequest.class).encode(request("plain", "resnet50", NOW, 10)));

        assertThat(harness.extractOutputValues()).extracting(a -> a.getRequest().getRequestId()).containsExactly("framed", "plain");
        assertThat(turnedAway()).singleElement().satisfies(r -> {
            assertThat(r.getRequestId()).isEqualTo("framed-43");
            assertThat(r.getStatus()).isEqualTo(ResultStatus.REJECTED);
            assertThat(r.getReason()).isEqualTo("malformed request: schema-registry framing with schema id 43, which the job does not know: it knows [42]; "
                    + "give it more with serve --registry-schema-id, or their registry with --schema-registry-url (record requests-0@1)");
        });
    }

    @Test
    void sendTimesAndSlosThatWouldOverflowTheDeadlineAreRejected() throws Exception {
        read(request("far", "resnet50", Long.MAX_VALUE, 10));
        read(request("long", "resnet50", NOW, 1e300));

        assertThat(harness.extractOutputValues()).isEmpty();
        assertThat(turnedAway()).extracting(InferenceResult::getRequestId, InferenceResult::getStatus, InferenceResult::getReason).containsExactly(
                tuple("far", ResultStatus.REJECTED, "sent_at_micros 9223372036854775807 is " + (Long.MAX_VALUE - NOW)
                        + " us ahead of the job's clock, over the allowed clock skew of 3600000000 us"),
                tuple("long", ResultStatus.REJECTED, "slo_ms 1.0E300 is over the limit of 3600000 ms"));
        assertThat(turnedAway().get(0).getTimings().getDeadline()).isEqualTo(Long.MAX_VALUE);
        assertThat(turnedAway().get(1).getTimings().getDeadline()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aHugeIdIsRejectedAndItsResultFitsOnceBounded() throws Exception {
        read(request("x".repeat(600_000), "resnet50", NOW, 10));
        InferenceResult r = turnedAway().get(0);
        assertThat(r.getReason()).isEqualTo("request_id is 600000 bytes, over the limit of 256 bytes");
        InferenceResult fitted = io.kairos.wire.result.ResultBounds.DEFAULT.fit(r);
        assertThat(AvroCodec.of(InferenceResult.class).encode(fitted).length + 256).isLessThan(io.kairos.wire.result.ResultBounds.DEFAULT.maxRecordBytes());
    }
}
