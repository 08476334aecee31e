package io.kairos.wire.plan;

import io.kairos.core.model.ModelCatalog;
import io.kairos.core.pipeline.PipelineSpec;
import io.kairos.core.pipeline.Stage;
import io.kairos.core.plan.ServingPlan;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.DecisionOutcome;
import io.kairos.schema.DecisionStatus;
import io.kairos.schema.PipelineCondition;
import io.kairos.schema.PipelineStage;
import io.kairos.schema.RemovePipeline;
import io.kairos.schema.SetPipeline;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** A pipeline as a control decision: its key, its checks against the job's catalog with the reason its producer reads, its removal. */
class PipelineDecisionTest {
    // batch-1 latencies: googlenet 0.3051 + 1.052 = 1.357 ms (1357 us), resnet50 0.8 + 1.9 = 2.7 ms
    private static final ModelCatalog CATALOG = ModelCatalog.builtIn();
    private static final PipelineSpec CASCADE = PipelineSpec.parse("""
            {"pipeline": "cascade", "slo_p99_ms": 50,
             "stages": [{"name": "fast", "model": "googlenet"}, {"name": "slow", "model": "resnet50", "budget_ms": 20}],
             "edges": [{"from": "fast", "to": "slow", "probability": 0.3, "when": {"output_max_below": 0.8}}]}""", "cascade");

    private final ServingPlan plan = new ServingPlan(2, Long.MAX_VALUE, "kairos", PolicyParams.NONE, CATALOG);
    private final DecisionLedger ledger = new DecisionLedger(plan);
    private long version;

    private DecisionOutcome decide(Object action) {
        ControlDecision d = ControlDecision.newBuilder().setVersion(++version).setIssuedAtMicros(1).setIssuedBy("user").setAction(action).build();
        return ledger.decide(d, 2);
    }

    @Test
    void theActionCarriesTheSpecBothWays() {
        SetPipeline action = PipelineActions.action(CASCADE);
        assertThat(action.getSloP99Ms()).isEqualTo(50.0);
        assertThat(action.getStages().get(1).getBudgetMs()).isEqualTo(20.0);
        assertThat(action.getStages().get(0).getBudgetMs()).isNull();
        assertThat(action.getEdges().get(0).getWhen().getOutputMaxBelow()).isEqualTo(0.8);
        assertThat(PipelineActions.spec(action, CATALOG)).isEqualTo(CASCADE);
        assertThat(action.getStages()).extracting(PipelineStage::getInput).containsExactly(null, null);
        // A stage that reads the request's own input says so, and reads back the same.
        PipelineSpec image = new PipelineSpec("cascade", 50_000, List.of(new Stage("fast", "googlenet"), new Stage("slow", "resnet50", 20_000, true)), CASCADE.edges());
        SetPipeline imageAction = PipelineActions.action(image);
        assertThat(imageAction.getStages()).extracting(PipelineStage::getInput).containsExactly(null, "request");
        assertThat(PipelineActions.spec(imageAction, CATALOG)).isEqualTo(image);
        imageAction.getStages().get(1).setInput("previous");
        assertThat(PipelineActions.spec(imageAction, CATALOG)).as("'previous' is the default written out").isEqualTo(CASCADE);
        assertThat(DecisionKey.of(action)).isEqualTo("pipeline/cascade");
        assertThat(DecisionKey.of(RemovePipeline.newBuilder().setPipeline("cascade").build())).isEqualTo("pipeline/cascade");
    }

    @Test
    void anAppliedPipelineIsThePlansUntilRemoved() {
        DecisionOutcome o = decide(PipelineActions.action(CASCADE));
        assertThat(o.getStatus()).isEqualTo(DecisionStatus.APPLIED);
        assertThat(o.getKey()).isEqualTo("pipeline/cascade");
        assertThat(plan.pipeline("cascade")).isEqualTo(CASCADE);
        assertThat(plan.pipelines()).containsOnlyKeys("cascade");

        long before = plan.version();
        assertThat(decide(RemovePipeline.newBuilder().setPipeline("cascade").build()).getStatus()).isEqualTo(DecisionStatus.APPLIED);
        assertThat(plan.pipeline("cascade")).isNull();
        assertThat(plan.version()).isGreaterThan(before);
        // Removing what is not there changes nothing, and is applied: a fresh start may read the removal alone.
        assertThat(decide(RemovePipeline.newBuilder().setPipeline("cascade").build()).getStatus()).isEqualTo(DecisionStatus.APPLIED);
        ServingPlan fresh = new ServingPlan(2, Long.MAX_VALUE, "kairos", PolicyParams.NONE, CATALOG);
        List<String> problems = new ArrayList<>();
        DecisionLedger.rebuild(fresh, ledger.current(), problems::add);
        assertThat(problems).isEmpty();
        assertThat(fresh.pipelines()).isEmpty();
    }

