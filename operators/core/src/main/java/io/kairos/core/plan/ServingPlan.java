package io.kairos.core.plan;

import io.kairos.core.api.Internal;
import io.kairos.core.device.DeviceSlots;
import io.kairos.core.device.Eviction;
import io.kairos.core.model.HardwareType;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.model.ModelSpec;
import io.kairos.core.pipeline.PipelineSpec;
import io.kairos.core.scheduling.BatchingTable;
import io.kairos.core.scheduling.ConfiguredPolicy;
import io.kairos.core.scheduling.ControlInputs;
import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.core.scheduling.PublishedNetwork;
import io.kairos.core.scheduling.policy.Policies;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.TreeMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which serving group each model belongs to, which devices each group has and which models each
 * device holds, each group's scheduling policy, its models' batching tables and the network its
 * learned policy decides with, and the pipelines
 * of models it serves ({@link PipelineSpec}). Each device is of a hardware type ({@link
 * DeviceSlots}); a model goes only on devices of types it has a profile for. Starts from a default (every model in one group
 * holding every device) and changes only through control decisions (the wire module's {@code Decisions}); which
 * decisions are applied, and which are replays, is the {@code DecisionLedger}'s to say.
 */
@Internal
public final class ServingPlan {
    public static final String DEFAULT_GROUP = "default";

    private final int deviceCount;
    // Each slot's hardware type; null: every slot of the catalog's first type.
    private final DeviceSlots slots;
    private final long deviceMemoryBytes;
    private final String defaultPolicy;
    private final PolicyParams defaultParams;
    private final Map<String, String> groupOfModel = new HashMap<>();
    private final Map<String, Map<Integer, Set<String>>> placement = new HashMap<>();
    private final Map<String, GroupPolicy> policies = new HashMap<>();
    private final Map<String, Map<String, BatchingTable>> tables = new HashMap<>();
    private final Map<String, PipelineSpec> pipelines = new TreeMap<>();
    private final Map<String, PublishedNetwork> networks = new HashMap<>();
    private final ModelCatalog catalog;
    // The devices' eviction rule, which the views of them replay.
    private Eviction deviceEviction = Eviction.LRU;
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
     * @throws IllegalArgumentException also for a model of the catalog larger than the devices'
     *         memory, naming the model and both sizes
     */
    public ServingPlan(int deviceCount, long deviceMemoryBytes, String defaultPolicy, PolicyParams defaultParams, ModelCatalog catalog) {
        this(deviceCount, null, deviceMemoryBytes, defaultPolicy, defaultParams, catalog);
    }

    /**
     * A plan on device slots of given hardware types: a placement that puts a model on a device of a
     * type it has no profile for is refused.
     *
     * @throws IllegalArgumentException also for a slot of a type the catalog lacks
     */
    public ServingPlan(DeviceSlots slots, long deviceMemoryBytes, String defaultPolicy, PolicyParams defaultParams, ModelCatalog catalog) {
        this(slots.count(), slots, deviceMemoryBytes, defaultPolicy, defaultParams, catalog);
    }

    private ServingPlan(int deviceCount, DeviceSlots slots, long deviceMemoryBytes, String defaultPolicy, PolicyParams defaultParams, ModelCatalog catalog) {
        Policies.configure(null, defaultPolicy, defaultParams);
        if (slots != null && catalog != null) {
            for (int slot = 0; slot < slots.count(); slot++) {
                if (catalog.hardwareType(slots.typeOf(slot)) == null) {
                    throw new IllegalArgumentException("device " + slot + " is of hardware type '" + slots.typeOf(slot) + "', which the model catalog lacks (it has "
                            + catalog.hardwareTypes().stream().map(HardwareType::name).toList() + ")");
                }
            }
        }
        if (catalog != null) {
            for (ModelSpec spec : catalog.all()) refuseLargerThanMemory(spec, deviceMemoryBytes, "the catalog");
        }
        this.deviceCount = deviceCount;
        this.slots = slots;
        this.deviceMemoryBytes = deviceMemoryBytes;
        this.defaultPolicy = defaultPolicy;
        this.defaultParams = defaultParams;
        this.catalog = catalog;
    }

    /** An independent copy: the same groups, placements, policies, tables and versions, to change apart (a simulation run). */
    public ServingPlan copy() {
        ServingPlan c = new ServingPlan(deviceCount, slots, deviceMemoryBytes, defaultPolicy, defaultParams, catalog);
        c.groupOfModel.putAll(groupOfModel);
        placement.forEach((group, devices) -> c.placement.put(group, new TreeMap<>(devices)));
        c.policies.putAll(policies);
        tables.forEach((group, byModel) -> c.tables.put(group, Map.copyOf(byModel)));
        c.pipelines.putAll(pipelines);
        c.networks.putAll(networks);
        c.version = version;
        c.deviceEviction = deviceEviction;
        return c;
    }

    /**
     * The devices evict by {@code eviction} (default {@link Eviction#LRU}), as they are configured:
     * the views of them this plan makes replay it. Returns this plan.
     */
    public ServingPlan deviceEviction(Eviction eviction) {
        this.deviceEviction = java.util.Objects.requireNonNull(eviction);
        return this;
    }

    /** The devices' eviction rule. */
    public Eviction deviceEviction() {
        return deviceEviction;
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

    /**
     * The hardware type of device {@code slot}; {@code null} when the plan was given a count of
     * devices and no catalog (then it is the first type of whatever catalog serves).
     */
    public String hardwareTypeOf(int slot) {
        if (slot < 0 || slot >= deviceCount) throw new IndexOutOfBoundsException("device " + slot + " of " + deviceCount);
        if (slots != null) return slots.typeOf(slot);
        return catalog == null ? null : catalog.firstHardwareType().name();
    }

    /** The device slots with their types; {@code null} when the plan has no device or does not know their types (see {@link #hardwareTypeOf}). */
    public DeviceSlots deviceSlots() {
        if (slots != null) return slots;
        return catalog == null || deviceCount == 0 ? null : DeviceSlots.of(deviceCount, catalog);
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

    /** The groups with a placement, each with its devices in slot order; a group without one (it holds every device) is not here. */
    public Map<String, java.util.SortedSet<Integer>> placedGroups() {
        Map<String, java.util.SortedSet<Integer>> out = new TreeMap<>();
        placement.forEach((group, devices) -> out.put(group, new java.util.TreeSet<>(devices.keySet())));
        return out;
    }

    /** The group's devices; a group without a placement has every device, holding every model. */
    public List<DeviceView> devicesOf(String group) {
        Map<Integer, Set<String>> devices = placement.get(group);
        List<DeviceView> views = new ArrayList<>();
        if (devices == null) {
            for (int slot = 0; slot < deviceCount; slot++) views.add(new DeviceView(slot, null, deviceMemoryBytes, hardwareTypeOf(slot), deviceEviction));
        } else {
            devices.forEach((slot, models) -> views.add(new DeviceView(slot, models, deviceMemoryBytes, hardwareTypeOf(slot), deviceEviction)));
        }
        return views;
    }

    /**
     * A model no device can ever load (its memory larger than every device's) is refused when it
     * arrives, rather than failing every batch of it later.
     */
    private static void refuseLargerThanMemory(ModelSpec spec, long deviceMemoryBytes, String where) {
        if (spec.hasLoadCost() && spec.memoryBytes() > deviceMemoryBytes) {
            throw new IllegalArgumentException(where + ": model '" + spec.name() + "' needs " + spec.memoryBytes()
                    + " bytes of device memory, more than every device's " + deviceMemoryBytes + " bytes");
        }
    }

    /**
     * Places models on a group's devices.
     *
     * @throws IllegalArgumentException for a device the job lacks, or, where the plan has a
     *         catalog, a model put on a device of a hardware type it has no profile for (naming
     *         the model, the device and the type); the plan is then unchanged (a model larger than
     *         the devices' memory was refused with the catalog)
     */
    public void place(String group, Map<Integer, Set<String>> devices) {
        for (Map.Entry<Integer, Set<String>> e : devices.entrySet()) {
            int slot = e.getKey();
            if (slot < 0 || slot >= deviceCount) {
                throw new IllegalArgumentException("device " + slot + " does not exist: the job has devices 0.." + (deviceCount - 1));
            }
            if (catalog == null || e.getValue() == null) continue;
            String type = hardwareTypeOf(slot);
            for (String model : new java.util.TreeSet<>(e.getValue())) {
                ModelSpec spec = catalog.get(model);
                if (spec != null && !spec.runsOn(type)) {
                    throw new IllegalArgumentException("model '" + model + "' cannot go on device " + slot + ": the device is of hardware type '" + type
                            + "', on which the model has no profile (it has profiles on " + spec.hardwareTypes() + ")");
                }
            }
        }
        // In slot order, whatever the order given: the order of a group's devices decides ties
        // between idle devices, and a run must not depend on a map's iteration order.
        placement.put(group, new TreeMap<>(devices));
        version++;
    }

    /**
     * Whether some group keeps {@code model} on device {@code slot}: a group whose placement lists
     * the model there, or a group that holds the device with every model (no placement, or a
     * device placed without a model list) and to which the model is routed. A device loses a
     * model from its memory when no group keeps it there (the job unloads it).
     */
    public boolean keeps(int slot, String model) {
        String routed = groupOf(model);
        for (Map.Entry<String, Map<Integer, Set<String>>> g : placement.entrySet()) {
            if (!g.getValue().containsKey(slot)) continue;
            Set<String> models = g.getValue().get(slot);
            if (models == null ? routed.equals(g.getKey()) : models.contains(model)) return true;
        }
        // The default group without a placement holds every device with every model.
        return routed.equals(DEFAULT_GROUP) && !placement.containsKey(DEFAULT_GROUP);
    }

    /**
     * The devices no serving group holds a model on: released, they cost nothing. A device is
     * held by a group that places models on it, or that holds it with every model while some model
     * is routed to the group (the default group: while some model of the catalog is not routed
     * elsewhere, or always without a catalog). In slot order.
     */
    public List<Integer> releasedDevices() {
        Set<String> serving = new java.util.HashSet<>(groupOfModel.values());
        if (catalog == null || catalog.names().stream().anyMatch(m -> groupOf(m).equals(DEFAULT_GROUP))) serving.add(DEFAULT_GROUP);
        boolean[] held = new boolean[deviceCount];
        if (!placement.containsKey(DEFAULT_GROUP) && serving.contains(DEFAULT_GROUP)) java.util.Arrays.fill(held, true);
        placement.forEach((group, devices) -> devices.forEach((slot, models) -> {
            if (models == null ? serving.contains(group) : !models.isEmpty()) held[slot] = true;
        }));
        List<Integer> released = new ArrayList<>();
        for (int slot = 0; slot < deviceCount; slot++) if (!held[slot]) released.add(slot);
        return released;
    }

    /** A group's policy, its parameters, its models' batching tables and its network. */
    public GroupPolicy policyOf(String group) {
        GroupPolicy p = policies.getOrDefault(group, new GroupPolicy(defaultPolicy, defaultParams));
        Map<String, BatchingTable> t = tables.get(group);
        PublishedNetwork n = networks.get(group);
        return t == null && n == null ? p : new GroupPolicy(p.policy(), p.params(), new ControlInputs(t == null ? Map.of() : t, n));
    }

    /**
     * Sets the network a group's learned policy decides with, replacing its previous one. It stays
     * whatever the group's policy: only {@code rl} reads it. Checks are {@code Decisions}'s, before
     * this is called.
     */
    public void setNetwork(String group, PublishedNetwork network) {
        networks.put(group, network);
        version++;
    }

    /** The network delivered to a group, or null. */
    public PublishedNetwork networkOf(String group) {
        return networks.get(group);
    }

    /**
     * Sets a model's batching table in a group, replacing its previous one. The table stays
     * whatever the group's policy: only a policy that batches from tables ({@code smdp}) reads it.
     * Checks are {@code Decisions}'s, before this is called.
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

    /**
     * A group's policy by name, with its parameters, its models' batching tables and the network
     * a decision delivered to it (null: none).
     */
    public record GroupPolicy(String policy, PolicyParams params, ControlInputs inputs) {
        /** No batching tables, no network. */
        public GroupPolicy(String policy, PolicyParams params) {
            this(policy, params, ControlInputs.NONE);
        }

        /** The group's batching tables by model; empty when it has none. */
        public Map<String, BatchingTable> tables() {
            return inputs.tables();
        }

        /** The network delivered to the group, or null. */
        public PublishedNetwork network() {
            return inputs.network();
        }

        /** A fresh policy object with these parameters, tables and network read, for serving group {@code group}. */
        public ConfiguredPolicy configure(String group) {
            return Policies.configure(group, policy, params, inputs);
        }
    }

    /**
     * Serves {@code spec} under its id, replacing the pipeline of that id. Checks are
     * {@code Decisions}'s, before this is called.
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
