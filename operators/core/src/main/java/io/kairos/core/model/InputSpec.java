package io.kairos.core.model;

import io.kairos.core.api.PublicEvolving;
import java.util.Arrays;

/** The one input tensor a model takes: element type and shape without the batch dimension. */
@PublicEvolving
public record InputSpec(String dtype, long[] shape) {

    public InputSpec {
        shape = shape.clone();
    }

    /** Bytes of one request's tensor. */
    public long byteSize() {
        return elementCount() * bytesPerElement(dtype);
    }

    /** Elements of one request's tensor. */
    public long elementCount() {
        long elements = 1;
        for (long d : shape) elements *= d;
        return elements;
    }

    public static int bytesPerElement(String dtype) {
        return switch (dtype) {
            case "FLOAT32", "INT32" -> 4;
            case "FLOAT64", "INT64" -> 8;
            case "FLOAT16" -> 2;
            case "UINT8", "INT8", "BOOL" -> 1;
            default -> throw new IllegalArgumentException("unknown dtype " + dtype);
        };
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof InputSpec other && dtype.equals(other.dtype) && Arrays.equals(shape, other.shape);
    }

    @Override
    public int hashCode() {
        return 31 * dtype.hashCode() + Arrays.hashCode(shape);
    }

    @Override
    public String toString() {
        return dtype + Arrays.toString(shape);
    }
}
