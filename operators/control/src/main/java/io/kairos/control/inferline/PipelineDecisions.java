package io.kairos.control.inferline;

import io.kairos.control.DecisionPublisher;
import io.kairos.core.device.DeviceSlots;
import io.kairos.core.pipeline.PipelineSpec;
import io.kairos.core.pipeline.Stage;
import io.kairos.core.plan.ServingPlan;
import io.kairos.core.scheduling.ConfiguredPolicy;
import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.scheduling.policy.TritonPolicy;
import io.kairos.schema.AssignGroup;
import io.kairos.schema.DecisionOutcome;
import io.kairos.schema.DecisionStatus;
import io.kairos.schema.DevicePlacement;
import io.kairos.schema.SetPlacement;
import io.kairos.schema.SetPolicy;
import io.kairos.sim.pipeline.PipelineConfig;
import io.kairos.sim.pipeline.PipelineEstimator;
import io.kairos.sim.pipeline.StageConfig;
import io.kairos.wire.plan.PipelineActions;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * A planned pipeline configuration as the control decisions that serve it in a job: one serving
 * group per stage, named {@code <pipeline>-<stage>}, with
 * <ol>
 *   <li>a {@code SetPlacement}: the stage's replicas on device slots of its hardware type, taken
 *       from the job's slots of that type in slot order, stage after stage in topological order;</li>
 *   <li>a {@code SetPolicy}: {@code triton} with the stage's max batch, no queue delay, no queue
 *       timeout and no shedding, the group the estimator simulated ({@link PipelineEstimator});</li>
 *   <li>an {@code AssignGroup}: the stage's model routed to the group;</li>
 * </ol>
 * then the pipeline itself ({@code SetPipeline}) with the SLO it was planned for. In this order,
 * so that a model's requests reach its group only once the group has its devices and policy.
 * Given the job's current plan, the stages take slots no other group holds, and the job's default
 * group first gives up those it had (it keeps serving whatever models stay routed to it on the
 * rest); without it, as for a job that has placed nothing, the default group keeps holding the
 * slots too.
 */
public final class PipelineDecisions {
    private PipelineDecisions() {}

    /** A stage's group and the slots it takes. */
    public record StageDevices(String stage, String group, List<Integer> slots) {}

    /** The serving group of {@code stage} of {@code pipeline}. */
    public static String group(PipelineSpec pipeline, String stage) {
        return pipeline.id() + "-" + stage;
    }

    /**
     * The slots each stage takes from the job's {@code devices}, stage after stage in
     * topological order, each type's slots in order.
     *
     * @throws IllegalArgumentException in one line when the job lacks devices of a type, or two
     *                                  stages share a model (the job routes by model: one group each)
     */
    public static List<StageDevices> devices(PipelineSpec pipeline, PipelineConfig config, DeviceSlots devices) {
        return devices(pipeline, config, devices, null);
    }

