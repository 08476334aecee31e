package io.kairos.core.scheduling.learned;

import io.kairos.core.scheduling.ConfiguredPolicy;
import io.kairos.core.scheduling.ParamReader;
import io.kairos.core.scheduling.PolicyParams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** The network file format, its evaluation, the masked argmax, and bad files refused with the reason. */
class PolicyNetworkTest {

    @Test
    void evaluatesTheLayersAsWritten() {
        PolicyNetwork net = PolicyNetwork.parse(NetworkFiles.inferWhenPending(), "test");
        float[] state = new float[StateEncoder.STATE_SIZE];
        state[0] = 3;
        float[] logits = new float[StateEncoder.MASK_SIZE];
        net.logits(state, logits);
        assertThat(logits[0]).isEqualTo(0.5f);
        assertThat(logits[1]).isEqualTo(3f);
        assertThat(logits[3]).isEqualTo(1f);
        assertThat(logits[6]).isEqualTo(2f);
        assertThat(net.widths()).containsExactly(25, 84);
    }

    @Test
    void version2CapsEachInputBeforeItsScaleAndOffset() {
        // One layer: logit 0 = x[1], logit 1 = x[3], where x = min(state, cap) * scale + offset.
        // Input 1 (slot 0's laxity): cap 100, scale 0.1, offset 0; input 3: cap 5, scale 2, offset 1.
        float[] scale = new float[StateEncoder.STATE_SIZE];
        float[] offset = new float[StateEncoder.STATE_SIZE];
        float[] cap = new float[StateEncoder.STATE_SIZE];
        Arrays.fill(scale, 1f);
        Arrays.fill(cap, 1e6f);
        scale[1] = 0.1f;
        cap[1] = 100f;
        scale[3] = 2f;
        offset[3] = 1f;
        cap[3] = 5f;
        float[][] w = new float[StateEncoder.MASK_SIZE][StateEncoder.STATE_SIZE];
        w[0][1] = 1f;
        w[1][3] = 1f;
        PolicyNetwork net = PolicyNetwork.parse(NetworkFiles.layers(scale, offset, cap, new int[] {StateEncoder.MASK_SIZE}, new int[] {PolicyNetwork.NONE},
                new float[][][] {w}, new float[][] {new float[StateEncoder.MASK_SIZE]}), "test");
        float[] state = new float[StateEncoder.STATE_SIZE];
        float[] logits = new float[StateEncoder.MASK_SIZE];
        // A padding slot's 1,000 ms is capped at 100: 10, not 100; 3 is under its cap of 5: 3 * 2 + 1.
        state[1] = StateEncoder.PAD_LAXITY_MS;
        state[3] = 3f;
        net.logits(state, logits);
        assertThat(logits[0]).isCloseTo(10f, within(1e-5f));
        assertThat(logits[1]).isCloseTo(7f, within(1e-5f));
        // Under the caps, as version 1: 24 ms is 2.4; a negative laxity is not raised: -2 ms is -0.2.
        state[1] = 24f;
        net.logits(state, logits);
        assertThat(logits[0]).isCloseTo(2.4f, within(1e-5f));
        state[1] = -2f;
        state[3] = 9f;
        net.logits(state, logits);
        assertThat(logits[0]).isCloseTo(-0.2f, within(1e-5f));
        assertThat(logits[1]).isCloseTo(11f, within(1e-5f));
    }

    @Test
    void twoLayersWithTanhAndRelu() {
        // Hidden layer (tanh): h0 = tanh(state[24]), h1 = tanh(-state[24]). Output layer (relu):
        // out0 = relu(2 h0 + 3 h1 + 1), out1 = relu(-h0). state[24] = 0.5: h0 = tanh(0.5) = 0.46212,
        // h1 = -0.46212, out0 = relu(0.92423 - 1.38635 + 1) = 0.53788, out1 = relu(-0.46212) = 0.
        float[][] w1 = new float[2][StateEncoder.STATE_SIZE];
        w1[0][24] = 1f;
        w1[1][24] = -1f;
        float[][] w2 = new float[StateEncoder.MASK_SIZE][2];
        w2[0][0] = 2f;
        w2[0][1] = 3f;
        w2[1][0] = -1f;
        float[] b2 = new float[StateEncoder.MASK_SIZE];
        b2[0] = 1f;
        byte[] file = NetworkFiles.layers(new int[] {2, StateEncoder.MASK_SIZE}, new int[] {PolicyNetwork.TANH, PolicyNetwork.RELU},
                new float[][][] {w1, w2}, new float[][] {new float[2], b2});
        float[] state = new float[StateEncoder.STATE_SIZE];
        state[24] = 0.5f;
        float[] logits = new float[StateEncoder.MASK_SIZE];
        PolicyNetwork.parse(file, "test").logits(state, logits);
        assertThat(logits[0]).isCloseTo(0.53788f, within(1e-4f));
        assertThat(logits[1]).isEqualTo(0f);
    }

