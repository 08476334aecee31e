package io.kairos.core.scheduling.learned;

import io.kairos.core.api.Internal;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A trained policy network, evaluated in plain Java: an input scaling, then fully connected
 * layers, each with its activation. Read from the small file the trainer writes, so that serving
 * needs neither Python nor an inference runtime.
 *
 * <p>The file (little-endian): the ASCII magic {@code KRLN}; int32 version 1 or 2; int32 inputs
 * ({@value StateEncoder#STATE_SIZE}); float32 scale[inputs] and float32 offset[inputs]; in version
 * 2 only, float32 cap[inputs]; the input the first layer sees is {@code min(state, cap) * scale +
 * offset} (version 1: no cap). The cap keeps a padding slot's laxity of
 * {@value StateEncoder#PAD_LAXITY_MS} ms from dwarfing the few ms that tell urgent requests apart:
 * scaled to the real laxities' range, it would saturate the first layer. Then int32 layer count; per layer int32
 * outputs, int32 activation (0 none, 1 tanh, 2 relu), float32 weights[outputs][inputs] (row by
 * output), float32 bias[outputs]. The last layer has {@value StateEncoder#MASK_SIZE} outputs: a
 * logit for each flag of {@link StateEncoder}'s mask, in its layout. Nothing may follow.
 */
@Internal
public final class PolicyNetwork {
    static final int MAGIC = 0x4E4C524B; // "KRLN" read little-endian
    /** The newest version written; version 1, without the cap, is read too. */
    static final int VERSION = 2;
    static final int NONE = 0;
    static final int TANH = 1;
    static final int RELU = 2;

    private final float[] scale;
    private final float[] offset;
    private final float[] cap;
    private final float[][] weights;
    private final float[][] bias;
    private final int[] activation;
    private final int[] widths;
    // Scratch: two buffers of the widest layer, swapped layer to layer.
    private final float[] a;
    private final float[] b;

    private PolicyNetwork(float[] scale, float[] offset, float[] cap, float[][] weights, float[][] bias, int[] activation, int[] widths) {
        this.scale = scale;
        this.offset = offset;
        this.cap = cap;
        this.weights = weights;
        this.bias = bias;
        this.activation = activation;
        this.widths = widths;
        int widest = 0;
        for (int w : widths) widest = Math.max(widest, w);
        this.a = new float[widest];
        this.b = new float[widest];
    }

    /** @throws IllegalArgumentException naming the file and what is wrong with it */
    public static PolicyNetwork read(Path file) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new IllegalArgumentException("policy network '" + file + "': cannot read it (" + e.getMessage() + ")");
        }
        return parse(bytes, "policy network '" + file + "'");
    }

    /** @throws IllegalArgumentException naming {@code name} and what is wrong */
    public static PolicyNetwork read(InputStream in, String name) throws IOException {
        return parse(in.readAllBytes(), "policy network '" + name + "'");
    }

    /** A network file's bytes, under {@code name}. @throws IllegalArgumentException naming {@code name} and what is wrong */
    public static PolicyNetwork read(byte[] bytes, String name) {
        return parse(bytes, "policy network '" + name + "'");
    }

    static PolicyNetwork parse(byte[] bytes, String what) {
        ByteBuffer in = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        try {
            if (bytes.length < 4 || in.getInt() != MAGIC) throw new IllegalArgumentException(what + ": not a policy network (it does not start with 'KRLN')");
            int version = in.getInt();
            if (version != 1 && version != VERSION) throw new IllegalArgumentException(what + ": version " + version + ", this reader knows versions 1 and " + VERSION);
            int inputs = in.getInt();
            if (inputs != StateEncoder.STATE_SIZE) {
                throw new IllegalArgumentException(what + ": takes " + inputs + " inputs, the state has " + StateEncoder.STATE_SIZE);
            }
            float[] scale = floats(in, inputs, what, "input scale");
            float[] offset = floats(in, inputs, what, "input offset");
            float[] cap = version == 1 ? uncapped(inputs) : floats(in, inputs, what, "input cap");
            int layers = in.getInt();
            if (layers < 1 || layers > 16) throw new IllegalArgumentException(what + ": " + layers + " layers, expected 1 to 16");
            float[][] w = new float[layers][];
            float[][] bs = new float[layers][];
            int[] act = new int[layers];
            int[] widths = new int[layers + 1];
            widths[0] = inputs;
            for (int l = 0; l < layers; l++) {
                int out = in.getInt();
                if (out < 1 || out > 4096) throw new IllegalArgumentException(what + ": layer " + (l + 1) + " has " + out + " outputs, expected 1 to 4096");
                act[l] = in.getInt();
                if (act[l] < NONE || act[l] > RELU) {
                    throw new IllegalArgumentException(what + ": layer " + (l + 1) + " has activation " + act[l] + ", expected 0 (none), 1 (tanh) or 2 (relu)");
                }
                w[l] = floats(in, out * widths[l], what, "layer " + (l + 1) + " weights");
                bs[l] = floats(in, out, what, "layer " + (l + 1) + " bias");
                widths[l + 1] = out;
            }
            if (widths[layers] != StateEncoder.MASK_SIZE) {
                throw new IllegalArgumentException(what + ": gives " + widths[layers] + " outputs, the action needs " + StateEncoder.MASK_SIZE);
            }
            if (in.hasRemaining()) throw new IllegalArgumentException(what + ": " + in.remaining() + " bytes after the last layer");
            return new PolicyNetwork(scale, offset, cap, w, bs, act, widths);
        } catch (java.nio.BufferUnderflowException e) {
            throw new IllegalArgumentException(what + ": ends early, after " + bytes.length + " bytes");
        }
    }

    /** Version 1's caps: none. */
    private static float[] uncapped(int n) {
        float[] v = new float[n];
        java.util.Arrays.fill(v, Float.POSITIVE_INFINITY);
        return v;
    }

    private static float[] floats(ByteBuffer in, int n, String what, String part) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = in.getFloat();
            if (!Float.isFinite(v[i])) throw new IllegalArgumentException(what + ": " + part + " holds a value that is not finite (" + v[i] + ")");
        }
        return v;
    }

    /** The logits for {@code state} ({@value StateEncoder#MASK_SIZE}, in the mask's layout), into {@code out}. */
    public void logits(float[] state, float[] out) {
        float[] x = a;
        float[] y = b;
        for (int i = 0; i < state.length; i++) x[i] = Math.min(state[i], cap[i]) * scale[i] + offset[i];
        for (int l = 0; l < weights.length; l++) {
            int in = widths[l];
            int outs = widths[l + 1];
            float[] w = weights[l];
            float[] bl = bias[l];
            for (int o = 0; o < outs; o++) {
                float s = bl[o];
                int row = o * in;
                for (int i = 0; i < in; i++) s += w[row + i] * x[i];
                y[o] = switch (activation[l]) {
                    case TANH -> (float) Math.tanh(s);
                    case RELU -> Math.max(0f, s);
                    default -> s;
                };
            }
            float[] t = x;
            x = y;
            y = t;
        }
        System.arraycopy(x, 0, out, 0, StateEncoder.MASK_SIZE);
    }

    /** The layer widths, input first. */
    public int[] widths() {
        return widths.clone();
    }
}