    /**
     * The slots each stage takes from the job's {@code devices}, stage after stage in topological
     * order, each type's slots in order, skipping the slots that other serving groups of
     * {@code current} hold: a device serves one group, and two groups that both held it would
     * each book it as if it were theirs alone. The job's {@code default} group and the
     * pipeline's own groups (those of an earlier plan of it) give theirs up.
     *
     * @param current the job's plan as its control topic holds it; null: the plan of a job that
     *                has placed nothing, where the default group holds every slot and keeps them
     * @throws IllegalArgumentException in one line when the job lacks free devices of a type
     *                                  (naming the groups that hold the others), or two stages
     *                                  share a model (the job routes by model: one group each)
     */
    public static List<StageDevices> devices(PipelineSpec pipeline, PipelineConfig config, DeviceSlots devices, ServingPlan current) {
        Map<Integer, String> heldBy = current == null ? Map.of() : heldByOthers(pipeline, current);
        Map<String, Integer> needed = config.devicesByType();
        for (Map.Entry<String, Integer> e : needed.entrySet()) {
            List<Integer> ofType = devices.slotsOf(e.getKey());
            Set<String> holders = new TreeSet<>();
            for (int slot : ofType) if (heldBy.containsKey(slot)) holders.add(heldBy.get(slot));
            int free = ofType.size() - (int) ofType.stream().filter(heldBy::containsKey).count();
            if (free < e.getValue()) {
                throw new IllegalArgumentException("the job has " + ofType.size() + " device(s) of type " + e.getKey() + " (--devices " + devices + ")"
                        + (holders.isEmpty() ? "" : ", of which " + (ofType.size() - free) + " held by serving group(s) " + holders)
                        + "; the plan needs " + e.getValue());
            }
        }
        Map<String, String> stageOfModel = new HashMap<>();
        for (Stage s : pipeline.stages()) {
            String other = stageOfModel.putIfAbsent(s.model(), s.name());
            if (other != null) {
                throw new IllegalArgumentException("stages '" + other + "' and '" + s.name() + "' both serve model '" + s.model()
                        + "'; the job routes a model's requests to one serving group, so each stage needs a model of its own");
            }
        }
        Map<String, Integer> next = new HashMap<>();
        List<StageDevices> out = new ArrayList<>();
        for (Map.Entry<String, StageConfig> e : config.stages().entrySet()) {
            StageConfig c = e.getValue();
            List<Integer> free = devices.slotsOf(c.hardwareType()).stream().filter(slot -> !heldBy.containsKey(slot)).toList();
            int from = next.getOrDefault(c.hardwareType(), 0);
            out.add(new StageDevices(e.getKey(), group(pipeline, e.getKey()), List.copyOf(free.subList(from, from + c.replicas()))));
            next.put(c.hardwareType(), from + c.replicas());
        }
        return out;
    }

    /** The slots held by a placed group of {@code current} other than the default group and the pipeline's own, and by which. */
    private static Map<Integer, String> heldByOthers(PipelineSpec pipeline, ServingPlan current) {
        Set<String> own = new TreeSet<>();
        for (Stage s : pipeline.stages()) own.add(group(pipeline, s.name()));
        Map<Integer, String> heldBy = new TreeMap<>();
        current.placedGroups().forEach((group, slots) -> {
            if (group.equals(ServingPlan.DEFAULT_GROUP) || own.contains(group)) return;
            for (int slot : slots) heldBy.putIfAbsent(slot, group);
        });
        return heldBy;
    }

    /**
     * The default group without the slots the stages take, or null when it keeps every slot it
     * has. Its devices keep the models they held; where they held every model (the default
     * group unplaced), they are given the models routed to it that run on their type, less the
     * stages' models, which go to the stages' groups.
     */
    static SetPlacement shrunkDefault(PipelineSpec pipeline, List<StageDevices> stages, ServingPlan current) {
        Set<Integer> taken = new TreeSet<>();
        for (StageDevices d : stages) taken.addAll(d.slots());
        Set<String> stageModels = new TreeSet<>();
        for (Stage s : pipeline.stages()) stageModels.add(s.model());
        List<DevicePlacement> keeps = new ArrayList<>();
        boolean loses = false;
        for (DeviceView v : current.devicesOf(ServingPlan.DEFAULT_GROUP)) {
            if (taken.contains(v.slot())) {
                loses = true;
                continue;
            }
            Set<String> models = new TreeSet<>();
            if (v.models() != null) {
                models.addAll(v.models());
            } else if (current.catalog() != null) {
                for (String m : current.catalog().names()) {
                    if (current.groupOf(m).equals(ServingPlan.DEFAULT_GROUP) && current.catalog().get(m).runsOn(v.hardwareType())) models.add(m);
                }
            }
            models.removeAll(stageModels);
            keeps.add(DevicePlacement.newBuilder().setDevice(v.slot()).setModels(List.copyOf(models)).build());
        }
        return loses ? SetPlacement.newBuilder().setGroup(ServingPlan.DEFAULT_GROUP).setDevices(keeps).build() : null;
    }

    /** A stage's placement: its group's devices are {@code slots}, each holding the stage's model only. */
    public static SetPlacement placement(String group, String model, List<Integer> slots) {
        List<DevicePlacement> placed = new ArrayList<>();
        for (int slot : slots) placed.add(DevicePlacement.newBuilder().setDevice(slot).setModels(List.of(model)).build());
        return SetPlacement.newBuilder().setGroup(group).setDevices(placed).build();
    }

