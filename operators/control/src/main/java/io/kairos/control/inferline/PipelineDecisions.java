package io.kairos.control.inferline;

import io.kairos.control.DecisionPublisher;
import io.kairos.core.device.DeviceSlots;
import io.kairos.core.pipeline.PipelineSpec;
import io.kairos.core.pipeline.Stage;
import io.kairos.core.plan.PipelineActions;
import io.kairos.core.scheduling.ConfiguredPolicy;
import io.kairos.core.scheduling.policy.DynamicBatcherPolicy;
import io.kairos.schema.AssignGroup;
import io.kairos.schema.DecisionOutcome;
import io.kairos.schema.DecisionStatus;
import io.kairos.schema.DevicePlacement;
import io.kairos.schema.SetPlacement;
import io.kairos.schema.SetPolicy;
import io.kairos.sim.pipeline.PipelineConfig;
import io.kairos.sim.pipeline.PipelineEstimator;
import io.kairos.sim.pipeline.StageConfig;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
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
 * Other groups' placements are left as they are: the job's default group may keep holding the
 * slots too, and serves whatever models stay routed to it.
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
        Map<String, Integer> needed = config.devicesByType();
        for (Map.Entry<String, Integer> e : needed.entrySet()) {
            int has = devices.slotsOf(e.getKey()).size();
            if (has < e.getValue()) {
                throw new IllegalArgumentException("the job has " + has + " device(s) of type " + e.getKey() + " (--devices " + devices
                        + "); the plan needs " + e.getValue());
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
            List<Integer> ofType = devices.slotsOf(c.hardwareType());
            int from = next.getOrDefault(c.hardwareType(), 0);
            out.add(new StageDevices(e.getKey(), group(pipeline, e.getKey()), List.copyOf(ofType.subList(from, from + c.replicas()))));
            next.put(c.hardwareType(), from + c.replicas());
        }
        return out;
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
        params.put(DynamicBatcherPolicy.MAX_BATCH, Integer.toString(c.maxBatch()));
        params.put(DynamicBatcherPolicy.MAX_QUEUE_DELAY_MS, "0");
        params.put(DynamicBatcherPolicy.QUEUE_TIMEOUT_MS, "0");
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
        List<Object> actions = new ArrayList<>();
        for (StageDevices d : devices(pipeline, config, devices)) {
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
