package io.kairos.core.scheduling.policy;

import io.kairos.core.scheduling.ConfiguredPolicy;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.core.scheduling.SchedulingPolicy;
import io.kairos.core.scheduling.learned.AgentPolicy;

import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/** Every scheduling policy by the name that configuration and control decisions use. */
public final class Policies {
    private static final Map<String, Supplier<SchedulingPolicy>> BY_NAME = Map.ofEntries(
            entry(ClockworkPolicy.NAME, ClockworkPolicy::new),
            entry(TritonPolicy.NAME, TritonPolicy::new),
            entry(FlexPolicy.NAME, FlexPolicy::new),
            entry(KairosPolicy.NAME, KairosPolicy::new),
            entry(OneAtATimePolicy.FIFO, OneAtATimePolicy::fifo),
            entry(OneAtATimePolicy.EDF, OneAtATimePolicy::edf),
            entry(SmdpPolicy.NAME, SmdpPolicy::new),
            entry(StaticBatchPolicy.NAME, StaticBatchPolicy::new),
            entry(WorkConservingPolicy.NAME, WorkConservingPolicy::new),
            entry(AgentPolicy.RL, AgentPolicy::rl),
            entry(AgentPolicy.RANDOM, AgentPolicy::random));

    private Policies() {}

    private static Map.Entry<String, Supplier<SchedulingPolicy>> entry(String name, Supplier<SchedulingPolicy> make) {
        return Map.entry(name, make);
    }

    public static SchedulingPolicy create(String name) {
        Supplier<SchedulingPolicy> make = BY_NAME.get(name);
        if (make == null) {
            throw new IllegalArgumentException("unknown scheduling policy '" + name + "'; known: " + names());
        }
        return make.get();
    }

    /**
     * The policy {@code name} configured by {@code params} for serving group {@code group} (null:
     * a default for every group).
     *
     * @throws IllegalArgumentException for an unknown policy, a bad value or an unknown parameter
     */
    public static ConfiguredPolicy configure(String group, String name, PolicyParams params) {
        return ConfiguredPolicy.of(group, create(name), params);
    }

    /** The same, with the group's batching tables and network, for the policies that read them ({@code smdp}, {@code rl}). */
    public static ConfiguredPolicy configure(String group, String name, PolicyParams params, io.kairos.core.scheduling.ControlInputs inputs) {
        return ConfiguredPolicy.of(group, create(name), params, inputs);
    }

    public static List<String> names() {
        return BY_NAME.keySet().stream().sorted().toList();
    }
}
