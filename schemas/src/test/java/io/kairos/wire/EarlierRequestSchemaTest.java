package io.kairos.wire;

import io.kairos.schema.DType;
import io.kairos.schema.InferenceRequest;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A request written by a client built before window_start_ms (the schema kept in
 * schemas/earlier) is read as plain bytes, the new field at its default; a request of the
 * current schema with a window reads back with it.
 */
class EarlierRequestSchemaTest {

    private static Schema earlier() throws IOException {
        try (InputStream in = EarlierRequestSchemaTest.class.getResourceAsStream("/avro/earlier/InferenceRequest-1.avsc")) {
            return new Schema.Parser().parse(in);
        }
    }

    @Test
    void anOlderClientsPlainRequestDecodesWithoutAWindow() throws IOException {
        Schema old = earlier();
        assertThat(old.getField("window_start_ms")).isNull();
        GenericRecord tensor = new GenericData.Record(old.getField("input").schema());
        tensor.put("dtype", new GenericData.EnumSymbol(tensor.getSchema().getField("dtype").schema(), "FLOAT32"));
        tensor.put("shape", List.of(1L));
        tensor.put("data", ByteBuffer.wrap(new byte[4]));
        GenericRecord r = new GenericData.Record(old);
        r.put("request_id", "old-1");
        r.put("tenant", "t");
        r.put("model", "m");
        r.put("input", tensor);
        r.put("sent_at_micros", 7L);
        r.put("slo_ms", 50.0);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder e = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<GenericRecord>(old).write(r, e);
        e.flush();

        InferenceRequest decoded = AvroCodec.of(InferenceRequest.class).decode(out.toByteArray());
        assertThat(decoded.getRequestId()).isEqualTo("old-1");
        assertThat(decoded.getSloMs()).isEqualTo(50.0);
        assertThat(decoded.getInput().getDtype()).isEqualTo(DType.FLOAT32);
        assertThat(decoded.getWindowStartMs()).isNull();
    }

    @Test
    void aCurrentRequestKeepsItsWindowAndBytesOfNeitherSchemaStayMalformed() {
        AvroCodec<InferenceRequest> codec = AvroCodec.of(InferenceRequest.class);
        InferenceRequest r = InferenceRequest.newBuilder().setRequestId("new-1").setTenant("t").setModel("m")
                .setInput(io.kairos.schema.Tensor.newBuilder().setDtype(DType.FLOAT32).setShape(List.of(1L)).setData(ByteBuffer.wrap(new byte[4])).build())
                .setSentAtMicros(7).setSloMs(1000).setWindowStartMs(100.0).build();
        assertThat(codec.decode(codec.encode(r)).getWindowStartMs()).isEqualTo(100.0);
        assertThatThrownBy(() -> codec.decode(new byte[] {4, 'r', '1'})).isInstanceOf(AvroCodec.MalformedRecordException.class);
    }
}
