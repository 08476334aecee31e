package io.kairos.core.scheduling.learned;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Policy network files written by hand, in the format {@link PolicyNetwork} reads. */
final class NetworkFiles {
    private NetworkFiles() {}

    /** One layer, 25 inputs to 84 outputs, no activation: {@code logits = W state + bias}, scale 1, offset 0. */
    static byte[] linear(float[][] weights, float[] bias) {
        return layers(new int[] {StateEncoder.MASK_SIZE}, new int[] {PolicyNetwork.NONE}, new float[][][] {weights}, new float[][] {bias});
    }

    static byte[] layers(int[] outs, int[] activations, float[][][] weights, float[][] biases) {
        int in = StateEncoder.STATE_SIZE;
        int size = 4 * 4 + 8 * in;
        int width = in;
        for (int l = 0; l < outs.length; l++) {
            size += 8 + 4 * (outs[l] * width + outs[l]);
            width = outs[l];
        }
        ByteBuffer b = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
        b.put(new byte[] {'K', 'R', 'L', 'N'}).putInt(1).putInt(in);
        for (int i = 0; i < in; i++) b.putFloat(1f);
        for (int i = 0; i < in; i++) b.putFloat(0f);
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
