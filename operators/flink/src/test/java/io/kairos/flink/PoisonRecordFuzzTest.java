package io.kairos.flink;

import io.kairos.core.model.ModelCatalog;
import io.kairos.core.time.ManualClock;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.DType;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.Tensor;
import io.kairos.schema.internal.AdmittedRequest;
import io.kairos.schema.internal.BatchOutcome;
import io.kairos.schema.internal.DispatchedBatch;
import io.kairos.schema.internal.RawRequest;
import io.kairos.wire.AvroCodec;
import io.kairos.wire.result.ResultBounds;
import io.kairos.wire.result.Results;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.BroadcastOperatorTestHarness;
import org.apache.flink.streaming.util.ProcessFunctionTestHarnesses;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A million random and mutated records through {@link AdmitRequests} (decode, validate, route)
 * and the result bound the job applies before its sink: bit flips, truncations, trailing bytes,
 * corrupted and huge length fields, other framings, random bytes, and each field of a valid record
 * set to an edge or a hostile value. No exception escapes, every record gets exactly one outcome
 * (admitted, or a result), and every result, once bounded, encodes under the producer's limit;
 * an admitted request's result is made with its input echoed as the output, as a device could.
 */
class PoisonRecordFuzzTest {
    private static final int RECORDS = 1_000_000;
    private static final long NOW = 1_700_000_000_000_000L;
    private static final ModelCatalog CATALOG = ModelCatalog.builtIn();
    private static final ResultBounds BOUNDS = ResultBounds.DEFAULT;

    private final Random random = new Random(20240612);
    private final AvroCodec<InferenceRequest> requests = AvroCodec.of(InferenceRequest.class);
    private final AvroCodec<InferenceResult> results = AvroCodec.of(InferenceResult.class);

    @Test
    @SuppressWarnings("unchecked")
    void noRecordFailsTheFunctionAndEveryOneGetsOneOutcomeUnderTheLimit() throws Exception {
        Map<Kind, Integer> kinds = new EnumMap<>(Kind.class);
        int admitted = 0, turnedAway = 0, cut = 0;
        try (BroadcastOperatorTestHarness<RawRequest, ControlDecision, AdmittedRequest> harness = ProcessFunctionTestHarnesses.forBroadcastProcessFunction(
                new AdmitRequests(CATALOG, new ControlPlane(1, "triton", Map.of()), new ManualClock(NOW)), ControlPlane.DECISIONS)) {
            Queue<Object> main = harness.getOutput();
            for (int i = 0; i < RECORDS; i++) {
                Kind kind = KINDS[random.nextInt(KINDS.length)];
                kinds.merge(kind, 1, Integer::sum);
                byte[] payload = record(kind);
                harness.processElement(new RawRequest("requests", 0, (long) i, NOW - 100, ByteBuffer.wrap(payload), null), 0);

                Queue<StreamRecord<InferenceResult>> side = harness.getSideOutput(AdmitRequests.TURNED_AWAY);
                Object a = main.poll();
                StreamRecord<InferenceResult> r = side == null ? null : side.poll();
                assertThat((a == null ? 0 : 1) + (r == null ? 0 : 1)).as("outcomes of record %d (%s)", i, kind).isEqualTo(1);
                assertThat(main.isEmpty() && (side == null || side.isEmpty())).as("record %d (%s) gave more than one outcome", i, kind).isTrue();
                InferenceResult result;
                if (a != null) {
                    admitted++;
                    result = executed(((StreamRecord<AdmittedRequest>) a).getValue());
                } else {
                    turnedAway++;
                    result = r.getValue();
                }
                InferenceResult fitted = BOUNDS.fit(result);
                if (fitted != result) cut++;
                long bytes = results.encode(fitted).length + fitted.getRequestId().getBytes(StandardCharsets.UTF_8).length;
                assertThat(bytes).as("record %d (%s): %s", i, kind, fitted.getReason()).isLessThan(BOUNDS.maxRecordBytes());
            }
        }
        assertThat(admitted + turnedAway).isEqualTo(RECORDS);
        // Every kind was tried, and the mix reached every branch: admitted, turned away, cut to fit.
        assertThat(kinds).hasSize(Kind.values().length);
        assertThat(admitted).isGreaterThan(RECORDS / 20);
        assertThat(turnedAway).isGreaterThan(RECORDS / 2);
        assertThat(cut).isGreaterThan(100);
    }

