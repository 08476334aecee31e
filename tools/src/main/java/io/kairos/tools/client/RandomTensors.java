package io.kairos.tools.client;

import io.kairos.core.model.InputSpec;
import io.kairos.schema.DType;
import io.kairos.schema.Tensor;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Random input tensors of a model's shape and element type, with values a real model accepts:
 * floats in [0, 1) (no NaN or infinity that would poison a batch), integers in [0, 1000) (valid
 * token ids for a text model), booleans as 0 or 1.
 */
public final class RandomTensors {
    private RandomTensors() {}

    public static Tensor of(InputSpec spec, SplittableRandom random) {
        long size = spec.byteSize();
        if (size > Integer.MAX_VALUE) throw new IllegalArgumentException("input " + spec + " is too large for one tensor: " + size + " bytes");
        ByteBuffer data = ByteBuffer.allocate((int) size).order(ByteOrder.LITTLE_ENDIAN);
        DType dtype = DType.valueOf(spec.dtype());
        while (data.hasRemaining()) {
            switch (dtype) {
                case FLOAT32 -> data.putFloat(random.nextFloat());
                case FLOAT64 -> data.putDouble(random.nextDouble());
                case INT32 -> data.putInt(random.nextInt(1000));
                case INT64 -> data.putLong(random.nextInt(1000));
                case UINT8 -> data.put((byte) random.nextInt(256));
                case INT8 -> data.put((byte) (random.nextInt(256) - 128));
                case BOOL -> data.put((byte) random.nextInt(2));
                case FLOAT16 -> data.putShort((short) (0x3800 | random.nextInt(0x400))); // in [0.5, 1)
            }
        }
        data.flip();
        List<Long> shape = new ArrayList<>(spec.shape().length);
        for (long d : spec.shape()) shape.add(d);
        return Tensor.newBuilder().setDtype(dtype).setShape(shape).setData(data).build();
    }
}
