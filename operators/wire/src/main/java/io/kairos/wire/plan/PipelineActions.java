package io.kairos.wire.plan;

import io.kairos.core.api.Internal;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.pipeline.Edge;
import io.kairos.core.pipeline.PipelineException;
import io.kairos.core.pipeline.PipelineSpec;
import io.kairos.core.pipeline.Stage;
import io.kairos.core.pipeline.StageCondition;
import io.kairos.schema.PipelineCondition;
import io.kairos.schema.PipelineEdge;
import io.kairos.schema.PipelineStage;
import io.kairos.schema.SetPipeline;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * A pipeline spec as the {@link SetPipeline} action that carries it on the control topic, and
 * back. The action's fields are the spec file's, so a problem names the same field either way.
 */
@Internal
public final class PipelineActions {
    private PipelineActions() {}

    /** The action that sets {@code spec}. */
    public static SetPipeline action(PipelineSpec spec) {
        List<PipelineStage> stages = new ArrayList<>();
        for (Stage s : spec.stages()) {
            stages.add(PipelineStage.newBuilder().setName(s.name()).setModel(s.model())
                    .setBudgetMs(s.hasBudget() ? s.budgetMicros() / 1000.0 : null)
                    .setInput(s.readsRequestInput() ? Stage.REQUEST_INPUT : null).build());
        }
        List<PipelineEdge> edges = new ArrayList<>();
        for (Edge e : spec.edges()) {
            PipelineCondition when = null;
            if (e.condition() instanceof StageCondition.OutputMaxBelow c) when = PipelineCondition.newBuilder().setOutputMaxBelow(c.threshold()).build();
            if (e.condition() instanceof StageCondition.OutputArgmaxIn c) when = PipelineCondition.newBuilder().setOutputArgmaxIn(c.sortedClasses()).build();
            edges.add(PipelineEdge.newBuilder().setFrom(e.from()).setTo(e.to()).setProbability(e.probability()).setWhen(when).build());
        }
        return SetPipeline.newBuilder().setPipeline(spec.id()).setSloP99Ms(spec.sloP99Micros() / 1000.0).setStages(stages).setEdges(edges).build();
    }

    /**
     * The spec {@code action} carries, checked as a spec file is, and against {@code catalog}
     * where there is one (its models served, its SLO not below its service time).
     *
     * @throws PipelineException naming the field
     */
    public static PipelineSpec spec(SetPipeline action, ModelCatalog catalog) {
        String at = "pipeline '" + action.getPipeline() + "': ";
        double slo = action.getSloP99Ms();
        if (!(slo > 0) || slo > 365.0 * 24 * 3_600_000) throw new PipelineException(at + "field 'slo_p99_ms' must be a positive number of milliseconds (at most a year), got " + slo);
        List<Stage> stages = new ArrayList<>();
        for (int i = 0; i < action.getStages().size(); i++) {
            PipelineStage s = action.getStages().get(i);
            Double budget = s.getBudgetMs();
            if (budget != null && !(budget > 0 && budget <= 365.0 * 24 * 3_600_000)) {
                throw new PipelineException(at + "field 'stages[" + i + "].budget_ms' must be a positive number of milliseconds (at most a year), got " + budget);
            }
            String input = s.getInput();
            if (input != null && !input.equals(Stage.REQUEST_INPUT) && !input.equals(Stage.PREVIOUS_OUTPUT)) {
                throw new PipelineException(at + "field 'stages[" + i + "].input' must be '" + Stage.PREVIOUS_OUTPUT + "' (the previous stage's output, the default) or '"
                        + Stage.REQUEST_INPUT + "' (the pipeline request's own input), got '" + input + "'");
            }
            stages.add(new Stage(s.getName(), s.getModel(), budget == null ? 0 : Math.max(1, Math.round(budget * 1000)), Stage.REQUEST_INPUT.equals(input)));
        }
        List<Edge> edges = new ArrayList<>();
        for (int i = 0; i < action.getEdges().size(); i++) {
            PipelineEdge e = action.getEdges().get(i);
            edges.add(new Edge(e.getFrom(), e.getTo(), e.getProbability(), condition(e.getWhen(), at + "field 'edges[" + i + "].when'")));
        }
        PipelineSpec spec = new PipelineSpec(action.getPipeline(), Math.max(1, Math.round(slo * 1000)), stages, edges);
        return catalog == null ? spec : spec.validate(catalog);
    }

    private static StageCondition condition(PipelineCondition when, String at) {
        if (when == null) return null;
        boolean max = when.getOutputMaxBelow() != null, argmax = when.getOutputArgmaxIn() != null;
        if (max == argmax) throw new PipelineException(at + " must set exactly one of output_max_below and output_argmax_in");
        try {
            if (max) return new StageCondition.OutputMaxBelow(when.getOutputMaxBelow());
            if (when.getOutputArgmaxIn().stream().anyMatch(java.util.Objects::isNull)) throw new IllegalArgumentException("output_argmax_in: a class index is missing");
            return new StageCondition.OutputArgmaxIn(new LinkedHashSet<>(when.getOutputArgmaxIn()));
        } catch (IllegalArgumentException e) {
            throw new PipelineException(at + ": " + e.getMessage());
        }
    }
}
