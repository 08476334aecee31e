package io.kairos.sim.learning;

import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.scheduling.Dispatch;
import io.kairos.core.scheduling.GroupView;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.core.scheduling.learned.Agent;
import io.kairos.core.scheduling.learned.AgentPolicy;
import io.kairos.core.scheduling.learned.StateEncoder;
import io.kairos.sim.Invocation;
import io.kairos.sim.Simulation;

import java.util.List;
import java.util.function.LongFunction;

/**
 * The RL thesis' training environment over the simulator: the simulation of a setup (devices and
 * load) with the {@link AgentPolicy} invoked every 1 ms, deciding for one device at a time (the
 * least work booked first, as the policy serves; the setup's {@code device_order} parameter may
 * say otherwise); each decision is a step of a {@link Learner}, which sees the
 * {@link StateEncoder}'s state and mask and the {@link Reward} accrued since its previous step,
 * and chooses the action. An episode is a
 * fresh simulation (the reset: arrivals, queues and devices anew, from the episode's seed) cut
 * after its number of steps; simulated time stands still while the learner decides.
 */
public final class SchedulingEnvironment {
    /** How often the agent is invoked, as in the thesis. */
    public static final long PERIOD_MICROS = 1000;

    private final LongFunction<Simulation.Builder> setups;
    private final PolicyParams params;
    private final Reward reward;
    private final RewardMeter.LateCharge lateCharge;
    private final RewardMeter.DropCharge dropCharge;
    private final double gpuTermPerMs;

    /**
     * @param setup  the devices and the load (a policy, duration and seed it may have are replaced)
     * @param params the group's parameters (shedding; {@link PolicyParams#NONE}: the defaults)
     */
    public SchedulingEnvironment(Simulation.Builder setup, PolicyParams params, Reward reward) {
        this(setup, params, reward, RewardMeter.LateCharge.AT_FATE);
    }

    /** @param lateCharge when a request that ends late pays its correction (RF2, RF3) */
    public SchedulingEnvironment(Simulation.Builder setup, PolicyParams params, Reward reward, RewardMeter.LateCharge lateCharge) {
        this(setup, params, reward, lateCharge, RewardMeter.DropCharge.AT_FATE);
    }

    /** @param dropCharge when a request the group drops pays its correction (RF2, RF3) */
    public SchedulingEnvironment(Simulation.Builder setup, PolicyParams params, Reward reward, RewardMeter.LateCharge lateCharge,
                                 RewardMeter.DropCharge dropCharge) {
        this(seed -> setup, params, reward, lateCharge, dropCharge);
    }

    /**
     * @param setups each episode's devices and load, from the episode's seed: a fresh builder per
     *               call where episodes differ in their workload (training across workloads)
     */
    public SchedulingEnvironment(LongFunction<Simulation.Builder> setups, PolicyParams params, Reward reward, RewardMeter.LateCharge lateCharge,
                                 RewardMeter.DropCharge dropCharge) {
        this(setups, params, reward, lateCharge, dropCharge, Reward.GPU_TERM_PER_MS);
    }

    private SchedulingEnvironment(LongFunction<Simulation.Builder> setups, PolicyParams params, Reward reward, RewardMeter.LateCharge lateCharge,
                                  RewardMeter.DropCharge dropCharge, double gpuTermPerMs) {
        this.setups = setups;
        this.params = params;
        this.reward = reward;
        this.lateCharge = lateCharge;
        this.dropCharge = dropCharge;
        this.gpuTermPerMs = RewardMeter.checkedGpuTerm(gpuTermPerMs); // here, not in the first episode
    }

    /** The same environment with RF3's GPU term at {@code perMs} per ms of work booked (see {@link RewardMeter}). */
    public SchedulingEnvironment withGpuTerm(double perMs) {
        return new SchedulingEnvironment(setups, params, reward, lateCharge, dropCharge, perMs);
    }

    /** What chooses the actions of an episode. */
    public interface Learner {
        /**
         * Fills {@code action} for {@code state}, one that {@code mask} allows (see
         * {@link StateEncoder}); {@code reward} accrued since the previous step (0 on the first).
         */
        void step(float[] state, boolean[] mask, double reward, int[] action);
    }

    /**
     * One episode's end: the steps taken, the state the next step would have seen and the reward
     * accrued after the last step (for a learner that bootstraps a cut episode), the reward in all,
     * and the requests whose fate was decided: met, late, dropped.
     */
    public record Episode(int steps, float[] finalState, double finalReward, double totalReward, long ok, long late, long dropped) {
        /** The share of the requests decided that met their SLO; NaN for none. */
        public double attainment() {
            long n = ok + late + dropped;
            return n == 0 ? Double.NaN : (double) ok / n;
        }
    }

    /** Runs an episode of at most {@code steps} steps from {@code seed}. */
    public Episode run(long seed, int steps, Learner learner) {
        if (steps < 1) throw new IllegalArgumentException("an episode needs at least one step, got " + steps);
        RewardMeter meter = new RewardMeter(reward, lateCharge, dropCharge, gpuTermPerMs);
        Driver driver = new Driver(learner, meter, steps);
        // Long enough for the steps at one decision per ms, the least while requests wait.
        Simulation sim = setups.apply(seed).policy(AgentPolicy.RANDOM, params).policies(name -> AgentPolicy.drivenBy(name, driver))
                .invocation(Invocation.every(PERIOD_MICROS)).duration(steps * PERIOD_MICROS + 1_000_000).seed(seed).build();
        try {
            sim.run(meter);
        } catch (Cut cut) {
            // The episode's steps are done: the rest of the simulation is not needed.
        }
        float[] last = driver.finalState != null ? driver.finalState : padding();
        return new Episode(driver.steps, last, meter.take(), meter.total(), meter.ok(), meter.late(), meter.dropped());
    }

    private static float[] padding() {
        float[] s = new float[StateEncoder.STATE_SIZE];
        for (int i = 0; i < StateEncoder.SLOTS; i++) s[2 * i + 1] = StateEncoder.PAD_LAXITY_MS;
        return s;
    }

    /** The agent the policy asks: each decision a learner's step, until the episode's steps are done. */
    private static final class Driver implements Agent {
        final Learner learner;
        final RewardMeter meter;
        final int limit;
        int steps;
        float[] finalState;

        Driver(Learner learner, RewardMeter meter, int limit) {
            this.learner = learner;
            this.meter = meter;
            this.limit = limit;
        }

        @Override
        public void act(float[] state, boolean[] mask, int[] action) {
            if (steps == limit) {
                finalState = state.clone();
                throw new Cut();
            }
            learner.step(state, mask, meter.take(), action);
            steps++;
        }

        @Override
        public void applied(long nowMicros, GroupView group, DeviceView device, List<Dispatch> started) {
            meter.applied(nowMicros, group, device, started);
        }
    }

    /** Ends an episode from inside the simulation, which has no other way out before its end. */
    private static final class Cut extends RuntimeException {
        Cut() {
            super(null, null, false, false);
        }
    }
}
