package io.kairos.core.scheduling;

/**
 * A serving group's policy with its parameters read into typed fields, and whether the group sheds
 * ({@code shed}, group-wide, known to every policy, default true). What the scheduler runs; made
 * once per change of policy or parameters, so that a bad value is rejected there and nothing
 * parses a parameter while scheduling.
 */
public record ConfiguredPolicy(SchedulingPolicy policy, boolean shed) {

    /** Parameter: shed requests that can no longer meet their deadline (default true). */
    public static final String SHED = "shed";

    /**
     * {@code policy} configured by {@code params} for serving group {@code group} (null: a default
     * for every group).
     *
     * @throws IllegalArgumentException for a bad value or a parameter the policy does not know,
     *         naming the group, the model, the parameter and the value
     */
    public static ConfiguredPolicy of(String group, SchedulingPolicy policy, PolicyParams params) {
        ParamReader reader = new ParamReader(group, policy.name(), params);
        boolean shed = reader.flag(SHED, true);
        SchedulingPolicy configured = policy.configure(reader);
        reader.rejectUnknown();
        return new ConfiguredPolicy(configured, shed);
    }
}
