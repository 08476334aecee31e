package io.kairos.core.model;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * Which element types a request's tensor may have for a model's input, and the one copy that turns
 * them into the model's: a request in the model's own type is copied as it is, and a UINT8 one
 * feeding a FLOAT32 input (an image as its 0 to 255 pixel values, a quarter of the bytes on every
 * hop from the client to the device) is widened to floats as it is copied, value for value (no
 * scaling: 200 becomes 200.0f; normalising is the model's, or the client's, as before).
 *
 * <p>The admission check ({@code RequestValidator}) and the device that stacks a batch's tensors
 * ask the same rule here, so that what is admitted is exactly what a device can convert.
 */
public final class InputConversion {
    private InputConversion() {}

    /** The element types whose data can feed a model input of {@code modelDtype}, its own first. */
    public static List<String> accepted(String modelDtype) {
        return modelDtype.equals("FLOAT32") ? List.of("FLOAT32", "UINT8") : List.of(modelDtype);
    }

    /** Whether a tensor of {@code requestDtype} can feed a model input of {@code modelDtype}. */
    public static boolean converts(String requestDtype, String modelDtype) {
        return accepted(modelDtype).contains(requestDtype);
    }

    /** The bytes of a request's tensor of {@code requestDtype} for {@code input}. */
    public static long byteSize(InputSpec input, String requestDtype) {
        return input.elementCount() * InputSpec.bytesPerElement(requestDtype);
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
            int n = from.remaining();
            int start = from.position();
            for (int i = 0; i < n; i++) to.putFloat(from.get(start + i) & 0xFF);
        } else {
            throw new IllegalArgumentException("a " + requestDtype + " tensor cannot feed a " + modelDtype + " input; it takes " + accepted(modelDtype));
        }
    }
}