    /** The result of an admitted request that ran alone, its input echoed as its output. */
    private static InferenceResult executed(AdmittedRequest a) {
        DispatchedBatch batch = DispatchedBatch.newBuilder().setBatchId("b").setGroup(a.getGroup()).setModel(a.getRequest().getModel())
                .setDevice(0).setDispatchedAtMicros(NOW).setPredictedStartMicros(NOW).setPredictedLatencyMicros(1)
                .setRequests(List.of(a)).build();
        BatchOutcome outcome = BatchOutcome.newBuilder().setBatch(batch).setExecStartMicros(NOW).setExecEndMicros(NOW + 1)
                .setOutputs(new ArrayList<>(List.of(a.getRequest().getInput()))).build();
        return Results.executed(outcome, 0, NOW + 2);
    }

    /** Field mutations twice as often as each other kind: they reach the checks past decoding. */
    private static final Kind[] KINDS = {Kind.RANDOM_BYTES, Kind.OTHER_FRAMING, Kind.BIT_FLIPS, Kind.TRUNCATED, Kind.TRAILING_BYTES,
            Kind.CORRUPT_LENGTH, Kind.FIELD, Kind.FIELD, Kind.VALID};

    enum Kind { RANDOM_BYTES, OTHER_FRAMING, BIT_FLIPS, TRUNCATED, TRAILING_BYTES, CORRUPT_LENGTH, FIELD, VALID }

    private byte[] record(Kind kind) {
        return switch (kind) {
            case RANDOM_BYTES -> bytes(random.nextInt(200));
            case OTHER_FRAMING -> otherFraming();
            case BIT_FLIPS -> {
                byte[] b = requests.encode(valid());
                for (int n = 1 + random.nextInt(8); n > 0; n--) b[random.nextInt(b.length)] ^= (byte) (1 << random.nextInt(8));
                yield b;
            }
            case TRUNCATED -> {
                byte[] b = requests.encode(valid());
                yield java.util.Arrays.copyOf(b, random.nextInt(b.length));
            }
            case TRAILING_BYTES -> concat(requests.encode(valid()), bytes(1 + random.nextInt(20)));
            case CORRUPT_LENGTH -> corruptLength(requests.encode(valid()));
            case FIELD -> requests.encode(mutated());
            case VALID -> requests.encode(valid());
        };
    }

