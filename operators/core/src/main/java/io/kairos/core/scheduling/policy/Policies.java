package io.kairos.core.scheduling.policy;

import io.kairos.core.api.Internal;
import io.kairos.core.scheduling.ConfiguredPolicy;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.core.scheduling.SchedulingPolicy;
import io.kairos.core.scheduling.learned.AgentPolicy;

import io.kairos.core.scheduling.PolicyProvider;

import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * Every scheduling policy by the name that configuration and control decisions use: Kairos' own,
 * and those of the {@link PolicyProvider}s on the classpath.
 */
@Internal
public final class Policies {
    private static final Map<String, Supplier<SchedulingPolicy>> BY_NAME = Map.ofEntries(
            entry(LatestStartPolicy.CLOCKWORK, LatestStartPolicy::clockwork),
            entry(TritonPolicy.NAME, TritonPolicy::new),
            entry(FlexPolicy.NAME, FlexPolicy::new),
            entry(LatestStartPolicy.KAIROS, LatestStartPolicy::kairos),
            entry(OneAtATimePolicy.FIFO, OneAtATimePolicy::fifo),
            entry(OneAtATimePolicy.EDF, OneAtATimePolicy::edf),
            entry(SmdpPolicy.NAME, SmdpPolicy::new),
            entry(StaticBatchPolicy.NAME, StaticBatchPolicy::new),
            entry(WorkConservingPolicy.NAME, WorkConservingPolicy::new),
            entry(AgentPolicy.RL, AgentPolicy::rl),
            entry(AgentPolicy.RANDOM, AgentPolicy::random));

    // The providers' policies by name, found on the first ask.
    private static volatile Map<String, PolicyProvider> provided;

    private Policies() {}

    /**
     * The policies that {@link PolicyProvider}s on the classpath add, found once with Java's
     * {@link ServiceLoader} (the thread's context class loader: in a Flink job, the job's).
     *
     * @throws IllegalStateException when a provider names a policy of Kairos' own or one another
     *         provider names: which one to serve would be a guess
     */
    private static Map<String, PolicyProvider> provided() {
        Map<String, PolicyProvider> found = provided;
        if (found != null) return found;
        Map<String, PolicyProvider> byName = new TreeMap<>();
        for (PolicyProvider p : ServiceLoader.load(PolicyProvider.class)) {
            String name = p.name();
            if (BY_NAME.containsKey(name)) {
                throw new IllegalStateException("policy provider " + p.getClass().getName() + " names its policy '" + name + "', a policy of Kairos' own");
            }
            PolicyProvider other = byName.putIfAbsent(name, p);
            if (other != null) {
                throw new IllegalStateException("policy providers " + other.getClass().getName() + " and " + p.getClass().getName() + " both name a policy '" + name + "'");
            }
        }
        provided = found = Map.copyOf(byName);
        return found;
    }

    private static Map.Entry<String, Supplier<SchedulingPolicy>> entry(String name, Supplier<SchedulingPolicy> make) {
        return Map.entry(name, make);
    }

    public static SchedulingPolicy create(String name) {
        Supplier<SchedulingPolicy> make = BY_NAME.get(name);
        if (make != null) return make.get();
        PolicyProvider provider = provided().get(name);
        if (provider == null) throw new IllegalArgumentException("unknown scheduling policy '" + name + "'; known: " + names());
        SchedulingPolicy policy = provider.create();
        if (policy == null || !name.equals(policy.name())) {
            throw new IllegalStateException("policy provider " + provider.getClass().getName() + " made " + (policy == null ? "no policy" : "a policy named '" + policy.name() + "'")
                    + " for '" + name + "'");
        }
        return policy;
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

    /** Every policy's name, Kairos' own and the providers', sorted. */
    public static List<String> names() {
        return java.util.stream.Stream.concat(BY_NAME.keySet().stream(), provided().keySet().stream()).sorted().toList();
    }
}
