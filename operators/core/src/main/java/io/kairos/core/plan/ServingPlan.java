package io.kairos.core.plan;

import io.kairos.core.model.ModelCatalog;
import io.kairos.core.pipeline.PipelineSpec;
import io.kairos.core.scheduling.BatchingTable;
import io.kairos.core.scheduling.ConfiguredPolicy;
import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.core.scheduling.policy.Policies;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.TreeMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which serving group each model belongs to, which devices each group has and which models each
 * device holds, each group's scheduling policy, its models' batching tables, and the pipelines
 * of models it serves ({@link PipelineSpec}). Starts from a default (every model in one group
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
    private final Map<String, Map<String, BatchingTable>> tables = new HashMap<>();
    private final Map<String, PipelineSpec> pipelines = new TreeMap<>();
    private final ModelCatalog catalog;
    private long version; // counts the changes, so that a reader can tell that the plan moved on

    /** A plan whose devices have unbounded model memory. */
    public ServingPlan(int deviceCount, String defaultPolicy, PolicyParams defaultParams) {
        this(deviceCount, Long.MAX_VALUE, defaultPolicy, defaultParams);
    }

    /**
     * @param deviceMemoryBytes the model memory budget of each device, as the devices are configured
     * @throws IllegalArgumentException for an unknown default policy or a bad default parameter
     */
    public ServingPlan(int deviceCount, long deviceMemoryBytes, String defaultPolicy, PolicyParams defaultParams) {
        this(deviceCount, deviceMemoryBytes, defaultPolicy, defaultParams, null);
    }

    /**
     * @param catalog the models the job serves, against which decisions that name a model are
     *                checked (a batching table's model and sizes); null: names are not checked
     *                against a catalog (a plan shown without the job's catalog)
     */
    public ServingPlan(int deviceCount, long deviceMemoryBytes, String defaultPolicy, PolicyParams defaultParams, ModelCatalog catalog) {
        Policies.configure(null, defaultPolicy, defaultParams);
        this.deviceCount = deviceCount;
        this.deviceMemoryBytes = deviceMemoryBytes;
        this.defaultPolicy = defaultPolicy;
        this.defaultParams = defaultParams;
        this.catalog = catalog;
    }

    /** An independent copy: the same groups, placements, policies, tables and versions, to change apart (a simulation run). */
    public ServingPlan copy() {
        ServingPlan c = new ServingPlan(deviceCount, deviceMemoryBytes, defaultPolicy, defaultParams, catalog);
        c.groupOfModel.putAll(groupOfModel);
        placement.forEach((group, devices) -> c.placement.put(group, new TreeMap<>(devices)));
        c.policies.putAll(policies);
        tables.forEach((group, byModel) -> c.tables.put(group, Map.copyOf(byModel)));
        c.pipelines.putAll(pipelines);
        c.version = version;
        return c;
    }

    /** The model memory budget of each device, as the devices are configured. */
    public long deviceMemoryBytes() {
        return deviceMemoryBytes;
    }

    /** The models the job serves, or null when the plan does not check names against a catalog. */
    public ModelCatalog catalog() {
        return catalog;
    }

    /** How many device slots the plan places models on: 0 to this minus one. */
    public int deviceCount() {
        return deviceCount;
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
        // In slot order, whatever the order given: the order of a group's devices decides ties
        // between idle devices, and a run must not depend on a map's iteration order.
        placement.put(group, new TreeMap<>(devices));
        version++;
    }

    /** A group's policy, its parameters and its models' batching tables. */
    public GroupPolicy policyOf(String group) {
        GroupPolicy p = policies.getOrDefault(group, new GroupPolicy(defaultPolicy, defaultParams));
        Map<String, BatchingTable> t = tables.get(group);
        return t == null ? p : new GroupPolicy(p.policy(), p.params(), t);
    }

    /**
     * Sets a model's batching table in a group, replacing its previous one. The table stays
     * whatever the group's policy: only a policy that batches from tables ({@code smdp}) reads it.
     * Checks are {@link Decisions}'s, before this is called.
     */
    public void setBatchingTable(String group, String model, BatchingTable table) {
        Map<String, BatchingTable> byModel = new HashMap<>(tables.getOrDefault(group, Map.of()));
        byModel.put(model, table);
        tables.put(group, Map.copyOf(byModel));
        version++;
    }

    /** A group's batching tables by model; empty when it has none. */
    public Map<String, BatchingTable> tablesOf(String group) {
        return tables.getOrDefault(group, Map.of());
    }

    /**
     * Sets a group's policy and parameters, or with {@code model} set, that model's parameter
     * overrides (the group keeps its policy). The group's parameters are replaced, not merged; its
     * models' overrides stay while the policy stays, and go with a change of policy, whose
     * parameters they are not.
     *
     * @throws IllegalArgumentException for an unknown policy, a bad value or a parameter the
     *         policy does not know, naming the group, the model, the parameter and the value; the
     *         plan is then unchanged
     */
    public void setPolicy(String group, String model, String policy, Map<String, String> params) {
        GroupPolicy current = policyOf(group);
        GroupPolicy next;
        if (model == null) {
            PolicyParams kept = policy.equals(current.policy()) ? current.params() : current.params().withoutModels();
            next = new GroupPolicy(policy, kept.withGroup(params));
        } else {
            next = new GroupPolicy(current.policy(), current.params().withModel(model, params));
        }
        next.configure(group);
        policies.put(group, next);
        version++;
    }

    /** A group's policy by name, with its parameters and its models' batching tables. */
    public record GroupPolicy(String policy, PolicyParams params, Map<String, BatchingTable> tables) {
        public GroupPolicy {
            tables = Map.copyOf(tables);
        }

        /** No batching tables. */
        public GroupPolicy(String policy, PolicyParams params) {
            this(policy, params, Map.of());
        }

        /** A fresh policy object with these parameters and tables read, for serving group {@code group}. */
        public ConfiguredPolicy configure(String group) {
            return Policies.configure(group, policy, params, tables);
        }
    }

    /**
     * Serves {@code spec} under its id, replacing the pipeline of that id. Checks are
     * {@link Decisions}'s, before this is called.
     */
    public void setPipeline(PipelineSpec spec) {
        pipelines.put(spec.id(), spec);
        version++;
    }

    /** Stops serving the pipeline {@code id}; returns whether there was one. */
    public boolean removePipeline(String id) {
        boolean removed = pipelines.remove(id) != null;
        if (removed) version++;
        return removed;
    }

    /** The pipeline of that id, or null. */
    public PipelineSpec pipeline(String id) {
        return pipelines.get(id);
    }

    /** The pipelines served, by id. */
    public Map<String, PipelineSpec> pipelines() {
        return java.util.Collections.unmodifiableMap(pipelines);
    }
}
