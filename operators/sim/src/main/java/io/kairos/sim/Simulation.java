package io.kairos.sim;

import io.kairos.core.device.ExecutionModel;
import io.kairos.core.device.ExecutionNoise;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.scheduling.LatencyEstimator;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.core.scheduling.SchedulingPolicy;
import io.kairos.core.scheduling.policy.Policies;
import io.kairos.workload.Workload;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Supplier;

/**
 * A discrete-event simulation of one serving group: requests arrive from a load, wait in the
 * group's per-model queues, and run in batches on devices, all in virtual time, decided by the same
 * {@link io.kairos.core.scheduling.GroupScheduler} and policy objects that run inside the Flink
 * job. Seeded and deterministic: the same simulation run twice gives the same report (wall time
 * aside). Immutable, so one description can be run many times, e.g. by a planner that uses it as
 * its latency estimator.
 *
 * <pre>{@code
 * SimulationReport r = Simulation.builder(catalog)
 *         .devices(6).policy("clockwork").workload(Workload.parse("resnet50:600:12"))
 *         .duration(60_000_000).seed(1).build().run();
 * }</pre>
 */
public final class Simulation {
    private final ModelCatalog catalog;
    private final List<Set<String>> placement;
    private final Supplier<SchedulingPolicy> policy;
    private final String policyName;
    private final PolicyParams params;
    private final ArrivalSource.Load load;
    private final long durationMicros;
    private final long warmupMicros;
    private final Invocation invocation;
    private final ExecutionNoise noise;
    private final double speed;
    private final long deviceMemoryBytes;
    private final LatencyEstimator.Settings learnLatency;
    private final Delay dispatchDelay;
    private final boolean preemption;
    private final long seed;

    private Simulation(Builder b) {
        // Cold starts asked for simply become the catalog's load figures and the devices' memory.
        this.catalog = b.coldStarts.enabled() ? b.coldStarts.applyTo(b.catalog) : b.catalog;
        this.deviceMemoryBytes = b.coldStarts.enabled() ? b.coldStarts.deviceMemoryBytes() : b.deviceMemoryBytes;
        this.placement = Collections.unmodifiableList(new ArrayList<>(b.placement)); // null entries: every model
        this.policy = b.policy;
        this.policyName = b.policyName;
        this.params = b.params;
        this.load = b.load;
        this.durationMicros = b.durationMicros;
        this.warmupMicros = b.warmupMicros;
        this.invocation = b.invocation;
        this.noise = b.noise;
        this.speed = b.speed;
        this.learnLatency = b.learnLatency;
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

    ModelCatalog catalog() {
        return catalog;
    }

    List<Set<String>> placement() {
        return placement;
    }

    SchedulingPolicy newPolicy() {
        return policy.get();
    }

    String policyName() {
        return policyName;
    }

    PolicyParams params() {
        return params;
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

    /** The time model of one device, drawing its noise from {@code random}. */
    ExecutionModel deviceTime(SplittableRandom random) {
        return new ExecutionModel(catalog, speed, noise, deviceMemoryBytes, random);
    }

    long deviceMemoryBytes() {
        return deviceMemoryBytes;
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

    public static final class Builder {
        private final ModelCatalog catalog;
        private List<Set<String>> placement = Collections.nCopies(1, null);
        private Supplier<SchedulingPolicy> policy;
        private String policyName;
        private PolicyParams params = PolicyParams.NONE;
        private ArrivalSource.Load load;
        private long durationMicros = -1;
        private long warmupMicros;
        private Invocation invocation = Invocation.onEvents();
        private ExecutionNoise noise = ExecutionNoise.none();
        private ColdStarts coldStarts = ColdStarts.NONE;
        private double speed = 1;
        private long deviceMemoryBytes = Long.MAX_VALUE;
        private LatencyEstimator.Settings learnLatency = LatencyEstimator.Settings.DEFAULT;
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
            return this;
        }

        /** One device per entry, holding the models of the entry ({@code null}: every model). */
        public Builder placement(List<Set<String>> modelsPerDevice) {
            if (modelsPerDevice.isEmpty()) throw new IllegalArgumentException("a simulation needs at least one device");
            this.placement = new ArrayList<>(modelsPerDevice);
            return this;
        }

        /** A policy of the registry by name, with group-wide parameters. */
        public Builder policy(String name, Map<String, String> groupParams) {
            Policies.create(name); // fails now, with the known names, rather than at run time
            return policy(name, () -> Policies.create(name), PolicyParams.of(groupParams));
        }

        public Builder policy(String name) {
            return policy(name, Map.of());
        }

        /** Any policy; {@code make} is called once per run so that runs share no policy state. */
        public Builder policy(String name, Supplier<SchedulingPolicy> make, PolicyParams params) {
            this.policyName = name;
            this.policy = make;
            this.params = params;
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
         * the catalog says (it replaces the catalog's load figures and the {@link #deviceMemory}).
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

        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        public Simulation build() {
            if (policy == null) throw new IllegalStateException("simulation has no policy");
            if (load == null) throw new IllegalStateException("simulation has no load");
            if (durationMicros < 0) throw new IllegalStateException("simulation has no duration");
            if (warmupMicros >= durationMicros) {
                throw new IllegalStateException("warm-up (" + warmupMicros + " us) must be shorter than the duration (" + durationMicros + " us)");
            }
            return new Simulation(this);
        }
    }
}
