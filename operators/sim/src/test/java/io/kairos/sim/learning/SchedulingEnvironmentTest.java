package io.kairos.sim.learning;

import io.kairos.core.model.ModelCatalog;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.core.scheduling.learned.StateEncoder;
import io.kairos.sim.Simulation;
import io.kairos.workload.ArrivalProcess;
import io.kairos.workload.ModelLoad;
import io.kairos.workload.Workload;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Episodes of the environment: cut at their steps, seeded, driven by the learner's actions. */
class SchedulingEnvironmentTest {

    /** Four ResNet50 instances at 300 requests/s each, SLO 24 ms, on 2 devices. */
    static Simulation.Builder setup() {
        List<ModelLoad> loads = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            loads.add(new ModelLoad(ModelLoad.DEFAULT_TENANT, ModelCatalog.instanceName("resnet50", i), 24, ArrivalProcess.poisson(300)));
        }
        return Simulation.builder(ModelCatalog.builtIn()).devices(2).workload(new Workload(loads));
    }

    /**
     * When the device has less than 1 ms booked, infers the largest batch the mask allows on the
     * most urgent slot; otherwise waits (booking every ms would pile work up without end).
     */
    static final SchedulingEnvironment.Learner GREEDY = (state, mask, reward, action) -> {
        java.util.Arrays.fill(action, 0);
        if (mask[1] && state[StateEncoder.STATE_SIZE - 1] < 1) {
            action[0] = 1;
            for (int k = StateEncoder.BATCH_SIZES.length - 1; k >= 0; k--) {
                if (mask[2 + k]) {
                    action[1] = k;
                    break;
                }
            }
        }
    };

    static final SchedulingEnvironment.Learner WAIT = (state, mask, reward, action) -> java.util.Arrays.fill(action, 0);

    @Test
    void anEpisodeIsCutAfterItsStepsAndTheFirstStepHasNoReward() {
        SchedulingEnvironment env = new SchedulingEnvironment(setup(), PolicyParams.NONE, Reward.RF3);
        List<Double> rewards = new ArrayList<>();
        SchedulingEnvironment.Episode e = env.run(1, 3_000, (state, mask, reward, action) -> {
            rewards.add(reward);
            GREEDY.step(state, mask, reward, action);
        });
        assertThat(e.steps()).isEqualTo(3_000);
        assertThat(rewards).hasSize(3_000);
        assertThat(rewards.get(0)).isEqualTo(0.0);
        assertThat(e.finalState()).hasSize(StateEncoder.STATE_SIZE);
        // The greedy learner serves nearly everything at 1,200 requests/s on 2 devices, SLO 24 ms.
        assertThat(e.attainment()).isGreaterThan(0.95);
        assertThat(e.totalReward()).isGreaterThan(0);
    }

    @Test
    void theSameSeedGivesTheSameEpisodeAndAnotherSeedAnother() {
        SchedulingEnvironment env = new SchedulingEnvironment(setup(), PolicyParams.NONE, Reward.RF3);
        SchedulingEnvironment.Episode a = env.run(5, 2_000, GREEDY);
        SchedulingEnvironment.Episode b = env.run(5, 2_000, GREEDY);
        SchedulingEnvironment.Episode c = env.run(6, 2_000, GREEDY);
        assertThat(b).usingRecursiveComparison().isEqualTo(a);
        assertThat(c.totalReward()).isNotEqualTo(a.totalReward());
    }

    @Test
    void aLearnerThatNeverInfersLosesEveryRequestAndIsPunished() {
        // Every request times out in its queue (shed when it can no longer make its deadline):
        // none met, and RF2 gives -3 * 2 * 2.7 = -16.2 for each.
        SchedulingEnvironment env = new SchedulingEnvironment(setup(), PolicyParams.NONE, Reward.RF2);
        SchedulingEnvironment.Episode e = env.run(1, 3_000, WAIT);
        assertThat(e.ok()).isZero();
        assertThat(e.dropped()).isPositive();
        assertThat(e.totalReward()).isCloseTo(-16.2 * e.dropped(), org.assertj.core.api.Assertions.within(1e-6 * e.dropped()));
    }

    @Test
    void theGpuTermScalesOnlyWhatTheBookedWorkCosts() {
        // The same seed and learner give the same steps whatever the term; RF3 is RF2 less the
        // term times the booked work summed over the steps, so the reward lost to a term of 0.3 is
        // three times that lost to 0.1 and the default 0.5 five times, and a term of 0 is RF2 itself.
        SchedulingEnvironment rf3 = new SchedulingEnvironment(setup(), PolicyParams.NONE, Reward.RF3);
        double none = rf3.withGpuTerm(0).run(3, 2_000, GREEDY).totalReward();
        double tenth = rf3.withGpuTerm(0.1).run(3, 2_000, GREEDY).totalReward();
        double half = rf3.run(3, 2_000, GREEDY).totalReward();
        double third = rf3.withGpuTerm(0.3).run(3, 2_000, GREEDY).totalReward();
        double rf2 = new SchedulingEnvironment(setup(), PolicyParams.NONE, Reward.RF2).run(3, 2_000, GREEDY).totalReward();
        assertThat(none).isCloseTo(rf2, org.assertj.core.api.Assertions.within(1e-9));
        assertThat(none - tenth).isPositive();
        assertThat(none - third).isCloseTo(3 * (none - tenth), org.assertj.core.api.Assertions.within(1e-6));
        assertThat(none - half).isCloseTo(5 * (none - tenth), org.assertj.core.api.Assertions.within(1e-6));
        assertThatThrownBy(() -> rf3.withGpuTerm(-0.1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the GPU term must be a finite number of at least 0 per ms, got -0.1");
        assertThatThrownBy(() -> rf3.withGpuTerm(Double.NaN)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anActionTheMaskForbidsIsRefusedWithTheReason() {
        SchedulingEnvironment env = new SchedulingEnvironment(setup(), PolicyParams.NONE, Reward.RF3);
        assertThatThrownBy(() -> env.run(1, 100, (state, mask, reward, action) -> {
            java.util.Arrays.fill(action, 0);
            action[2 * 11] = 1; // slot 11: padding with 4 models
        })).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("policy 'random': the agent's action is not allowed: slot 11: infer on a slot with no pending request");
    }
}
