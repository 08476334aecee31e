package io.kairos.core.scheduling.learned;

import io.kairos.core.api.Internal;
import io.kairos.core.scheduling.ParamReader;
import io.kairos.core.scheduling.PublishedNetwork;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/**
 * A trained network's decisions: for each slot the allowed choice with the largest logit, null or
 * infer, and the batch size (the masked argmax, deterministic).
 */
@Internal
public final class NetworkAgent implements Agent {
    /** Parameter of {@code rl}: the network file; default the committed network ({@link #COMMITTED}). */
    public static final String NETWORK = "network";
    /**
     * The committed network, on the class path: trained on the thesis' setup (2,400 requests/s over
     * 48 ResNet50 instances, SLO 24 ms, 6 devices), see docs/learned-policy.md.
     */
    public static final String COMMITTED = "kairos/rl/thesis-2400rps-48m-24ms.krln";

    private final PolicyNetwork network;
    private final float[] logits = new float[StateEncoder.MASK_SIZE];

    public NetworkAgent(PolicyNetwork network) {
        this.network = network;
    }

    /**
     * The agent of {@code rl}'s parameters: the network a control decision delivered to the group
     * (checked when it was applied), else the file of {@code network} (on the job's machine), else
     * the committed network. A delivered network wins over the parameter: the decision is how a
     * cluster's user chooses one, the file a single machine's shortcut.
     */
    static Agent configured(ParamReader params) {
        String file = params.text(NETWORK, null);
        PublishedNetwork published = params.network();
        if (published != null) return new NetworkAgent(PolicyNetwork.read(published.bytes(), published.name()));
        if (file == null) return new NetworkAgent(committed());
        try {
            return new NetworkAgent(PolicyNetwork.read(Path.of(file)));
        } catch (IllegalArgumentException e) {
            throw params.bad(NETWORK, "a policy network file: " + e.getMessage());
        }
    }

    /** The committed network, read once per call (a policy is configured rarely). */
    public static PolicyNetwork committed() {
        try (InputStream in = NetworkAgent.class.getClassLoader().getResourceAsStream(COMMITTED)) {
            if (in == null) throw new IllegalStateException("the committed policy network " + COMMITTED + " is missing from the class path");
            return PolicyNetwork.read(in, COMMITTED);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void act(float[] state, boolean[] mask, int[] action) {
        network.logits(state, logits);
        choose(logits, mask, action);
    }

    /** The masked argmax of {@code logits} per slot and choice, into {@code action}. */
    static void choose(float[] logits, boolean[] mask, int[] action) {
        for (int s = 0; s < StateEncoder.SLOTS; s++) {
            int base = s * StateEncoder.CHOICES;
            action[2 * s] = mask[base + 1] && logits[base + 1] > logits[base] ? 1 : 0;
            int best = 0;
            for (int k = 1; k < StateEncoder.BATCH_SIZES.length; k++) {
                if (mask[base + 2 + k] && logits[base + 2 + k] > logits[base + 2 + best]) best = k;
            }
            action[2 * s + 1] = best;
        }
    }
}
