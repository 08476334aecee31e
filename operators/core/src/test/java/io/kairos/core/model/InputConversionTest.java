package io.kairos.core.model;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class InputConversionTest {

    @Test
    void uint8IsWidenedToFloat32ValueForValueInTheTargetsOrder() {
        ByteBuffer pixels = ByteBuffer.wrap(new byte[]{0, 1, 127, (byte) 128, (byte) 200, (byte) 255});
        for (ByteOrder order : new ByteOrder[]{ByteOrder.LITTLE_ENDIAN, ByteOrder.BIG_ENDIAN}) {
            ByteBuffer to = ByteBuffer.allocateDirect(4 + 6 * 4).order(order);
            to.putFloat(-1f); // what an earlier request of the batch left: kept, and the copy goes after it
            InputConversion.copy(pixels, "UINT8", to, "FLOAT32");
            assertThat(to.position()).isEqualTo(28);
            to.flip();
            float[] got = new float[7];
            to.asFloatBuffer().get(got);
            assertThat(got).containsExactly(-1f, 0f, 1f, 127f, 128f, 200f, 255f);
        }
        assertThat(pixels.position()).isZero(); // the request's tensor is left as it was
    }

    @Test
    void float16IsWidenedExactlyIncludingSubnormalsInfinitiesAndNaN() {
        short[] halves = {0x3C00, (short) 0xC000, 0x3555, 0x7BFF, 0x0001, 0x0400, (short) 0x8000, 0x7C00, (short) 0xFC00, 0x7E00};
        // 1, -2, 1.330078125 x 2^-2, the largest half, the smallest subnormal 2^-24, the smallest normal 2^-14, -0, +inf, -inf, NaN
        float[] want = {1f, -2f, 0.33325195f, 65504f, 0x1p-24f, 0x1p-14f, -0f, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.NaN};
        ByteBuffer wire = ByteBuffer.allocate(halves.length * 2).order(ByteOrder.LITTLE_ENDIAN);
        for (short h : halves) wire.putShort(h);
        wire.flip();
        ByteBuffer to = ByteBuffer.allocate(halves.length * 4).order(ByteOrder.BIG_ENDIAN);
        InputConversion.copy(wire, "FLOAT16", to, "FLOAT32");
        to.flip();
        float[] got = new float[halves.length];
        to.asFloatBuffer().get(got);
        assertThat(got).containsExactly(want);
        assertThat(Float.floatToRawIntBits(got[6])).isEqualTo(0x80000000); // the sign of zero kept
        assertThat(wire.position()).isZero();
    }

    @Test
    void theModelsOwnTypeIsCopiedByteForByte() {
        ByteBuffer floats = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putFloat(1.5f).putFloat(-2f).flip();
        ByteBuffer to = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
        InputConversion.copy(floats, "FLOAT32", to, "FLOAT32");
        assertThat(to.flip().getFloat()).isEqualTo(1.5f);
        assertThat(to.getFloat()).isEqualTo(-2f);
        assertThat(floats.remaining()).isEqualTo(8);
    }

    @Test
    void onlyFloat32InputsTakeAnotherType() {
        assertThat(InputConversion.accepted("FLOAT32")).containsExactly("FLOAT32", "UINT8", "FLOAT16");
        assertThat(InputConversion.accepted("INT64")).containsExactly("INT64");
        assertThat(InputConversion.converts("UINT8", "FLOAT32")).isTrue();
        assertThat(InputConversion.converts("INT8", "FLOAT32")).isFalse();
        assertThat(InputConversion.converts("UINT8", "INT64")).isFalse();
        assertThat(InputConversion.byteSize(new InputSpec("FLOAT32", new long[]{3, 224, 224}), "UINT8")).isEqualTo(150_528);
        assertThat(InputConversion.byteSize(new InputSpec("FLOAT32", new long[]{3, 224, 224}), "FLOAT16")).isEqualTo(301_056);
        assertThat(new InputSpec("FLOAT32", new long[]{3, 224, 224}).byteSize()).isEqualTo(602_112);
        assertThatThrownBy(() -> InputConversion.copy(ByteBuffer.allocate(4), "INT32", ByteBuffer.allocate(4), "FLOAT32"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("INT32").hasMessageContaining("[FLOAT32, UINT8, FLOAT16]");
    }
}
