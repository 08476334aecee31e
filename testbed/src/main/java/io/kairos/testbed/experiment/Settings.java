package io.kairos.testbed.experiment;

import io.kairos.core.scheduling.policy.Policies;
import io.kairos.sim.Invocation;
import io.kairos.sim.Simulation;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What every run of an experiment shares: how long it simulates, how much of that is warm-up,
 * how many seeds each point is run with, which policies, and when the policy is invoked. Each
 * experiment has its own defaults ({@link Experiment#defaults()}); the command line overrides them.
 */
public record Settings(double durationSeconds, double warmupSeconds, int seeds, List<String> policies, Invocation invocation,
                       boolean tritonGrid) {

    public Settings {
        if (!(durationSeconds > 0) || Double.isInfinite(durationSeconds)) {
            throw new Invalid(Invalid.DURATION, "duration must be a positive number of seconds, got " + durationSeconds);
        }
        if (!(warmupSeconds >= 0) || warmupSeconds >= durationSeconds) {
            throw new Invalid(Invalid.WARMUP, "warm-up must be at least 0 s and shorter than the duration (" + plain(durationSeconds) + " s), got " + plain(warmupSeconds));
        }
        if (seeds < 1) throw new Invalid(Invalid.SEEDS, "seeds must be at least 1, got " + seeds);
        if (policies.isEmpty()) throw new Invalid(Invalid.POLICIES, "at least one policy is needed");
        for (String p : policies) {
            if (!Policies.names().contains(p)) throw new Invalid(Invalid.POLICIES, "policy '" + p + "' is unknown; known: " + Policies.names());
        }
        policies = List.copyOf(policies);
    }

    /** With {@code triton} tuned over {@link TritonGrid} at every point. */
    public Settings(double durationSeconds, double warmupSeconds, int seeds, List<String> policies, Invocation invocation) {
        this(durationSeconds, warmupSeconds, seeds, policies, invocation, true);
    }

    /**
     * Every registered policy but {@code smdp}, {@code rl} and {@code random}, invoked on events:
     * what an experiment runs unless told otherwise. {@code smdp} serves from tables that control
     * decisions deliver; without them it is {@code work-conserving} again ({@code experiment smdp}
     * runs it with its tables). {@code rl} and {@code random} are the RL thesis' agents, invoked
     * every 1 ms as the thesis does, and its network is trained on one workload: asked for by name
     * ({@code --policies}).
     */
    public static Settings of(double durationSeconds, double warmupSeconds, int seeds) {
        List<String> policies = Policies.names().stream().filter(p -> !NOT_BY_DEFAULT.contains(p)).toList();
        return new Settings(durationSeconds, warmupSeconds, seeds, policies, Invocation.onEvents());
    }

    /** Registered policies an experiment runs only when asked for by name. */
    static final java.util.Set<String> NOT_BY_DEFAULT = java.util.Set.of("smdp", "rl", "random");

    public Settings withSeeds(int n) {
        return new Settings(durationSeconds, warmupSeconds, n, policies, invocation, tritonGrid);
    }

    public Settings withPolicies(List<String> names) {
        return new Settings(durationSeconds, warmupSeconds, seeds, names, invocation, tritonGrid);
    }

    public Settings withInvocation(Invocation i) {
        return new Settings(durationSeconds, warmupSeconds, seeds, policies, i, tritonGrid);
    }

    /** {@code triton} run with each setting of {@link TritonGrid} and the best kept (true), or once with its defaults. */
    public Settings withTritonGrid(boolean grid) {
        return new Settings(durationSeconds, warmupSeconds, seeds, policies, invocation, grid);
    }

    /** The seeds of the runs of one point: 1, 2, ..., {@link #seeds}. */
    /**
     * The seed that tunes a baseline's knobs (Triton's grid): never one of the measured seeds
     * 1..{@link #seeds}, so that no setting is chosen on the runs that judge it.
     */
    public static final long TUNING_SEED = 0;

    public List<Long> seedValues() {
        List<Long> out = new ArrayList<>();
        for (long s = 1; s <= seeds; s++) out.add(s);
        return out;
    }

    /** Sets what is shared onto one run's builder: duration, warm-up, invocation and the seed. */
    public Simulation.Builder apply(Simulation.Builder b, long seed) {
        return b.duration(Math.round(durationSeconds * 1e6)).warmup(Math.round(warmupSeconds * 1e6))
                .invocation(invocation).seed(seed);
    }

    /** {@code events}, or the period in milliseconds ({@code 1ms}) or microseconds ({@code 500us}). */
    public static Invocation parseInvocation(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        if (t.equals("events")) return Invocation.onEvents();
        try {
            if (t.endsWith("us")) return Invocation.every(Long.parseLong(t.substring(0, t.length() - 2)));
            if (t.endsWith("ms")) return Invocation.every(Math.multiplyExact(Long.parseLong(t.substring(0, t.length() - 2)), 1000L));
        } catch (IllegalArgumentException | ArithmeticException e) {
            // reported below
        }
        throw new Invalid(Invalid.INVOCATION, "invocation must be 'events' or a positive period such as 1ms or 500us, got '" + text + "'");
    }

    /** The label of {@link #invocation} in results and tables: {@code events}, {@code 1ms}, {@code 500us}. */
    public String invocationLabel() {
        if (!invocation.periodic()) return "events";
        long us = invocation.periodMicros();
        return us % 1000 == 0 ? (us / 1000) + "ms" : us + "us";
    }

    static String plain(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }

    /** A setting that cannot be; {@link #setting} says which, so that a command line can name its flag. */
    public static final class Invalid extends IllegalArgumentException {
        public static final String DURATION = "duration";
        public static final String WARMUP = "warm-up";
        public static final String SEEDS = "seeds";
        public static final String POLICIES = "policies";
        public static final String INVOCATION = "invocation";

        private final String setting;

        public Invalid(String setting, String message) {
            super(message);
            this.setting = setting;
        }

        public String setting() {
            return setting;
        }
    }
}
