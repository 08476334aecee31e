package io.kairos.core.scheduling.learned;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Policy network files written by hand, in the format {@link PolicyNetwork} reads; public for the wire module's decision tests, through the test jar. */
public final class NetworkFiles {
    private NetworkFiles() {}

    /**
     * Slot 0's infer logit is its pending count (weight 1 on state[0]) against a null logit of 0.5
     * (bias): infer as soon as one request waits. Its batch logits are biases 0, 1, 0, 0, 2: batch
     * 16 (index 4) when allowed, else batch 2 (index 1).
     */
    public static byte[] inferWhenPending() {
        float[][] w = new float[StateEncoder.MASK_SIZE][StateEncoder.STATE_SIZE];
        float[] bias = new float[StateEncoder.MASK_SIZE];
        w[1][0] = 1f;
        bias[0] = 0.5f;
        bias[2 + 1] = 1f;
        bias[2 + 4] = 2f;
        return linear(w, bias);
    }

    /** One layer, 25 inputs to 84 outputs, no activation: {@code logits = W state + bias}, scale 1, offset 0. */
    public static byte[] linear(float[][] weights, float[] bias) {
        return layers(new int[] {StateEncoder.MASK_SIZE}, new int[] {PolicyNetwork.NONE}, new float[][][] {weights}, new float[][] {bias});
    }

    static byte[] layers(int[] outs, int[] activations, float[][][] weights, float[][] biases) {
        return layers(null, null, null, outs, activations, weights, biases);
    }

    /**
     * Version 2 when {@code cap} is given (scale, offset and cap per input), else version 1 with
     * scale 1 and offset 0.
     */
    static byte[] layers(float[] scale, float[] offset, float[] cap, int[] outs, int[] activations, float[][][] weights, float[][] biases) {
        int in = StateEncoder.STATE_SIZE;
        int size = 4 * 4 + (cap == null ? 8 : 12) * in;
        int width = in;
        for (int l = 0; l < outs.length; l++) {
            size += 8 + 4 * (outs[l] * width + outs[l]);
            width = outs[l];
        }
        ByteBuffer b = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
        b.put(new byte[] {'K', 'R', 'L', 'N'}).putInt(cap == null ? 1 : 2).putInt(in);
        for (int i = 0; i < in; i++) b.putFloat(scale == null ? 1f : scale[i]);
        for (int i = 0; i < in; i++) b.putFloat(offset == null ? 0f : offset[i]);
        if (cap != null) for (int i = 0; i < in; i++) b.putFloat(cap[i]);
        b.putInt(outs.length);
        width = in;
        for (int l = 0; l < outs.length; l++) {
            b.putInt(outs[l]).putInt(activations[l]);
            for (int o = 0; o < outs[l]; o++) for (int i = 0; i < width; i++) b.putFloat(weights[l][o][i]);
            for (int o = 0; o < outs[l]; o++) b.putFloat(biases[l][o]);
            width = outs[l];
        }
        return b.array();
    }
}
