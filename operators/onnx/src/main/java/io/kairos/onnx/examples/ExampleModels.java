package io.kairos.onnx.examples;

import io.kairos.onnx.ModelRepository;

import ai.onnx.proto.OnnxMl;
import com.google.protobuf.ByteString;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Real ONNX models of realistic shape, generated in Java from fixed seeds so that tests, the
 * demo and the profiler never download anything and no binary is committed:
 *
 * <ul>
 *   <li>{@code mlp}: FLOAT32[N,64] → Gemm 64×128 → Relu → Gemm 128×10 → FLOAT32[N,10]</li>
 *   <li>{@code cnn}: FLOAT32[N,3,32,32] → (Conv 3×3 pad 1 → Relu → MaxPool 2×2) with 8 then 16
 *       channels → Flatten → Gemm 1024×10 → FLOAT32[N,10], a CIFAR-sized image classifier that
 *       costs little (0.5 M multiply-adds per image), for tests and the demo</li>
 *   <li>{@code resnet}: the same input and output through a residual network of CIFAR ResNet's
 *       shape (a 3×3 stem, then three stages of 32, 64 and 128 channels, each one residual block
 *       of two 3×3 convolutions, stages two and three entered by a stride-2 convolution; global
 *       average pooling, Gemm 128×10): 67 M multiply-adds per image, between ResNet-20 and -32, so
 *       that inference, not the serving path, dominates a request's cost as it does in production</li>
 * </ul>
 *
 * And three for the example pipelines (docs/pipelines.md; {@link #writePipelineRepository}), whose
 * outputs feed each other:
 *
 * <ul>
 *   <li>{@code preprocess}: FLOAT32[N,3,32,32] pixel values 0 to 255 → per channel
 *       {@code x * scale + shift} (CIFAR-10's mean and deviation) → FLOAT32[N,3,32,32], what
 *       {@code cnn} and {@code classifier} take</li>
 *   <li>{@code classifier}: {@code cnn}'s shape on weights of its own, then Softmax → FLOAT32[N,10]
 *       probabilities: a fast model whose confidence a cascade reads</li>
 *   <li>{@code rerank}: FLOAT32[N,10] probabilities → Gemm 10×10 → Softmax → FLOAT32[N,10]: a second
 *       opinion on the classifier's, the slow stage of a cascade and the last of a chain</li>
 * </ul>
 *
 * All have a dynamic batch dimension. Each model also exists here as plain-Java maths on the same
 * weights ({@link Mlp#forward}, {@link Cnn#forward}, {@link ResNet#forward}), so that ONNX Runtime's outputs can be checked
 * against a reference that does not go through ONNX Runtime.
 */
public final class ExampleModels {
    public static final String MLP = "mlp";
    public static final String CNN = "cnn";
    public static final String RESNET = "resnet";
    public static final String PREPROCESS = "preprocess";
    public static final String CLASSIFIER = "classifier";
    public static final String RERANK = "rerank";
    public static final long SEED = 20_260_101L;
    // opset 13 (Gemm, Conv, MaxPool, Flatten, Relu all stable there) under IR version 8, both of
    // which every ONNX Runtime since 1.10 reads.
    private static final int OPSET = 13;
    private static final long IR_VERSION = 8;

    private ExampleModels() {}

    /** Writes the models as a model repository into the folder {@code args[0]} (the distribution's {@code models/}, at build time). */
    public static void main(String[] args) {
        if (args.length != 1) throw new IllegalArgumentException("usage: ExampleModels DIR");
        writeRepository(Path.of(args[0]));
    }

    /**
     * Writes the models as a model repository: {@code dir/mlp/{model.onnx,model.json}},
     * {@code dir/cnn/...} and {@code dir/resnet/...}. Existing files are replaced (the bytes are the
     * same for the same seed).
     */
    public static Path writeRepository(Path dir) {
        try {
            write(dir.resolve(MLP), Mlp.seeded(SEED).toOnnx(), Mlp.manifest());
            write(dir.resolve(CNN), Cnn.seeded(SEED + 1).toOnnx(), Cnn.manifest());
            write(dir.resolve(RESNET), ResNet.seeded(SEED + 2).toOnnx(), ResNet.manifest());
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the example models to " + dir, e);
        }
    }

    /**
     * Writes the example pipelines' models as a model repository: {@code cnn}, {@code preprocess},
     * {@code classifier} and {@code rerank} (the pipelines' specs: docs/pipelines.md). Apart from
     * {@link #writeRepository}, whose three models a device warms up in every job that serves it.
     */
    public static Path writePipelineRepository(Path dir) {
        try {
            write(dir.resolve(CNN), Cnn.seeded(SEED + 1).toOnnx(), Cnn.manifest());
            write(dir.resolve(PREPROCESS), Preprocess.CIFAR.toOnnx(), Preprocess.manifest());
            write(dir.resolve(CLASSIFIER), Classifier.seeded(SEED + 3).toOnnx(), Classifier.manifest());
            write(dir.resolve(RERANK), Rerank.seeded(SEED + 4).toOnnx(), Rerank.manifest());
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the example models to " + dir, e);
        }
    }

    private static void write(Path folder, byte[] model, String manifest) throws IOException {
        Files.createDirectories(folder);
        replace(folder.resolve(ModelRepository.MODEL_FILE), model);
        replace(folder.resolve(ModelRepository.MANIFEST_FILE), manifest.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    /**
     * Writes {@code file} whole or not at all: a new file moved over the old one, so that a process
     * loading the repository while another writes it (two sandboxes starting at once) never reads
     * half a model.
     */
    private static void replace(Path file, byte[] bytes) throws IOException {
        Path fresh = Files.createTempFile(file.getParent(), file.getFileName() + ".", ".tmp");
        try {
            Files.write(fresh, bytes);
            Files.move(fresh, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(fresh);
        }
    }

    /** The two-layer perceptron: its weights, its ONNX graph and its maths in plain Java. */
    public record Mlp(float[] w1, float[] b1, float[] w2, float[] b2) {
        public static final int IN = 64, HIDDEN = 128, OUT = 10;

        public static Mlp seeded(long seed) {
            Random r = new Random(seed);
            return new Mlp(he(r, IN * HIDDEN, IN), small(r, HIDDEN), he(r, HIDDEN * OUT, HIDDEN), small(r, OUT));
        }

        /** One request's logits: relu(x·W1 + b1)·W2 + b2, with W row-major [in][out] as Gemm's B. */
        public float[] forward(float[] x) {
            float[] h = dense(x, w1, b1, IN, HIDDEN);
            for (int j = 0; j < HIDDEN; j++) h[j] = Math.max(0f, h[j]);
            return dense(h, w2, b2, HIDDEN, OUT);
        }

        public byte[] toOnnx() {
            OnnxMl.GraphProto.Builder g = OnnxMl.GraphProto.newBuilder().setName("kairos-mlp")
                    .addInput(valueInfo("input", IN))
                    .addOutput(valueInfo("logits", OUT))
                    .addInitializer(floats("w1", w1, IN, HIDDEN)).addInitializer(floats("b1", b1, HIDDEN))
                    .addInitializer(floats("w2", w2, HIDDEN, OUT)).addInitializer(floats("b2", b2, OUT))
                    .addNode(node("Gemm", "fc1", new String[]{"input", "w1", "b1"}, "h1"))
                    .addNode(node("Relu", "relu1", new String[]{"h1"}, "a1"))
                    .addNode(node("Gemm", "fc2", new String[]{"a1", "w2", "b2"}, "logits"));
            return model(g);
        }

        // latency_ms: bin/kairos profile on the 2-core development VM (p50 0.013 ms at 16), rounded
        // well up. The scheduler paces a device by its profile, so a much more pessimistic one
        // throttles the device (docs/benchmarks/history.md).
        static String manifest() {
            return ExampleModels.manifest("mlp", "[64]", 1 << 20, 0.002, 0.05, 1);
        }
    }

    /**
     * A weight-heavy perceptron, where batching pays on a CPU: FLOAT32[N,256] → Gemm 256×H → Relu →
     * Gemm H×H → Relu → Gemm H×10 → FLOAT32[N,10] (H = 4096 by default: 17.8 M weights, 71 MB). One
     * row reads every weight from memory for its multiply-adds; a batch reads them once for all its
     * rows. Not in {@link #writeRepository}: the SQL benchmark writes it with its own measured profile.
     */
    public record Wide(int hidden, float[] w1, float[] b1, float[] w2, float[] b2, float[] w3, float[] b3) {
        public static final int IN = 256, OUT = 10;

        public static Wide seeded(long seed, int hidden) {
            Random r = new Random(seed);
            return new Wide(hidden, he(r, IN * hidden, IN), small(r, hidden), he(r, hidden * hidden, hidden), small(r, hidden),
                    he(r, hidden * OUT, hidden), small(r, OUT));
        }

        /** One request's logits, in plain Java. */
        public float[] forward(float[] x) {
            float[] h = relu(dense(x, w1, b1, IN, hidden));
            h = relu(dense(h, w2, b2, hidden, hidden));
            return dense(h, w3, b3, hidden, OUT);
        }

        public byte[] toOnnx() {
            OnnxMl.GraphProto.Builder g = OnnxMl.GraphProto.newBuilder().setName("kairos-wide")
                    .addInput(valueInfo("input", IN))
                    .addOutput(valueInfo("logits", OUT))
                    .addInitializer(floats("w1", w1, IN, hidden)).addInitializer(floats("b1", b1, hidden))
                    .addInitializer(floats("w2", w2, hidden, hidden)).addInitializer(floats("b2", b2, hidden))
                    .addInitializer(floats("w3", w3, hidden, OUT)).addInitializer(floats("b3", b3, OUT))
                    .addNode(node("Gemm", "fc1", new String[]{"input", "w1", "b1"}, "h1"))
                    .addNode(node("Relu", "relu1", new String[]{"h1"}, "a1"))
                    .addNode(node("Gemm", "fc2", new String[]{"a1", "w2", "b2"}, "h2"))
                    .addNode(node("Relu", "relu2", new String[]{"h2"}, "a2"))
                    .addNode(node("Gemm", "fc3", new String[]{"a2", "w3", "b3"}, "logits"));
            return model(g);
        }

        /** Its manifest with a latency profile of {@code alphaMs} a row and {@code betaMs} a batch. */
        public String manifest(String name, double alphaMs, double betaMs) {
            long weights = (long) IN * hidden + (long) hidden * hidden + (long) hidden * OUT;
            return ExampleModels.manifest(name, "[" + IN + "]", 4 * weights + (16L << 20), alphaMs, betaMs, 100);
        }
    }

    /** The small image classifier: its weights, its ONNX graph and its maths in plain Java. */
    public record Cnn(float[] k1, float[] c1, float[] k2, float[] c2, float[] w, float[] b) {
        public static final int CHANNELS = 3, SIDE = 32, F1 = 8, F2 = 16, CLASSES = 10;
        public static final int FLAT = F2 * (SIDE / 4) * (SIDE / 4);

        public static Cnn seeded(long seed) {
            Random r = new Random(seed);
            return new Cnn(he(r, F1 * CHANNELS * 9, CHANNELS * 9), small(r, F1),
                    he(r, F2 * F1 * 9, F1 * 9), small(r, F2), he(r, FLAT * CLASSES, FLAT), small(r, CLASSES));
        }

        /** One image [3][32][32] (CHW, row-major) to its logits. */
        public float[] forward(float[] image) {
            float[] a = maxPool(relu(conv3x3(image, CHANNELS, SIDE, k1, c1, F1, 1)), F1, SIDE);
            float[] z = maxPool(relu(conv3x3(a, F1, SIDE / 2, k2, c2, F2, 1)), F2, SIDE / 2);
            return dense(z, w, b, FLAT, CLASSES); // Flatten of [16][8][8] is this CHW order
        }

        public byte[] toOnnx() {
            return model(graph("kairos-cnn"));
        }

        /** The graph, its output the logits. */
        OnnxMl.GraphProto.Builder graph(String name) {
            OnnxMl.NodeProto.Builder conv1 = node("Conv", "conv1", new String[]{"input", "k1", "c1"}, "z1");
            OnnxMl.NodeProto.Builder conv2 = node("Conv", "conv2", new String[]{"p1", "k2", "c2"}, "z2");
            for (OnnxMl.NodeProto.Builder conv : new OnnxMl.NodeProto.Builder[]{conv1, conv2}) {
                conv.addAttribute(ints("kernel_shape", 3, 3)).addAttribute(ints("pads", 1, 1, 1, 1));
            }
            OnnxMl.GraphProto.Builder g = OnnxMl.GraphProto.newBuilder().setName(name)
                    .addInput(valueInfo("input", CHANNELS, SIDE, SIDE))
                    .addOutput(valueInfo("logits", CLASSES))
                    .addInitializer(floats("k1", k1, F1, CHANNELS, 3, 3)).addInitializer(floats("c1", c1, F1))
                    .addInitializer(floats("k2", k2, F2, F1, 3, 3)).addInitializer(floats("c2", c2, F2))
                    .addInitializer(floats("w", w, FLAT, CLASSES)).addInitializer(floats("b", b, CLASSES))
                    .addNode(conv1)
                    .addNode(node("Relu", "relu1", new String[]{"z1"}, "a1"))
                    .addNode(node("MaxPool", "pool1", new String[]{"a1"}, "p1").addAttribute(ints("kernel_shape", 2, 2)).addAttribute(ints("strides", 2, 2)))
                    .addNode(conv2)
                    .addNode(node("Relu", "relu2", new String[]{"z2"}, "a2"))
                    .addNode(node("MaxPool", "pool2", new String[]{"a2"}, "p2").addAttribute(ints("kernel_shape", 2, 2)).addAttribute(ints("strides", 2, 2)))
                    .addNode(node("Flatten", "flatten", new String[]{"p2"}, "flat"))
                    .addNode(node("Gemm", "fc", new String[]{"flat", "w", "b"}, "logits"));
            return g;
        }

        // latency_ms: as for the MLP (p50 0.26 ms at 16 on the development VM), rounded up.
        static String manifest() {
            return ExampleModels.manifest("cnn", "[3, 32, 32]", 8 << 20, 0.03, 0.1, 2);
        }

        private static float[] maxPool(float[] in, int channels, int side) {
            int half = side / 2;
            float[] out = new float[channels * half * half];
            for (int c = 0; c < channels; c++) {
                for (int y = 0; y < half; y++) {
                    for (int x = 0; x < half; x++) {
                        float m = Float.NEGATIVE_INFINITY;
                        for (int dy = 0; dy < 2; dy++) {
                            for (int dx = 0; dx < 2; dx++) m = Math.max(m, in[(c * side + 2 * y + dy) * side + 2 * x + dx]);
                        }
                        out[(c * half + y) * half + x] = m;
                    }
                }
            }
            return out;
        }
    }

    /**
     * The pipelines' first stage: each pixel value (0 to 255) scaled and shifted per channel,
     * {@code x * scale[c] + shift[c]} with {@code scale = 1 / std} and {@code shift = -mean / std}
     * of CIFAR-10's pixels, so that an image comes out centred for the classifiers. The same
     * float operations in the same order as ONNX Runtime's Mul then Add.
     */
    public record Preprocess(float[] scale, float[] shift) {
        public static final int CHANNELS = 3, SIDE = 32;
        public static final Preprocess CIFAR = of(new double[]{125.3, 123.0, 113.9}, new double[]{63.0, 62.1, 66.7});

        static Preprocess of(double[] mean, double[] std) {
            float[] scale = new float[CHANNELS], shift = new float[CHANNELS];
            for (int c = 0; c < CHANNELS; c++) {
                scale[c] = (float) (1 / std[c]);
                shift[c] = (float) (-mean[c] / std[c]);
            }
            return new Preprocess(scale, shift);
        }

        /** One image [3][32][32] (CHW) of pixel values to the normalised image. */
        public float[] forward(float[] image) {
            float[] out = new float[image.length];
            int area = SIDE * SIDE;
            for (int i = 0; i < image.length; i++) {
                int c = i / area;
                float scaled = image[i] * scale[c];
                out[i] = scaled + shift[c];
            }
            return out;
        }

        public byte[] toOnnx() {
            OnnxMl.GraphProto.Builder g = OnnxMl.GraphProto.newBuilder().setName("kairos-preprocess")
                    .addInput(valueInfo("input", CHANNELS, SIDE, SIDE))
                    .addOutput(valueInfo("image", CHANNELS, SIDE, SIDE))
                    .addInitializer(floats("scale", scale, CHANNELS, 1, 1)).addInitializer(floats("shift", shift, CHANNELS, 1, 1))
                    .addNode(node("Mul", "scale", new String[]{"input", "scale"}, "scaled"))
                    .addNode(node("Add", "shift", new String[]{"scaled", "shift"}, "image"));
            return model(g);
        }

        static String manifest() {
            return ExampleModels.manifest("preprocess", "[3, 32, 32]", "[3, 32, 32]", "image", 1 << 20, 0.005, 0.05, 1);
        }
    }

    /** The cascade's fast model: {@link Cnn}'s network on weights of its own, its logits turned into probabilities. */
    public record Classifier(Cnn cnn) {
        public static Classifier seeded(long seed) {
            return new Classifier(Cnn.seeded(seed));
        }

        /** One image [3][32][32] to its ten class probabilities. */
        public float[] forward(float[] image) {
            return softmax(cnn.forward(image));
        }

        public byte[] toOnnx() {
            OnnxMl.GraphProto.Builder g = cnn.graph("kairos-classifier").clearOutput().addOutput(valueInfo("probabilities", Cnn.CLASSES));
            g.addNode(node("Softmax", "softmax", new String[]{"logits"}, "probabilities").addAttribute(intAttribute("axis", -1)));
            return model(g);
        }

        static String manifest() {
            return ExampleModels.manifest("classifier", "[3, 32, 32]", "[10]", "probabilities", 8 << 20, 0.03, 0.1, 2);
        }
    }

    /** The cascade's slow stage: a second opinion on ten class probabilities, softmax(p·W + b). */
    public record Rerank(float[] w, float[] b) {
        public static final int CLASSES = 10;

        public static Rerank seeded(long seed) {
            Random r = new Random(seed);
            // Gaussians of 3: a probability vector's differences become logits of a few units, so the
            // second opinion is sure of some inputs and unsure of others.
            float[] w = new float[CLASSES * CLASSES];
            for (int i = 0; i < w.length; i++) w[i] = (float) (r.nextGaussian() * 3);
            return new Rerank(w, small(r, CLASSES));
        }

        public float[] forward(float[] probabilities) {
            return softmax(dense(probabilities, w, b, CLASSES, CLASSES));
        }

        public byte[] toOnnx() {
            OnnxMl.GraphProto.Builder g = OnnxMl.GraphProto.newBuilder().setName("kairos-rerank")
                    .addInput(valueInfo("input", CLASSES))
                    .addOutput(valueInfo("probabilities", CLASSES))
                    .addInitializer(floats("w", w, CLASSES, CLASSES)).addInitializer(floats("b", b, CLASSES))
                    .addNode(node("Gemm", "fc", new String[]{"input", "w", "b"}, "logits"))
                    .addNode(node("Softmax", "softmax", new String[]{"logits"}, "probabilities").addAttribute(intAttribute("axis", -1)));
            return model(g);
        }

        static String manifest() {
            return ExampleModels.manifest("rerank", "[10]", "[10]", "probabilities", 1 << 20, 0.002, 0.05, 1);
        }
    }

    /** Softmax in doubles, rounded to floats: within 1e-6 of ONNX Runtime's float kernel. */
    public static float[] softmax(float[] logits) {
        double max = Double.NEGATIVE_INFINITY;
        for (float v : logits) max = Math.max(max, v);
        double sum = 0;
        double[] e = new double[logits.length];
        for (int i = 0; i < logits.length; i++) sum += e[i] = Math.exp(logits[i] - max);
        float[] p = new float[logits.length];
        for (int i = 0; i < p.length; i++) p[i] = (float) (e[i] / sum);
        return p;
    }

    /**
     * The residual image classifier: its weights, its ONNX graph and its maths in plain Java. Each
     * convolution is 3×3 with padding 1; a block is relu(x + conv(relu(conv(x)))).
     */
    public record ResNet(Conv stem, Conv[] layers, float[] w, float[] b) {
        public static final int CHANNELS = 3, SIDE = 32, CLASSES = 10;
        /** Channels of the three stages; stages two and three start with a stride-2 convolution. */
        static final int[] WIDTHS = {32, 64, 128};

        /** One 3×3 convolution (padding 1) with its bias. */
        public record Conv(String name, float[] kernel, float[] bias, int in, int out, int stride) {
            static Conv seeded(Random r, String name, int in, int out, int stride) {
                return new Conv(name, he(r, out * in * 9, in * 9), small(r, out), in, out, stride);
            }

            float[] forward(float[] x, int side) {
                return conv3x3(x, in, side, kernel, bias, out, stride);
            }

            void addTo(OnnxMl.GraphProto.Builder g, String input, String output) {
                g.addInitializer(floats(name + ".k", kernel, out, in, 3, 3)).addInitializer(floats(name + ".b", bias, out))
                        .addNode(node("Conv", name, new String[]{input, name + ".k", name + ".b"}, output)
                                .addAttribute(ints("kernel_shape", 3, 3)).addAttribute(ints("pads", 1, 1, 1, 1))
                                .addAttribute(ints("strides", stride, stride)));
            }
        }

        /**
         * The convolutions in graph order after the stem: per stage, a stride-2 entry (stages two
         * and three), then the block's two.
         */
        public static ResNet seeded(long seed) {
            Random r = new Random(seed);
            List<Conv> layers = new ArrayList<>();
            Conv stem = Conv.seeded(r, "stem", CHANNELS, WIDTHS[0], 1);
            for (int s = 0; s < WIDTHS.length; s++) {
                if (s > 0) layers.add(Conv.seeded(r, "stage" + s + ".down", WIDTHS[s - 1], WIDTHS[s], 2));
                layers.add(Conv.seeded(r, "stage" + s + ".conv1", WIDTHS[s], WIDTHS[s], 1));
                layers.add(Conv.seeded(r, "stage" + s + ".conv2", WIDTHS[s], WIDTHS[s], 1));
            }
            int last = WIDTHS[WIDTHS.length - 1];
            return new ResNet(stem, layers.toArray(Conv[]::new), he(r, last * CLASSES, last), small(r, CLASSES));
        }

        /** One image [3][32][32] (CHW, row-major) to its logits. */
        public float[] forward(float[] image) {
            int side = SIDE;
            float[] x = relu(stem.forward(image, side));
            for (int i = 0; i < layers.length; ) {
                if (layers[i].stride() == 2) {
                    x = relu(layers[i++].forward(x, side));
                    side /= 2;
                }
                float[] h = relu(layers[i++].forward(x, side));
                float[] z = layers[i++].forward(h, side);
                for (int j = 0; j < z.length; j++) z[j] += x[j];
                x = relu(z);
            }
            int channels = WIDTHS[WIDTHS.length - 1], area = side * side;
            float[] pooled = new float[channels];
            for (int c = 0; c < channels; c++) {
                double sum = 0;
                for (int p = 0; p < area; p++) sum += x[c * area + p];
                pooled[c] = (float) (sum / area);
            }
            return dense(pooled, w, b, channels, CLASSES);
        }

        public byte[] toOnnx() {
            OnnxMl.GraphProto.Builder g = OnnxMl.GraphProto.newBuilder().setName("kairos-resnet")
                    .addInput(valueInfo("input", CHANNELS, SIDE, SIDE))
                    .addOutput(valueInfo("logits", CLASSES));
            stem.addTo(g, "input", "stem.z");
            g.addNode(node("Relu", "stem.relu", new String[]{"stem.z"}, "stem.a"));
            String x = "stem.a";
            for (int i = 0; i < layers.length; ) {
                if (layers[i].stride() == 2) {
                    String name = layers[i].name();
                    layers[i++].addTo(g, x, name + ".z");
                    g.addNode(node("Relu", name + ".relu", new String[]{name + ".z"}, name + ".a"));
                    x = name + ".a";
                }
                Conv c1 = layers[i++], c2 = layers[i++];
                c1.addTo(g, x, c1.name() + ".z");
                g.addNode(node("Relu", c1.name() + ".relu", new String[]{c1.name() + ".z"}, c1.name() + ".a"));
                c2.addTo(g, c1.name() + ".a", c2.name() + ".z");
                g.addNode(node("Add", c2.name() + ".add", new String[]{c2.name() + ".z", x}, c2.name() + ".sum"));
                g.addNode(node("Relu", c2.name() + ".relu", new String[]{c2.name() + ".sum"}, c2.name() + ".a"));
                x = c2.name() + ".a";
            }
            int last = WIDTHS[WIDTHS.length - 1];
            g.addInitializer(floats("w", w, last, CLASSES)).addInitializer(floats("b", b, CLASSES))
                    .addNode(node("GlobalAveragePool", "pool", new String[]{x}, "pooled"))
                    .addNode(node("Flatten", "flatten", new String[]{"pooled"}, "flat"))
                    .addNode(node("Gemm", "fc", new String[]{"flat", "w", "b"}, "logits"));
            return model(g);
        }

        // latency_ms: bin/kairos profile on the 2-core development VM, one intra-op thread
        // (1.53·b + 0.16 ms, 24 ms at 16), rounded up.
        static String manifest() {
            return ExampleModels.manifest("resnet", "[3, 32, 32]", 32 << 20, 1.6, 0.2, 10);
        }
    }

    /** The manifest of an example classifier: ten logits out, batches of 1 to 32, a linear latency profile. */
    private static String manifest(String name, String inputShape, long memoryBytes, double alphaMs, double betaMs, int loadMs) {
        return manifest(name, inputShape, "[10]", "logits", memoryBytes, alphaMs, betaMs, loadMs);
    }

    /** The manifest of an example model: batches of 1 to 32, a linear latency profile. */
    private static String manifest(String name, String inputShape, String outputShape, String output, long memoryBytes,
                                   double alphaMs, double betaMs, int loadMs) {
        return """
                {
                  "name": "%s",
                  "version": 1,
                  "input":  {"name": "input",  "dtype": "FLOAT32", "shape": %s},
                  "output": {"name": "%s", "dtype": "FLOAT32", "shape": %s},
                  "batch_sizes": [1, 2, 4, 8, 16, 32],
                  "memory_bytes": %d,
                  "latency_ms": {"alpha": %s, "beta": %s},
                  "load_ms": %d
                }
                """.formatted(name, inputShape, output, outputShape, memoryBytes, alphaMs, betaMs, loadMs);
    }

    /** A 3×3 convolution with zero padding 1: [inC][side][side] to [outC][side/stride][side/stride]. */
    private static float[] conv3x3(float[] in, int inC, int side, float[] k, float[] bias, int outC, int stride) {
        int outSide = (side - 1) / stride + 1;
        float[] out = new float[outC * outSide * outSide];
        for (int o = 0; o < outC; o++) {
            for (int y = 0; y < outSide; y++) {
                for (int x = 0; x < outSide; x++) {
                    float s = bias[o];
                    for (int c = 0; c < inC; c++) {
                        for (int dy = -1; dy <= 1; dy++) {
                            for (int dx = -1; dx <= 1; dx++) {
                                int yy = y * stride + dy, xx = x * stride + dx;
                                if (yy < 0 || yy >= side || xx < 0 || xx >= side) continue; // zero padding
                                s += in[(c * side + yy) * side + xx] * k[((o * inC + c) * 3 + dy + 1) * 3 + dx + 1];
                            }
                        }
                    }
                    out[(o * outSide + y) * outSide + x] = s;
                }
            }
        }
        return out;
    }

    private static float[] relu(float[] v) {
        for (int i = 0; i < v.length; i++) v[i] = Math.max(0f, v[i]);
        return v;
    }

    private static float[] dense(float[] x, float[] w, float[] b, int in, int out) {
        float[] y = b.clone();
        for (int i = 0; i < in; i++) {
            float xi = x[i];
            for (int j = 0; j < out; j++) y[j] += xi * w[i * out + j];
        }
        return y;
    }

    // He initialisation keeps activations of order 1 through the ReLU layers, so outputs are
    // neither all zero nor huge and a numeric comparison means something.
    private static float[] he(Random r, int n, int fanIn) {
        float[] v = new float[n];
        double scale = Math.sqrt(2.0 / fanIn);
        for (int i = 0; i < n; i++) v[i] = (float) (r.nextGaussian() * scale);
        return v;
    }

    private static float[] small(Random r, int n) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) v[i] = (float) (r.nextGaussian() * 0.1);
        return v;
    }

    private static byte[] model(OnnxMl.GraphProto.Builder graph) {
        return OnnxMl.ModelProto.newBuilder()
                .setIrVersion(IR_VERSION)
                .setProducerName("kairos")
                .setModelVersion(1)
                .addOpsetImport(OnnxMl.OperatorSetIdProto.newBuilder().setDomain("").setVersion(OPSET))
                .setGraph(graph)
                .build().toByteArray();
    }

    /** A FLOAT tensor whose first dimension is the symbolic batch dimension "N". */
    private static OnnxMl.ValueInfoProto valueInfo(String name, long... dims) {
        OnnxMl.TensorShapeProto.Builder shape = OnnxMl.TensorShapeProto.newBuilder()
                .addDim(OnnxMl.TensorShapeProto.Dimension.newBuilder().setDimParam("N"));
        for (long d : dims) shape.addDim(OnnxMl.TensorShapeProto.Dimension.newBuilder().setDimValue(d));
        return OnnxMl.ValueInfoProto.newBuilder().setName(name)
                .setType(OnnxMl.TypeProto.newBuilder().setTensorType(OnnxMl.TypeProto.Tensor.newBuilder()
                        .setElemType(OnnxMl.TensorProto.DataType.FLOAT.getNumber()).setShape(shape)))
                .build();
    }

    private static OnnxMl.TensorProto floats(String name, float[] values, long... dims) {
        ByteBuffer raw = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN); // ONNX raw_data is little-endian
        raw.asFloatBuffer().put(values);
        OnnxMl.TensorProto.Builder t = OnnxMl.TensorProto.newBuilder().setName(name)
                .setDataType(OnnxMl.TensorProto.DataType.FLOAT.getNumber())
                .setRawData(ByteString.copyFrom(raw.array()));
        for (long d : dims) t.addDims(d);
        return t.build();
    }

    private static OnnxMl.NodeProto.Builder node(String op, String name, String[] inputs, String output) {
        OnnxMl.NodeProto.Builder n = OnnxMl.NodeProto.newBuilder().setOpType(op).setName(name).addOutput(output);
        for (String in : inputs) n.addInput(in);
        return n;
    }

    private static OnnxMl.AttributeProto intAttribute(String name, long value) {
        return OnnxMl.AttributeProto.newBuilder().setName(name).setType(OnnxMl.AttributeProto.AttributeType.INT).setI(value).build();
    }

    private static OnnxMl.AttributeProto ints(String name, long... values) {
        OnnxMl.AttributeProto.Builder a = OnnxMl.AttributeProto.newBuilder().setName(name)
                .setType(OnnxMl.AttributeProto.AttributeType.INTS);
        for (long v : values) a.addInts(v);
        return a.build();
    }
}
