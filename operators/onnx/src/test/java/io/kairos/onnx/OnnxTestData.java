package io.kairos.onnx;

import io.kairos.onnx.examples.ExampleModels;
import io.kairos.schema.DType;
import io.kairos.schema.Tensor;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;

/** Seeded request tensors and the example models written under target/. */
final class OnnxTestData {
    private OnnxTestData() {}

    /** A fresh copy of the example repository in target/, so that tests may break their own copy. */
    static Path exampleRepository(String name) {
        return ExampleModels.writeRepository(Path.of("target", "onnx-test-models", name));
    }

    static float[] randomFloats(Random r, int n) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) v[i] = (float) r.nextGaussian();
        return v;
    }

    static Tensor tensor(float[] values, long... shape) {
        ByteBuffer b = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        b.asFloatBuffer().put(values);
        return Tensor.newBuilder().setDtype(DType.FLOAT32).setShape(java.util.Arrays.stream(shape).boxed().toList()).setData(b).build();
    }

    static float[] floats(Tensor t) {
        ByteBuffer b = t.getData().duplicate().order(ByteOrder.LITTLE_ENDIAN);
        float[] v = new float[b.remaining() / 4];
        b.asFloatBuffer().get(v);
        return v;
    }

    static List<Long> shape(long... dims) {
        return java.util.Arrays.stream(dims).boxed().toList();
    }
}
