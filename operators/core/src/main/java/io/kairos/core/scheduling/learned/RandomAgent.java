package io.kairos.core.scheduling.learned;

import io.kairos.core.api.Internal;
import io.kairos.core.scheduling.ParamReader;

import java.util.SplittableRandom;

/**
 * The RL thesis' random agent (its Fig 5.1): for each slot, null or infer and a batch size, each
 * drawn uniformly from the choices the mask allows. Seeded: the same seed, the same decisions.
 */
@Internal
public final class RandomAgent implements Agent {
    /** Parameter of {@code random}: the seed (default 1). */
    public static final String SEED = "seed";

    private final SplittableRandom random;

    public RandomAgent(long seed) {
        this.random = new SplittableRandom(seed);
    }

    static Agent configured(ParamReader params) {
        return new RandomAgent((long) params.number(SEED, 1, v -> v == Math.rint(v) && Math.abs(v) < 9.0e15, "a whole number"));
    }

    @Override
    public void act(float[] state, boolean[] mask, int[] action) {
        for (int s = 0; s < StateEncoder.SLOTS; s++) {
            int base = s * StateEncoder.CHOICES;
            action[2 * s] = mask[base + 1] && random.nextBoolean() ? 1 : 0;
            int allowed = 0;
            for (int k = 0; k < StateEncoder.BATCH_SIZES.length; k++) if (mask[base + 2 + k]) allowed++;
            int pick = random.nextInt(allowed);
            for (int k = 0; k < StateEncoder.BATCH_SIZES.length; k++) {
                if (mask[base + 2 + k] && pick-- == 0) {
                    action[2 * s + 1] = k;
                    break;
                }
            }
        }
    }
}