    private byte[] bytes(int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] c = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }

    private byte[] otherFraming() {
        return switch (random.nextInt(3)) {
            case 0 -> concat(new byte[] {0, 0, 0, 0, (byte) random.nextInt(128)}, requests.encode(valid()));
            case 1 -> concat("Obj\u0001".getBytes(StandardCharsets.ISO_8859_1), bytes(random.nextInt(100)));
            default -> ("{\"request_id\": \"" + random.nextInt() + "\"}").getBytes(StandardCharsets.UTF_8);
        };
    }

    /** Overwrites the bytes at a random position with a varint: huge, negative, or just wrong. */
    private byte[] corruptLength(byte[] b) {
        long value = switch (random.nextInt(4)) {
            case 0 -> Long.MAX_VALUE;
            case 1 -> -1 - random.nextInt(1000);
            case 2 -> 1L << (20 + random.nextInt(20));
            default -> random.nextInt(1 << 16);
        };
        long zigzag = (value << 1) ^ (value >> 63);
        byte[] varint = new byte[10];
        int n = 0;
        while ((zigzag & ~0x7FL) != 0) {
            varint[n++] = (byte) ((zigzag & 0x7F) | 0x80);
            zigzag >>>= 7;
        }
        varint[n++] = (byte) zigzag;
        int at = random.nextInt(b.length);
        byte[] out = java.util.Arrays.copyOf(b, Math.max(b.length, at + n));
        System.arraycopy(varint, 0, out, at, n);
        return out;
    }

    private InferenceRequest valid() {
        String model = random.nextInt(100) == 0 ? "resnet50" : "mlp";
        var input = CATALOG.get(model).input();
        List<Long> shape = new ArrayList<>();
        for (long d : input.shape()) shape.add(d);
        return InferenceRequest.newBuilder()
                .setRequestId("r" + random.nextInt(1_000_000)).setTenant("t" + random.nextInt(10)).setModel(model)
                .setInput(Tensor.newBuilder().setDtype(DType.valueOf(input.dtype())).setShape(shape).setData(ByteBuffer.wrap(bytes((int) input.byteSize()))).build())
                .setSentAtMicros(NOW - random.nextInt(1_000)).setSloMs(1 + random.nextInt(1_000))
                .setPipelineId(random.nextBoolean() ? null : "p").setStage(random.nextBoolean() ? null : random.nextInt(4))
                .build();
    }

    private static final double[] SLOS = {0, -0.0, -1, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 1e300, -1e300,
            Double.MIN_VALUE, Double.MAX_VALUE, 3_600_000, 3_600_000.001, 1e-9};
    private static final long[] TIMES = {0, -1, 1, Long.MAX_VALUE, Long.MIN_VALUE, NOW + 3_600_000_000L, NOW + 3_600_000_001L, NOW - 3_600_000_000_000L};

    /** A valid record with one field set to an edge or hostile value. */
    private InferenceRequest mutated() {
        InferenceRequest r = valid();
        Tensor t = r.getInput();
        switch (random.nextInt(12)) {
            case 0 -> r.setRequestId(text());
            case 1 -> r.setTenant(text());
            case 2 -> r.setModel(random.nextBoolean() ? text() : "no-such-model-" + random.nextInt(100));
            case 3 -> r.setPipelineId(text());
            case 4 -> r.setStage(random.nextBoolean() ? Integer.MIN_VALUE : -random.nextInt(5));
            case 5 -> r.setSloMs(SLOS[random.nextInt(SLOS.length)]);
            case 6 -> r.setSentAtMicros(TIMES[random.nextInt(TIMES.length)]);
            case 7 -> t.setDtype(DType.values()[random.nextInt(DType.values().length)]);
            case 8 -> {
                List<Long> shape = new ArrayList<>();
                for (int n = random.nextInt(random.nextInt(50) == 0 ? 5_000 : 6); n > 0; n--) shape.add(random.nextLong() >> random.nextInt(64));
                t.setShape(shape);
            }
            case 9 -> t.setData(ByteBuffer.wrap(bytes(random.nextInt(random.nextInt(50) == 0 ? 100_000 : 600))));
            case 10 -> { // all the echoed fields long at once
                String s = text();
                r.setRequestId(s);
                r.setModel(s);
                r.setTenant(s);
            }
            default -> r.setRequestId(random.nextBoolean() ? "" : " \t");
        }
        return r;
    }

    /** Text of a length anywhere from empty to 600 KB (rarely), in one-, two- and three-byte characters. */
    private String text() {
        int length = switch (random.nextInt(20)) {
            case 0 -> random.nextInt(1000) == 0 ? 600_000 : 1 + random.nextInt(20_000);
            case 1 -> 250 + random.nextInt(10);
            default -> random.nextInt(64);
        };
        char[] c = new char[length];
        char base = switch (random.nextInt(3)) { case 0 -> 'a'; case 1 -> '\u00e9'; default -> '\u20ac'; };
        for (int i = 0; i < length; i++) c[i] = (char) (base + random.nextInt(20));
        return new String(c);
    }
}
