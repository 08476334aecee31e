package io.kairos.core.model;

import io.kairos.core.api.Internal;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.ShortBuffer;
import java.util.List;

/**
 * Which element types a request's tensor may have for a model's input, and the one copy that turns
 * them into the model's: a request in the model's own type is copied as it is, and a compact one
 * feeding a FLOAT32 input is widened to floats as it is copied: UINT8 (an image as its 0 to 255
 * pixel values, a quarter of the bytes on every hop from the client to the device) value for
 * value, with no scaling (200 becomes 200.0f; normalising is the model's, or the client's, as
 * before), and FLOAT16 (half the bytes) exactly, every half-precision value being a float.
 *
 * <p>The admission check ({@code RequestValidator}) and the device that stacks a batch's tensors
 * ask the same rule here, so that what is admitted is exactly what a device can convert.
 */
@Internal
public final class InputConversion {
    private InputConversion() {}

    /** The element types whose data can feed a model input of {@code modelDtype}, its own first. */
    public static List<String> accepted(String modelDtype) {
        return modelDtype.equals("FLOAT32") ? List.of("FLOAT32", "UINT8", "FLOAT16") : List.of(modelDtype);
    }

    /** Whether a tensor of {@code requestDtype} can feed a model input of {@code modelDtype}. */
    public static boolean converts(String requestDtype, String modelDtype) {
        return accepted(modelDtype).contains(requestDtype);
    }

    /** The bytes of a request's tensor of {@code requestDtype} for {@code input}. */
    public static long byteSize(InputSpec input, String requestDtype) {
        return input.elementCount() * InputSpec.bytesPerElement(requestDtype);
    }

    /** Floats widened per chunk: a plain array loop the JIT vectorises, then one bulk copy into the target. */
    private static final int CHUNK = 4096;

    private static void widen(ByteBuffer from, ByteBuffer to) {
        int n = from.remaining();
        float[] chunk = new float[Math.min(n, CHUNK)];
        byte[] array = from.hasArray() ? from.array() : null;
        int base = from.hasArray() ? from.arrayOffset() + from.position() : from.position();
        for (int done = 0; done < n; done += chunk.length) {
            int m = Math.min(chunk.length, n - done);
            if (array != null) {
                for (int i = 0; i < m; i++) chunk[i] = array[base + done + i] & 0xFF;
            } else {
                for (int i = 0; i < m; i++) chunk[i] = from.get(base + done + i) & 0xFF;
            }
            to.asFloatBuffer().put(chunk, 0, m); // the view starts at to's position, in to's byte order
            to.position(to.position() + m * Float.BYTES);
        }
    }

    private static void widenHalves(ByteBuffer from, ByteBuffer to) {
        ShortBuffer halves = from.duplicate().order(ByteOrder.LITTLE_ENDIAN).asShortBuffer();
        int n = halves.remaining();
        float[] chunk = new float[Math.min(n, CHUNK)];
        for (int done = 0; done < n; done += chunk.length) {
            int m = Math.min(chunk.length, n - done);
            for (int i = 0; i < m; i++) chunk[i] = Halves.FLOATS[halves.get(done + i) & 0xFFFF];
            to.asFloatBuffer().put(chunk, 0, m);
            to.position(to.position() + m * Float.BYTES);
        }
    }

    /** Every half's float, looked up rather than computed per element: 256 KB, made on the first FLOAT16 tensor. */
    private static final class Halves {
        static final float[] FLOATS = new float[1 << 16];

        static {
            for (int h = 0; h < FLOATS.length; h++) FLOATS[h] = halfToFloat((short) h);
        }
    }

    /** The float of an IEEE 754 half-precision value (binary16), exactly: normal, subnormal, zero, infinity and NaN. */
    static float halfToFloat(short half) {
        int bits = half & 0xFFFF;
        int sign = (bits & 0x8000) << 16;
        int exponent = (bits >>> 10) & 0x1F;
        int mantissa = bits & 0x3FF;
        if (exponent == 0x1F) return Float.intBitsToFloat(sign | 0x7F800000 | (mantissa << 13)); // infinity, NaN
        if (exponent == 0) { // zero and subnormals: mantissa x 2^-24
            float magnitude = mantissa * 0x1p-24f;
            return sign == 0 ? magnitude : -magnitude;
        }
        return Float.intBitsToFloat(sign | ((exponent - 15 + 127) << 23) | (mantissa << 13));
    }

    /**
     * Copies the tensor data {@code from} (elements of {@code requestDtype}, little-endian, its
     * position to its limit) to {@code to} at its position, as elements of {@code modelDtype} in
     * {@code to}'s byte order, and advances {@code to} past them; {@code from} is left as it was.
     *
     * @throws IllegalArgumentException when the one cannot feed the other
     */
    public static void copy(ByteBuffer from, String requestDtype, ByteBuffer to, String modelDtype) {
        if (requestDtype.equals(modelDtype)) {
            // The wire's little-endian bytes, as they are: every device's native order (x86, ARM) is little-endian.
            to.put(from.duplicate());
        } else if (requestDtype.equals("UINT8") && modelDtype.equals("FLOAT32")) {
            widen(from, to);
        } else if (requestDtype.equals("FLOAT16") && modelDtype.equals("FLOAT32")) {
            widenHalves(from, to);
        } else {
            throw new IllegalArgumentException("a " + requestDtype + " tensor cannot feed a " + modelDtype + " input; it takes " + accepted(modelDtype));
        }
    }
}
