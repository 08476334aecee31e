package io.kairos.core.plan;

import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.scheduling.PolicyParams;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which serving group each model belongs to, which devices each group has and which models each
 * device holds, and each group's scheduling policy. Starts from a default (every model in one group
 * holding every device) and changes only through control decisions ({@link Decisions}); which
 * decisions are applied, and which are replays, is the {@link DecisionLedger}'s to say.
 */
public final class ServingPlan {
    public static final String DEFAULT_GROUP = "default";

    private final int deviceCount;
    private final long deviceMemoryBytes;
    private final String defaultPolicy;
    private final PolicyParams defaultParams;
    private final Map<String, String> groupOfModel = new HashMap<>();
    private final Map<String, Map<Integer, Set<String>>> placement = new HashMap<>();
    private final Map<String, GroupPolicy> policies = new HashMap<>();
    private long version; // counts the changes, so that a reader can tell that the plan moved on

    /** A plan whose devices have unbounded model memory. */
    public ServingPlan(int deviceCount, String defaultPolicy, PolicyParams defaultParams) {
        this(deviceCount, Long.MAX_VALUE, defaultPolicy, defaultParams);
    }

    /** @param deviceMemoryBytes the model memory budget of each device, as the devices are configured */
    public ServingPlan(int deviceCount, long deviceMemoryBytes, String defaultPolicy, PolicyParams defaultParams) {
        this.deviceCount = deviceCount;
        this.deviceMemoryBytes = deviceMemoryBytes;
        this.defaultPolicy = defaultPolicy;
        this.defaultParams = defaultParams;
    }

    /** How many changes the plan has taken: 0 for the default plan, higher after every change. */
    public long version() {
        return version;
    }

    public String groupOf(String model) {
        return groupOfModel.getOrDefault(model, DEFAULT_GROUP);
    }

    public void assign(String model, String group) {
        groupOfModel.put(model, group);
        version++;
    }

    /** The group's devices; a group without a placement has every device, holding every model. */
    public List<DeviceView> devicesOf(String group) {
        Map<Integer, Set<String>> devices = placement.get(group);
        List<DeviceView> views = new ArrayList<>();
        if (devices == null) {
            for (int slot = 0; slot < deviceCount; slot++) views.add(new DeviceView(slot, null, deviceMemoryBytes));
        } else {
            devices.forEach((slot, models) -> views.add(new DeviceView(slot, models, deviceMemoryBytes)));
        }
        return views;
    }

    public void place(String group, Map<Integer, Set<String>> devices) {
        for (int slot : devices.keySet()) {
            if (slot < 0 || slot >= deviceCount) {
                throw new IllegalArgumentException("device " + slot + " does not exist: the job has devices 0.." + (deviceCount - 1));
            }
        }
        placement.put(group, new LinkedHashMap<>(devices));
        version++;
    }

    public GroupPolicy policyOf(String group) {
        return policies.getOrDefault(group, new GroupPolicy(defaultPolicy, defaultParams));
    }

    /** Sets a group's policy and parameters, or with {@code model} set, that model's parameter overrides. */
    public void setPolicy(String group, String model, String policy, Map<String, String> params) {
        GroupPolicy current = policyOf(group);
        if (model == null) {
            policies.put(group, new GroupPolicy(policy, current.params().withGroup(params)));
        } else {
            policies.put(group, new GroupPolicy(current.policy(), current.params().withModel(model, params)));
        }
        version++;
    }

    /** A group's policy by name, with its parameters. */
    public record GroupPolicy(String policy, PolicyParams params) {}
}