    /** The policy parameters of a stage's group: what the estimator simulated. */
    public static Map<String, String> policyParams(StageConfig c) {
        Map<String, String> params = new LinkedHashMap<>();
        params.put(TritonPolicy.MAX_BATCH, Integer.toString(c.maxBatch()));
        params.put(TritonPolicy.MAX_QUEUE_DELAY_MS, "0");
        params.put(TritonPolicy.QUEUE_TIMEOUT_MS, "0");
        params.put(ConfiguredPolicy.SHED, "false");
        return params;
    }

    /**
     * The actions, in the order to publish them: per stage placement, policy and routing, then
     * the pipeline with {@code sloMicros} as its SLO.
     *
     * @throws IllegalArgumentException as {@link #devices}
     */
    public static List<Object> actions(PipelineSpec pipeline, PipelineConfig config, DeviceSlots devices, long sloMicros) {
        return actions(pipeline, config, devices, sloMicros, null);
    }

    /**
     * The actions, in the order to publish them, into a job whose plan is {@code current}: first
     * the default group gives up the slots the stages take (so that no device is in two groups at
     * once), then per stage placement, policy and routing, then the pipeline.
     *
     * @param current the job's plan as its control topic holds it; null: as {@link #actions(PipelineSpec, PipelineConfig, DeviceSlots, long)},
     *                the stages' groups share their slots with the default group
     * @throws IllegalArgumentException as {@link #devices(PipelineSpec, PipelineConfig, DeviceSlots, ServingPlan)}
     */
    public static List<Object> actions(PipelineSpec pipeline, PipelineConfig config, DeviceSlots devices, long sloMicros, ServingPlan current) {
        List<Object> actions = new ArrayList<>();
        List<StageDevices> placed = devices(pipeline, config, devices, current);
        if (current != null) {
            SetPlacement shrunk = shrunkDefault(pipeline, placed, current);
            if (shrunk != null) actions.add(shrunk);
        }
        for (StageDevices d : placed) {
            String model = pipeline.stage(d.stage()).model();
            actions.add(placement(d.group(), model, d.slots()));
            actions.add(SetPolicy.newBuilder().setGroup(d.group()).setPolicy(PipelineEstimator.POLICY).setParams(policyParams(config.stage(d.stage()))).build());
            actions.add(AssignGroup.newBuilder().setModel(model).setGroup(d.group()).build());
        }
        PipelineSpec planned = new PipelineSpec(pipeline.id(), sloMicros, pipeline.stages(), pipeline.edges());
        actions.add(PipelineActions.action(planned));
        return actions;
    }

    /** Why {@link #publish} stopped: no outcome in time, or a decision the job did not apply. */
    public record Refusal(String line, boolean noOutcome) {}

    /**
     * Publishes {@code actions} in order through {@code publisher}, waiting up to {@code wait} for
     * the job's outcome of each before the next (not at all when {@code wait} is zero), and tells
     * {@code progress} of each ({@code applied <key> (<writer>/<version>)}). Stops at the first
     * that is not applied.
     *
     * @return null when every decision was applied (or none waited for), else why not in one line
     */
    public static Refusal publish(DecisionPublisher publisher, List<Object> actions, Duration wait, Consumer<String> progress) {
        for (Object action : actions) {
            DecisionPublisher.Published sent = publisher.publish(action);
            String which = sent.key() + " (" + sent.writer() + "/" + sent.version() + ")";
            if (wait.isZero()) {
                progress.accept("published " + which);
                continue;
            }
            Optional<DecisionOutcome> outcome = publisher.awaitOutcome(sent, wait);
            if (outcome.isEmpty()) return new Refusal("published " + which + ", but no outcome within " + wait.toMillis() + " ms: is the job running?", true);
            DecisionOutcome o = outcome.get();
            if (o.getStatus() != DecisionStatus.APPLIED) {
                return new Refusal(o.getStatus().name().toLowerCase(Locale.ROOT) + " " + which + ": " + o.getReason(), false);
            }
            progress.accept("applied " + which);
        }
        return null;
    }
}
