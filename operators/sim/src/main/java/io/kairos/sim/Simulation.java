package io.kairos.sim;

import io.kairos.core.model.ModelCatalog;
import io.kairos.core.plan.ServingPlan;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.core.scheduling.policy.Policies;
import io.kairos.workload.Workload;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A discrete-event simulation of a serving plan: requests arrive from a load, are routed to their
 * model's serving group, wait in the group's per-model queues, and run in batches on the group's
 * devices, all in virtual time, decided by the same {@link io.kairos.core.scheduling.GroupScheduler}
 * and policy objects that run inside the Flink job, kept in step with the plan by the same
 * {@link io.kairos.core.plan.ServingGroups}. Control decisions, as the job receives them, can be
 * replayed at given times ({@link Builder#decisions}), applied with the job's own code
 * ({@link io.kairos.core.plan.Decisions}). Seeded and deterministic: the same simulation run twice
 * gives the same report (wall time aside). Immutable, so one description can be run many times,
 * e.g. by a planner that uses it as its latency estimator.
 *
 * <p>One group, the common case, from devices and a policy:
 * <pre>{@code
 * SimulationReport r = Simulation.builder(catalog)
 *         .devices(6).policy("clockwork").workload(Workload.parse("resnet50:600:12"))
 *         .duration(60_000_000).seed(1).build().run();
 * }</pre>
 * A whole plan, each device in one group only, with a decision replayed after 10 s:
 * <pre>{@code
 * ServingPlan plan = new ServingPlan(4, "kairos", PolicyParams.NONE);
 * plan.place("vision", Map.of(0, Set.of("resnet50"), 1, Set.of("resnet50")));
 * plan.assign("resnet50", "vision");
 * plan.place("default", Map.of(2, Set.of("mlp"), 3, Set.of("mlp")));
 * Simulation.builder(catalog).plan(plan).decisions(List.of(new TimedDecision(10_000_000, decision)))...
 * }</pre>
 */
public final class Simulation {
    private final ModelCatalog catalog;
    private final ServingPlan plan;
    private final List<TimedDecision> decisions;
    private final String policyName;
    private final ArrivalSource.Load load;
    private final long durationMicros;
    private final long warmupMicros;
    private final Invocation invocation;
    private final ExecutionNoise noise;
    private final ColdStarts coldStarts;
    private final Delay dispatchDelay;
    private final boolean preemption;
    private final long seed;

    private Simulation(Builder b) {
        this.catalog = b.catalog;
        this.plan = b.plan != null ? b.plan.copy() : onePlan(b);
        this.decisions = b.decisions;
        this.policyName = b.plan != null ? plan.policyOf(ServingPlan.DEFAULT_GROUP).policy() : b.policyName;
        this.load = b.load;
        this.durationMicros = b.durationMicros;
        this.warmupMicros = b.warmupMicros;
        this.invocation = b.invocation;
        this.noise = b.noise;
        this.coldStarts = b.coldStarts;
        this.dispatchDelay = b.dispatchDelay;
        this.preemption = b.preemption;
        this.seed = b.seed;
    }

    public static Builder builder(ModelCatalog catalog) {
        return new Builder(catalog);
    }

    public SimulationReport run() {
        return run(FateListener.NONE);
    }

    /** Runs it, telling {@code listener} the fate of every request as it is decided. */
    public SimulationReport run(FateListener listener) {
        return new SimulationRun(this, listener).run();
    }

    /** The plan of one group, {@link ServingPlan#DEFAULT_GROUP}, with the builder's devices and policy. */
    private static ServingPlan onePlan(Builder b) {
        ServingPlan p = new ServingPlan(b.placement.size(), b.policyName, b.params);
        if (b.placement.stream().anyMatch(models -> models != null)) {
            Map<Integer, Set<String>> devices = new LinkedHashMap<>();
            for (int slot = 0; slot < b.placement.size(); slot++) devices.put(slot, b.placement.get(slot)); // null: every model
            p.place(ServingPlan.DEFAULT_GROUP, devices);
        }
        return p;
    }

    ModelCatalog catalog() {
        return catalog;
    }

    /** A fresh copy of the plan the run starts from, for a run to change. */
    ServingPlan newPlan() {
        return plan.copy();
    }

    int deviceCount() {
        return plan.deviceCount();
    }

    /** The decisions to replay, in time order. */
    List<TimedDecision> decisions() {
        return decisions;
    }

    String policyName() {
        return policyName;
    }

    ArrivalSource.Load load() {
        return load;
    }

    long durationMicros() {
        return durationMicros;
    }

    long warmupMicros() {
        return warmupMicros;
    }

    Invocation invocation() {
        return invocation;
    }

    ExecutionNoise noise() {
        return noise;
    }

    ColdStarts coldStarts() {
        return coldStarts;
    }

    Delay dispatchDelay() {
        return dispatchDelay;
    }

    boolean preemption() {
        return preemption;
    }

    long seed() {
        return seed;
    }

    public static final class Builder {
        private final ModelCatalog catalog;
        private List<Set<String>> placement = Collections.nCopies(1, null);
        private boolean placementSet;
        private String policyName;
        private PolicyParams params = PolicyParams.NONE;
        private ServingPlan plan;
        private List<TimedDecision> decisions = List.of();
        private ArrivalSource.Load load;
        private long durationMicros = -1;
        private long warmupMicros;
        private Invocation invocation = Invocation.onEvents();
        private ExecutionNoise noise = ExecutionNoise.none();
        private ColdStarts coldStarts = ColdStarts.NONE;
        private Delay dispatchDelay = Delay.NONE;
        private boolean preemption = true;
        private long seed = 1;

        private Builder(ModelCatalog catalog) {
            this.catalog = catalog;
        }

        /** {@code count} devices, each holding every model. */
        public Builder devices(int count) {
            if (count < 1) throw new IllegalArgumentException("a simulation needs at least one device, got " + count);
            this.placement = Collections.nCopies(count, null);
            this.placementSet = true;
            return this;
        }

        /** One device per entry, holding the models of the entry ({@code null}: every model). */
        public Builder placement(List<Set<String>> modelsPerDevice) {
            if (modelsPerDevice.isEmpty()) throw new IllegalArgumentException("a simulation needs at least one device");
            this.placement = new ArrayList<>(modelsPerDevice);
            this.placementSet = true;
            return this;
        }

        /**
         * A policy of the registry by name, with group-wide parameters.
         *
         * @throws IllegalArgumentException now, rather than at run time, for an unknown policy, a
         *         bad value or a parameter the policy does not know
         */
        public Builder policy(String name, Map<String, String> groupParams) {
            return policy(name, PolicyParams.of(groupParams));
        }

        public Builder policy(String name) {
            return policy(name, Map.of());
        }

        /** A policy by name with group-wide and per-model parameters; fails now for a bad one. */
        public Builder policy(String name, PolicyParams params) {
            Policies.configure(null, name, params);
            this.policyName = name;
            this.params = params;
            return this;
        }

        /**
         * A whole serving plan: its groups, each group's devices (a device in one group only) and
         * policy, and which group each model goes to; instead of {@link #devices},
         * {@link #placement} and {@link #policy}. The plan is copied; each run starts from it.
         */
        public Builder plan(ServingPlan plan) {
            this.plan = plan.copy();
            return this;
        }

        /**
         * Control decisions to apply at their times (in time order; those of one instant in list
         * order), with the job's own code; a rejected decision leaves the plan as it was, and is
         * told to the run's {@link FateListener#onDecision}.
         */
        public Builder decisions(List<TimedDecision> decisions) {
            List<TimedDecision> sorted = new ArrayList<>(decisions);
            sorted.sort(Comparator.comparingLong(TimedDecision::atMicros)); // stable: one instant keeps list order
            this.decisions = List.copyOf(sorted);
            return this;
        }

        public Builder load(ArrivalSource.Load load) {
            this.load = load;
            return this;
        }

        public Builder workload(Workload workload) {
            return load(ArrivalSource.open(workload));
        }

        /** Requests arrive during this long; the run goes on until every one of them has ended. */
        public Builder duration(long micros) {
            if (micros <= 0) throw new IllegalArgumentException("simulated duration must be positive, got " + micros + " us");
            this.durationMicros = micros;
            return this;
        }

        /** Requests that arrive before this are simulated but not counted in the report. */
        public Builder warmup(long micros) {
            if (micros < 0) throw new IllegalArgumentException("warm-up must not be negative, got " + micros + " us");
            this.warmupMicros = micros;
            return this;
        }

        public Builder invocation(Invocation invocation) {
            this.invocation = invocation;
            return this;
        }

        public Builder noise(ExecutionNoise noise) {
            this.noise = noise;
            return this;
        }

        public Builder coldStarts(ColdStarts coldStarts) {
            this.coldStarts = coldStarts;
            return this;
        }

        /** From the scheduler's decision to the batch reaching its device (default none). */
        public Builder dispatchDelay(Delay delay) {
            this.dispatchDelay = delay;
            return this;
        }

        /** Whether a policy may abort a running batch (default yes: a simulated device can). */
        public Builder preemption(boolean allowed) {
            this.preemption = allowed;
            return this;
        }

        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        public Simulation build() {
            if (plan != null && (policyName != null || placementSet)) {
                throw new IllegalStateException("a simulation takes a plan, or devices and a policy, not both");
            }
            if (plan == null && policyName == null) throw new IllegalStateException("simulation has no policy");
            if (load == null) throw new IllegalStateException("simulation has no load");
            if (durationMicros < 0) throw new IllegalStateException("simulation has no duration");
            if (warmupMicros >= durationMicros) {
                throw new IllegalStateException("warm-up (" + warmupMicros + " us) must be shorter than the duration (" + durationMicros + " us)");
            }
            return new Simulation(this);
        }
    }
}
