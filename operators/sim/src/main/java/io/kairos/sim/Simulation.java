package io.kairos.sim;

import io.kairos.core.device.DeviceSlots;
import io.kairos.core.device.Eviction;
import io.kairos.core.device.ExecutionModel;
import io.kairos.core.device.ExecutionNoise;
import io.kairos.core.model.HardwareType;
import io.kairos.core.model.LatencyEstimator;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.plan.ServingPlan;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.core.scheduling.SchedulingPolicy;
import io.kairos.core.scheduling.policy.Policies;
import io.kairos.workload.Workload;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * A discrete-event simulation of a serving plan: requests arrive from a load, are routed to their
 * model's serving group, wait in the group's per-model queues, and run in batches on the group's
 * devices, all in virtual time, decided by the same {@link io.kairos.core.scheduling.GroupScheduler}
 * and policy objects that run inside the Flink job, kept in step with the plan by the same
 * {@link io.kairos.core.plan.ServingGroups}. Control decisions, as the job receives them, can be
 * replayed at given times ({@link Builder#decisions}), applied with the job's own code
 * ({@link io.kairos.wire.plan.Decisions}). Seeded and deterministic: the same simulation run twice
 * gives the same report (wall time aside). Immutable, so one description can be run many times,
 * e.g. by a planner that uses it as its latency estimator.
 *
 * <p>One group, the common case, from devices and a policy:
 * <pre>{@code
 * SimulationReport r = Simulation.builder(catalog)
 *         .devices(6).policy("clockwork").workload(Workload.parse("resnet50:600:12"))
 *         .duration(60_000_000).seed(1).build().run();
 * }</pre>
 * Devices of several hardware types (the catalog's {@code hardware}), each running its type's
 * profiles; the report gives their cost:
 * <pre>{@code
 * Simulation.builder(catalog).devices(DeviceSlots.parse("cpu:2,gpu-t4:1", catalog))...
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
    private final java.util.function.Supplier<Controller> controller;
    private final String policyName;
    private final ArrivalSource.Load load;
    private final long durationMicros;
    private final long warmupMicros;
    private final Invocation invocation;
    private final ExecutionNoise noise;
    private final double speed;
    private final LatencyEstimator.Settings learnLatency;
    private final Delay dispatchDelay;
    private final boolean preemption;
    private final java.util.function.Function<String, SchedulingPolicy> policies;
    private final long seed;

    private Simulation(Builder b) {
        // Cold starts asked for simply become the catalog's load figures and the devices' memory.
        this.catalog = b.coldStarts.enabled() ? b.coldStarts.applyTo(b.catalog) : b.catalog;
        // The devices' memory is the plan's, so that the scheduler's views and the devices share it.
        this.plan = b.plan != null ? b.plan.copy() : onePlan(b, b.coldStarts.enabled() ? b.coldStarts.deviceMemoryBytes() : b.deviceMemoryBytes);
        if (b.eviction != null) this.plan.deviceEviction(b.eviction);
        this.decisions = b.decisions;
        this.controller = b.controller;
        for (int slot = 0; slot < plan.deviceCount(); slot++) {
            if (catalog.hardwareType(hardwareTypeOf(slot)) == null) {
                throw new IllegalArgumentException("device " + slot + " of the plan is of hardware type '" + hardwareTypeOf(slot)
                        + "', which the simulation's model catalog lacks (it has " + catalog.hardwareTypes().stream().map(HardwareType::name).toList() + ")");
            }
        }
        this.policyName = b.plan != null ? plan.policyOf(ServingPlan.DEFAULT_GROUP).policy() : b.policyName;
        this.load = b.load;
        this.durationMicros = b.durationMicros;
        this.warmupMicros = b.warmupMicros;
        this.invocation = b.invocation;
        this.noise = b.noise;
        this.speed = b.speed;
        this.learnLatency = b.learnLatency;
        this.dispatchDelay = b.dispatchDelay;
        this.preemption = b.preemption;
        this.policies = b.policies;
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
    private static ServingPlan onePlan(Builder b, long deviceMemoryBytes) {
        ServingPlan p = b.slots != null ? new ServingPlan(b.slots, deviceMemoryBytes, b.policyName, b.params, b.catalog)
                : new ServingPlan(b.placement.size(), deviceMemoryBytes, b.policyName, b.params, b.catalog);
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

    /** A fresh controller for a run, or null. */
    Controller newController() {
        return controller == null ? null : controller.get();
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

    /** The time model of device {@code slot}, of its hardware type, drawing its noise from {@code random}. */
    ExecutionModel deviceTime(int slot, SplittableRandom random) {
        return new ExecutionModel(catalog, hardwareTypeOf(slot), speed, noise, plan.deviceMemoryBytes(), plan.deviceEviction(), random);
    }

    /** The hardware type of device {@code slot}. */
    String hardwareTypeOf(int slot) {
        String type = plan.hardwareTypeOf(slot);
        return type != null ? type : catalog.firstHardwareType().name();
    }

    /** What the devices cost per hour together: the sum of their types' prices. */
    double costPerHour() {
        double sum = 0;
        for (int slot = 0; slot < plan.deviceCount(); slot++) sum += catalog.hardwareType(hardwareTypeOf(slot)).pricePerHour();
        return sum;
    }

    long deviceMemoryBytes() {
        return plan.deviceMemoryBytes();
    }

    Eviction deviceEviction() {
        return plan.deviceEviction();
    }

    LatencyEstimator.Settings learnLatency() {
        return learnLatency;
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

    /** The policy object for a policy name of the plan. */
    java.util.function.Function<String, SchedulingPolicy> policies() {
        return policies;
    }

    public static final class Builder {
        private final ModelCatalog catalog;
        private List<Set<String>> placement = Collections.nCopies(1, null);
        private DeviceSlots slots;
        private boolean placementSet;
        private String policyName;
        private PolicyParams params = PolicyParams.NONE;
        private ServingPlan plan;
        private List<TimedDecision> decisions = List.of();
        private java.util.function.Supplier<Controller> controller;
        private ArrivalSource.Load load;
        private long durationMicros = -1;
        private long warmupMicros;
        private Invocation invocation = Invocation.onEvents();
        private ExecutionNoise noise = ExecutionNoise.none();
        private ColdStarts coldStarts = ColdStarts.NONE;
        private double speed = 1;
        private long deviceMemoryBytes = Long.MAX_VALUE;
        private boolean deviceMemorySet;
        private Eviction eviction;
        private LatencyEstimator.Settings learnLatency = LatencyEstimator.Settings.DEFAULT;
        private Delay dispatchDelay = Delay.NONE;
        private boolean preemption = true;
        private java.util.function.Function<String, SchedulingPolicy> policies = Policies::create;
        private long seed = 1;

        private Builder(ModelCatalog catalog) {
            this.catalog = catalog;
        }

        /** {@code count} devices of the catalog's first hardware type, each holding every model. */
        public Builder devices(int count) {
            if (count < 1) throw new IllegalArgumentException("a simulation needs at least one device, got " + count);
            this.placement = Collections.nCopies(count, null);
            this.slots = null;
            this.placementSet = true;
            return this;
        }

        /**
         * Devices of the slots' hardware types, each holding every model it has a profile for on
         * its type; each runs its batches in its type's time, and the report counts their prices.
         *
         * @throws IllegalArgumentException for a slot of a type the catalog lacks
         */
        public Builder devices(DeviceSlots slots) {
            for (String type : slots.distinctTypes()) {
                if (catalog.hardwareType(type) == null) {
                    throw new IllegalArgumentException("devices '" + slots + "': hardware type '" + type + "' is not in the model catalog (it has "
                            + catalog.hardwareTypes().stream().map(HardwareType::name).toList() + ")");
                }
            }
            this.placement = Collections.nCopies(slots.count(), null);
            this.slots = slots;
            this.placementSet = true;
            return this;
        }

        /**
         * One device per entry, holding the models of the entry ({@code null}: every model), of the
         * types of the {@link #devices(DeviceSlots)} given before, if as many, else of the first type.
         */
        public Builder placement(List<Set<String>> modelsPerDevice) {
            if (modelsPerDevice.isEmpty()) throw new IllegalArgumentException("a simulation needs at least one device");
            this.placement = new ArrayList<>(modelsPerDevice);
            if (slots != null && slots.count() != modelsPerDevice.size()) slots = null;
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

        /**
         * A controller in the loop ({@link Controller}), a fresh one from {@code controllers} for
         * each run: asked at the times it names up to the duration, its decisions decided at once
         * with the job's code (after the timed decisions of the same instant, before its arrivals).
         */
        public Builder controller(java.util.function.Supplier<Controller> controllers) {
            this.controller = controllers;
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

        /**
         * Cold starts of a given length with room for a given number of models per device, whatever
         * the catalog says (it replaces the catalog's load figures and the {@link #deviceMemory}; with a
         * {@link #plan}, the plan's device memory must be the one this gives).
         */
        public Builder coldStarts(ColdStarts coldStarts) {
            this.coldStarts = coldStarts;
            return this;
        }

        /**
         * What the loaded models may take together on each device (default unbounded): with a
         * catalog that gives models {@code memory_bytes} and {@code load_ms}, devices load and
         * evict models, and the scheduler's views of them book the same cold starts.
         */
        public Builder deviceMemory(long bytes) {
            if (bytes < 1) throw new IllegalArgumentException("device memory must be positive, got " + bytes + " bytes");
            this.deviceMemoryBytes = bytes;
            this.deviceMemorySet = true;
            return this;
        }

        /**
         * The devices evict loaded models by {@code rule} when one must load that does not fit
         * (default: the plan's, {@link Eviction#LRU} unless it says otherwise).
         */
        public Builder eviction(Eviction rule) {
            this.eviction = java.util.Objects.requireNonNull(rule);
            return this;
        }

        /** The devices take the catalog's times multiplied by this (default 1; above 1: slower than profiled). */
        public Builder speed(double factor) {
            if (!(factor > 0) || Double.isInfinite(factor)) throw new IllegalArgumentException("device speed factor must be a positive number, got " + factor);
            this.speed = factor;
            return this;
        }

        /**
         * How the scheduler corrects its latency profiles from the batches that end (default
         * {@link LatencyEstimator.Settings#DEFAULT}, as in the job); {@code null}: never, the
         * catalog's profiles stay.
         */
        public Builder learnLatency(LatencyEstimator.Settings settings) {
            this.learnLatency = settings;
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

        /**
         * Where each run's policy objects come from, by the plan's policy names (default the
         * registry, {@link Policies#create}): a learning environment hands in, under a registry
         * name, a policy of its own whose decisions come from outside; called once per group and run.
         */
        public Builder policies(java.util.function.Function<String, SchedulingPolicy> byName) {
            this.policies = byName;
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
            if (plan != null && (deviceMemorySet || coldStarts.enabled() && coldStarts.deviceMemoryBytes() != plan.deviceMemoryBytes())) {
                throw new IllegalStateException("a plan brings its devices' memory: make the ServingPlan with it rather than setting it on the simulation");
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
