package io.kairos.control.status;

import io.kairos.core.pipeline.Edge;
import io.kairos.core.pipeline.PipelineSpec;
import io.kairos.core.pipeline.Stage;
import io.kairos.core.pipeline.StageCondition;
import io.kairos.core.plan.ServingPlan;
import io.kairos.core.scheduling.BatchingTable;
import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.scheduling.PublishedNetwork;
import io.kairos.schema.AssignGroup;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.SetBatchingTable;
import io.kairos.schema.SetPlacement;
import io.kairos.schema.SetPolicy;
import io.kairos.schema.SetPolicyNetwork;
import io.kairos.wire.plan.DecisionLedger;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What a serving plan holds, for people to read: each serving group with its policy, parameters
 * and devices (and the models each device holds), then the routing of models to groups, then the
 * pipelines of models. Taken
 * from a {@link DecisionLedger}, the one that decides decisions in the job, so that what is shown
 * is what the job holds ({@code kairos control show} prints it, the status page shows it).
 *
 * @param groups  the default group and every group a decision names, in name order
 * @param routing each model a decision routes, to its group, in model order; every other model
 *                goes to {@link #defaultGroup}
 * @param version how many changes the plan has taken ({@link ServingPlan#version})
 * @param pipelines the pipelines served, in id order
 * @param released  the devices no group holds a model on ({@link ServingPlan#releasedDevices}): they
 *                  cost nothing (a tuner that shrank a stage gave them back), in slot order
 */
public record PlanView(List<Group> groups, Map<String, String> routing, String defaultGroup, long version, List<Pipeline> pipelines,
                       List<Device> released) {

    /**
     * A pipeline as text: its SLO, its stages ({@code name (model)}, the entry first, then in a
     * topological order, with a budget where it has one) and its edges ({@code from -> to},
     * the probability, the condition).
     */
    public record Pipeline(String id, double sloP99Ms, String entry, List<String> stages, List<String> edges) {
        static Pipeline of(PipelineSpec spec) {
            List<String> stages = new ArrayList<>();
            for (String name : spec.topologicalOrder()) {
                Stage s = spec.stage(name);
                stages.add(name + " (" + s.model() + (s.hasBudget() ? ", budget " + plain(s.budgetMicros() / 1000.0) + " ms" : "") + ")");
            }
            List<String> edges = new ArrayList<>();
            for (Edge e : spec.edges()) {
                String when = e.condition() instanceof StageCondition.OutputMaxBelow c ? ", when the output's max is below " + plain(c.threshold())
                        : e.condition() instanceof StageCondition.OutputArgmaxIn c ? ", when the output's argmax is in " + c.sortedClasses() : "";
                edges.add(e.from() + " -> " + e.to() + " (p " + plain(e.probability()) + when + ")");
            }
            return new Pipeline(spec.id(), spec.sloP99Micros() / 1000.0, spec.entry().name(), List.copyOf(stages), List.copyOf(edges));
        }
    }

    /**
     * @param params      the group's parameters (the job's default ones until a decision sets them)
     * @param modelParams per-model overrides of the parameters, by model
     * @param tables      each model's batching table (what the {@code smdp} policy serves from), as text with
     *                    what it was solved for, by model
     * @param network     the network a decision delivered to the group (what {@code rl} decides with), as its
     *                    name, digest and size; null when none did
     */
    public record Group(String name, String policy, Map<String, String> params, Map<String, Map<String, String>> modelParams,
                        List<Device> devices, Map<String, String> tables, String network) {
        /** A group no network was delivered to. */
        public Group(String name, String policy, Map<String, String> params, Map<String, Map<String, String>> modelParams,
                     List<Device> devices, Map<String, String> tables) {
            this(name, policy, params, modelParams, devices, tables, null);
        }
    }

    /**
     * A device slot of a group and the models it holds; {@code everyModel}: no placement limits it
     * (models empty). {@code hardwareType}: the slot's type, null where the plan does not know it
     * (given a number of devices and no catalog).
     */
    public record Device(int slot, boolean everyModel, List<String> models, String hardwareType) {
        /** A slot whose type is not known. */
        public Device(int slot, boolean everyModel, List<String> models) {
            this(slot, everyModel, models, null);
        }

        /** {@code 2} or, where the type is known, {@code 2 (gpu-t4)}. */
        public String label() {
            return hardwareType == null ? Integer.toString(slot) : slot + " (" + hardwareType + ")";
        }
    }

    public static PlanView of(DecisionLedger ledger) {
        ServingPlan plan = ledger.plan();
        TreeSet<String> names = new TreeSet<>(List.of(ServingPlan.DEFAULT_GROUP));
        Map<String, String> routing = new TreeMap<>();
        Map<String, Map<String, SetBatchingTable>> tableDecisions = new TreeMap<>();
        for (ControlDecision d : ledger.current()) {
            Object action = d.getAction();
            if (action instanceof SetPolicy p) {
                names.add(p.getGroup());
            } else if (action instanceof SetPlacement p) {
                names.add(p.getGroup());
            } else if (action instanceof AssignGroup a) {
                names.add(a.getGroup());
                routing.put(a.getModel(), plan.groupOf(a.getModel()));
            } else if (action instanceof SetBatchingTable t) {
                names.add(t.getGroup());
                tableDecisions.computeIfAbsent(t.getGroup(), g -> new TreeMap<>()).put(t.getModel(), t);
            } else if (action instanceof SetPolicyNetwork n) {
                names.add(n.getGroup());
            }
        }
        List<Group> groups = new ArrayList<>();
        for (String name : names) {
            ServingPlan.GroupPolicy policy = plan.policyOf(name);
            Map<String, Map<String, String>> modelParams = new TreeMap<>();
            policy.params().perModel().forEach((model, params) -> modelParams.put(model, new TreeMap<>(params)));
            List<Device> devices = new ArrayList<>();
            for (DeviceView device : plan.devicesOf(name)) {
                devices.add(device.models() == null ? new Device(device.slot(), true, List.of(), device.hardwareType())
                        : new Device(device.slot(), false, List.copyOf(new TreeSet<>(device.models())), device.hardwareType()));
            }
            Map<String, String> tables = new TreeMap<>();
            Map<String, BatchingTable> held = plan.tablesOf(name);
            tableDecisions.getOrDefault(name, Map.of()).forEach((model, t) -> {
                if (held.containsKey(model)) tables.put(model, held.get(model) + " (solved for " + plain(t.getArrivalRatePerS()) + " requests/s, w1 "
                        + plain(t.getLatencyWeight()) + ", w2 " + plain(t.getPowerWeight())
                        + (t.getAverageCost() == null ? "" : ", average cost " + plain(t.getAverageCost())) + ")");
            });
            PublishedNetwork network = plan.networkOf(name);
            groups.add(new Group(name, policy.policy(), new TreeMap<>(policy.params().group()), modelParams, devices, tables,
                    network == null ? null : network.toString()));
        }
        List<Pipeline> pipelines = new ArrayList<>();
        plan.pipelines().values().forEach(p -> pipelines.add(Pipeline.of(p)));
        List<Device> released = new ArrayList<>();
        for (int slot : plan.releasedDevices()) released.add(new Device(slot, false, List.of(), plan.hardwareTypeOf(slot)));
        return new PlanView(List.copyOf(groups), routing, ServingPlan.DEFAULT_GROUP, plan.version(), List.copyOf(pipelines), List.copyOf(released));
    }

    /** The plan as lines of text: each group with its policy and devices, then the routing, then the pipelines. */
    public List<String> lines() {
        List<String> lines = new ArrayList<>();
        for (Group g : groups) {
            StringBuilder line = new StringBuilder("group ").append(g.name()).append(": policy ").append(g.policy()).append(' ').append(g.params());
            g.modelParams().forEach((model, params) -> line.append(", ").append(model).append(' ').append(params));
            lines.add(line.toString());
            for (Device d : g.devices()) lines.add("  device " + d.label() + ": " + (d.everyModel() ? "every model" : String.join(", ", d.models())));
            g.tables().forEach((model, table) -> lines.add("  batching table of " + model + ": " + table));
            if (g.network() != null) lines.add("  rl network: " + g.network());
        }
        StringBuilder line = new StringBuilder("routing:");
        routing.forEach((model, group) -> line.append(' ').append(model).append(" -> ").append(group).append(';'));
        lines.add(line.append(" every other model -> ").append(defaultGroup).toString());
        if (!released.isEmpty()) {
            lines.add("released (holding nothing, no cost): device" + (released.size() == 1 ? " " : "s ")
                    + String.join(", ", released.stream().map(Device::label).toList()));
        }
        for (Pipeline p : pipelines) {
            lines.add("pipeline " + p.id() + ": SLO p99 " + plain(p.sloP99Ms()) + " ms; stages " + String.join(", ", p.stages())
                    + (p.edges().isEmpty() ? "" : "; edges " + String.join(", ", p.edges())));
        }
        return lines;
    }

    /** 1000 rather than 1000.0; other numbers to 6 significant digits. */
    static String plain(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v)
                : String.format(java.util.Locale.ROOT, "%.6g", v).replaceAll("\\.?0+$", "");
    }
}