    @Test
    void theMaskedArgmaxNeverChoosesWhatTheMaskForbids() {
        PolicyNetwork net = PolicyNetwork.parse(NetworkFiles.inferWhenPending(), "test");
        NetworkAgent agent = new NetworkAgent(net);
        float[] state = new float[StateEncoder.STATE_SIZE];
        state[0] = 3;
        boolean[] mask = new boolean[StateEncoder.MASK_SIZE];
        for (int s = 0; s < StateEncoder.SLOTS; s++) {
            mask[s * 7] = true;
            mask[s * 7 + 2] = true;
        }
        // Slot 0 with 3 pending: infer, batches 1 and 2 allowed; 16 (logit 2) is not: batch 2.
        mask[1] = true;
        mask[3] = true;
        int[] action = new int[StateEncoder.ACTION_SIZE];
        agent.act(state, mask, action);
        assertThat(action[0]).isEqualTo(1);
        assertThat(action[1]).isEqualTo(1);
        // Infer not allowed: null, whatever the logits say.
        mask[1] = false;
        agent.act(state, mask, action);
        assertThat(action[0]).isEqualTo(0);
        // Batch 16 allowed: the largest logit.
        mask[1] = true;
        Arrays.fill(mask, 2, 7, true);
        agent.act(state, mask, action);
        assertThat(action[1]).isEqualTo(4);
    }

    @Test
    void badFilesAreRefusedWithTheProblem() {
        byte[] good = NetworkFiles.inferWhenPending();
        byte[] magic = good.clone();
        magic[0] = 'X';
        assertThatThrownBy(() -> PolicyNetwork.parse(magic, "policy network 'n'"))
                .hasMessage("policy network 'n': not a policy network (it does not start with 'KRLN')");
        assertThatThrownBy(() -> PolicyNetwork.parse(Arrays.copyOf(good, 500), "policy network 'n'"))
                .hasMessage("policy network 'n': ends early, after 500 bytes");
        assertThatThrownBy(() -> PolicyNetwork.parse(Arrays.copyOf(good, good.length + 4), "policy network 'n'"))
                .hasMessage("policy network 'n': 4 bytes after the last layer");
        byte[] nan = good.clone();
        ByteBuffer.wrap(nan).order(ByteOrder.LITTLE_ENDIAN).putFloat(12 + 8 * 25 + 4 + 8, Float.NaN);
        assertThatThrownBy(() -> PolicyNetwork.parse(nan, "policy network 'n'"))
                .hasMessage("policy network 'n': layer 1 weights holds a value that is not finite (NaN)");
        byte[] nanCap = NetworkFiles.layers(new float[25], new float[25], new float[25], new int[] {84}, new int[] {0}, new float[][][] {new float[84][25]}, new float[][] {new float[84]});
        ByteBuffer.wrap(nanCap).order(ByteOrder.LITTLE_ENDIAN).putFloat(12 + 8 * 25 + 4 * 7, Float.POSITIVE_INFINITY);
        assertThatThrownBy(() -> PolicyNetwork.parse(nanCap, "policy network 'n'"))
                .hasMessage("policy network 'n': input cap holds a value that is not finite (Infinity)");
        byte[] outputs = NetworkFiles.layers(new int[] {10}, new int[] {0}, new float[][][] {new float[10][25]}, new float[][] {new float[10]});
        assertThatThrownBy(() -> PolicyNetwork.parse(outputs, "policy network 'n'"))
                .hasMessage("policy network 'n': gives 10 outputs, the action needs 84");
    }

    @Test
    void rlTakesItsNetworkFromAFileAndRefusesABadOneNamingTheGroupAndTheFile(@TempDir Path dir) throws IOException {
        Path good = dir.resolve("good.krln");
        Files.write(good, NetworkFiles.inferWhenPending());
        AgentPolicy configured = (AgentPolicy) ConfiguredPolicy.of("vision", AgentPolicy.rl(), PolicyParams.of(Map.of("network", good.toString()))).policy();
        assertThat(configured.agent()).isInstanceOf(NetworkAgent.class);
        Path bad = dir.resolve("bad.krln");
        Files.write(bad, new byte[] {'K', 'R', 'L', 'N', 3, 0, 0, 0});
        assertThatThrownBy(() -> ConfiguredPolicy.of("vision", AgentPolicy.rl(), PolicyParams.of(Map.of("network", bad.toString()))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("serving group 'vision'")
                .hasMessageContaining("rl parameter 'network' must be a policy network file: policy network '" + bad + "': version 3, this reader knows versions 1 and 2");
        Path missing = dir.resolve("missing.krln");
        assertThatThrownBy(() -> ConfiguredPolicy.of("vision", AgentPolicy.rl(), PolicyParams.of(Map.of("network", missing.toString()))))
                .hasMessageContaining("policy network '" + missing + "': cannot read it");
    }

    @Test
    void randomIsSeeded() {
        boolean[] mask = new boolean[StateEncoder.MASK_SIZE];
        Arrays.fill(mask, true);
        float[] state = new float[StateEncoder.STATE_SIZE];
        int[] a = new int[StateEncoder.ACTION_SIZE];
        int[] b = new int[StateEncoder.ACTION_SIZE];
        RandomAgent one = (RandomAgent) RandomAgent.configured(new ParamReader("g", "random", PolicyParams.of(Map.of("seed", "7"))));
        RandomAgent two = new RandomAgent(7);
        for (int i = 0; i < 100; i++) {
            one.act(state, mask, a);
            two.act(state, mask, b);
            assertThat(a).containsExactly(b);
        }
    }
}