    @Test
    void aRebuildKeepsThePipelines() {
        decide(PipelineActions.action(CASCADE));
        ServingPlan fresh = new ServingPlan(2, Long.MAX_VALUE, "kairos", PolicyParams.NONE, CATALOG);
        DecisionLedger.rebuild(fresh, ledger.current(), p -> { throw new AssertionError(p); });
        assertThat(fresh.pipeline("cascade")).isEqualTo(CASCADE);
        assertThat(plan.copy().pipeline("cascade")).isEqualTo(CASCADE);
    }

    @Test
    void aBadSpecIsRejectedWithItsReasonAndThePlanKeepsTheOldOne() {
        decide(PipelineActions.action(CASCADE));
        SetPipeline unknownModel = PipelineActions.action(CASCADE);
        unknownModel.getStages().get(1).setModel("vgg");
        assertThat(decide(unknownModel).getReason())
                .isEqualTo("pipeline 'cascade': field 'stages[1].model': the job serves no model 'vgg'; it serves [resnet50, googlenet, bert-tiny, mlp]");

        // 1.357 + 2.7 = 4.057 ms along fast -> slow
        SetPipeline tight = PipelineActions.action(CASCADE);
        tight.setSloP99Ms(4.0);
        assertThat(decide(tight).getReason())
                .isEqualTo("pipeline 'cascade': field 'slo_p99_ms': 4 ms is below the pipeline's service time of 4.057 ms (its longest path at the models' batch-1 latencies)");

        SetPipeline cycle = PipelineActions.action(CASCADE);
        cycle.getEdges().add(io.kairos.schema.PipelineEdge.newBuilder().setFrom("slow").setTo("fast").setProbability(0.1).build());
        assertThat(decide(cycle).getReason()).isEqualTo("pipeline 'cascade': field 'edges': the edges form a cycle: fast -> slow -> fast");

        SetPipeline bothConditions = PipelineActions.action(CASCADE);
        bothConditions.getEdges().get(0).setWhen(PipelineCondition.newBuilder().setOutputMaxBelow(0.5).setOutputArgmaxIn(List.of(1)).build());
        assertThat(decide(bothConditions).getReason())
                .isEqualTo("pipeline 'cascade': field 'edges[0].when' must set exactly one of output_max_below and output_argmax_in");

        SetPipeline badBudget = PipelineActions.action(CASCADE);
        badBudget.getStages().get(1).setBudgetMs(-1.0);
        assertThat(decide(badBudget).getReason())
                .isEqualTo("pipeline 'cascade': field 'stages[1].budget_ms' must be a positive number of milliseconds (at most a year), got -1.0");

        SetPipeline badInput = PipelineActions.action(CASCADE);
        badInput.getStages().get(1).setInput("original");
        assertThat(decide(badInput).getReason())
                .isEqualTo("pipeline 'cascade': field 'stages[1].input' must be 'previous' (the previous stage's output, the default) or 'request' (the pipeline request's own input), got 'original'");

        SetPipeline slash = PipelineActions.action(CASCADE);
        slash.setPipeline("a/b");
        DecisionOutcome o = decide(slash);
        assertThat(o.getStatus()).isEqualTo(DecisionStatus.REJECTED);
        assertThat(o.getReason()).isEqualTo("pipeline name 'a/b' contains '/'");

        assertThat(plan.pipelines()).containsOnlyKeys("cascade");
        assertThat(plan.pipeline("cascade")).isEqualTo(CASCADE);
    }

    @Test
    void withoutACatalogOnlyTheShapeIsChecked() {
        ServingPlan shown = new ServingPlan(2, Long.MAX_VALUE, "kairos", PolicyParams.NONE);
        SetPipeline unknownModel = PipelineActions.action(CASCADE);
        unknownModel.getStages().get(1).setModel("vgg");
        Decisions.apply(shown, ControlDecision.newBuilder().setVersion(1).setIssuedAtMicros(1).setIssuedBy("u").setAction(unknownModel).build());
        assertThat(shown.pipeline("cascade").stages().get(1).model()).isEqualTo("vgg");
    }
}
