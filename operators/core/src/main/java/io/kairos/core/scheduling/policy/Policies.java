package io.kairos.core.scheduling.policy;

import io.kairos.core.scheduling.BatchingTable;
import io.kairos.core.scheduling.ConfiguredPolicy;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.core.scheduling.SchedulingPolicy;

import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/** Every scheduling policy by the name that configuration and control decisions use. */
public final class Policies {
    private static final Map<String, Supplier<SchedulingPolicy>> BY_NAME = Map.of(
            ClockworkPolicy.NAME, ClockworkPolicy::new,
            DynamicBatcherPolicy.NAME, DynamicBatcherPolicy::new,
            FlexPolicy.NAME, FlexPolicy::new,
            KairosPolicy.NAME, KairosPolicy::new,
            OneAtATimePolicy.FIFO, OneAtATimePolicy::fifo,
            OneAtATimePolicy.EDF, OneAtATimePolicy::edf,
            SmdpPolicy.NAME, SmdpPolicy::new,
            StaticBatchPolicy.NAME, StaticBatchPolicy::new,
            WorkConservingPolicy.NAME, WorkConservingPolicy::new);

    private Policies() {}

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

    /** The same, with the group's batching tables by model for a policy that reads them ({@code smdp}). */
    public static ConfiguredPolicy configure(String group, String name, PolicyParams params, Map<String, BatchingTable> tables) {
        return ConfiguredPolicy.of(group, create(name), params, tables);
    }

    public static List<String> names() {
        return BY_NAME.keySet().stream().sorted().toList();
    }
}
