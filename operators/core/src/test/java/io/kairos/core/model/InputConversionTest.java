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
        assertThat(InputConversion.accepted("FLOAT32")).containsExactly("FLOAT32", "UINT8");
        assertThat(InputConversion.accepted("INT64")).containsExactly("INT64");
        assertThat(InputConversion.converts("UINT8", "FLOAT32")).isTrue();
        assertThat(InputConversion.converts("INT8", "FLOAT32")).isFalse();
        assertThat(InputConversion.converts("UINT8", "INT64")).isFalse();
        assertThat(InputConversion.byteSize(new InputSpec("FLOAT32", new long[]{3, 224, 224}), "UINT8")).isEqualTo(150_528);
        assertThat(new InputSpec("FLOAT32", new long[]{3, 224, 224}).byteSize()).isEqualTo(602_112);
        assertThatThrownBy(() -> InputConversion.copy(ByteBuffer.allocate(4), "INT32", ByteBuffer.allocate(4), "FLOAT32"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("INT32").hasMessageContaining("[FLOAT32, UINT8]");
    }
}
