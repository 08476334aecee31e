package io.kairos.control.status;

import io.kairos.core.plan.ServingPlan;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.DecisionStatus;
import io.kairos.wire.plan.DecisionLedger;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.kairos.control.status.Records.assign;
import static io.kairos.control.status.Records.decision;
import static io.kairos.control.status.Records.outcome;
import static io.kairos.control.status.Records.placement;
import static org.assertj.core.api.Assertions.assertThat;

class DecisionHistoryTest {
    private static final String NO_DEVICE_7 = "device 7 does not exist: the job has devices 0..1";

    private final DecisionHistory history = new DecisionHistory(3);

    /** Reads {@code d} as the page does: decided by a ledger on a plan of {@code devices} devices. */
    private static void read(DecisionHistory history, DecisionLedger ledger, ControlDecision d) {
        history.decision(d, ledger.decide(d, 5));
    }

    private static DecisionLedger ledger(int devices) {
        return new DecisionLedger(new ServingPlan(devices, "clockwork", PolicyParams.NONE));
    }

    @Test
    void theLastOutcomesComeNewestFirstBesideWhatTheirDecisionAsked() {
        DecisionLedger ledger = ledger(2);
        read(history, ledger, decision("planner", 1, placement("vision", 1, List.of("mlp"))));
        read(history, ledger, decision("user", 5, placement("vision", 7, List.of("mlp"))));
        history.outcome(outcome("planner", 1, "placement/vision", DecisionStatus.APPLIED, null, 2_000));
        history.outcome(outcome("user", 5, "placement/vision", DecisionStatus.REJECTED, NO_DEVICE_7, 3_000));
        // An outcome whose decision the page never read (compacted away before it started).
        history.outcome(outcome("tuner", 9, "assign/mlp", DecisionStatus.DUPLICATE, "writer 'tuner' already had version 9 decided for assign/mlp", 4_000));

        assertThat(history.latest()).containsExactly(
                new DecisionHistory.Row(4_000, 1_009, "tuner", 9, "assign/mlp", "DUPLICATE", "writer 'tuner' already had version 9 decided for assign/mlp", null),
                new DecisionHistory.Row(3_000, 1_005, "user", 5, "placement/vision", "REJECTED", NO_DEVICE_7, "place group vision: device 7 = mlp"),
                new DecisionHistory.Row(2_000, 1_001, "planner", 1, "placement/vision", "APPLIED", null, "place group vision: device 1 = mlp"));
        assertThat(history.disagreements()).isEmpty();

        // A fourth outcome: the capacity is 3, the oldest goes.
        read(history, ledger, decision("planner", 2, assign("mlp", "vision")));
        history.outcome(outcome("planner", 2, "assign/mlp", DecisionStatus.APPLIED, null, 5_000));
        assertThat(history.latest()).extracting(DecisionHistory.Row::writer, DecisionHistory.Row::version)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("planner", 2L), org.assertj.core.groups.Tuple.tuple("tuner", 9L),
                        org.assertj.core.groups.Tuple.tuple("user", 5L));
    }

    @Test
    void aPageThatDecidesOtherwiseThanTheJobSaysSo() {
        // The job has 8 devices, the page was told 2: the job applies what the page rejects.
        DecisionLedger page = ledger(2);
        read(history, page, decision("planner", 1, placement("vision", 7, List.of("mlp"))));
        read(history, page, decision("planner", 2, assign("mlp", "vision")));
        history.outcome(outcome("planner", 1, "placement/vision", DecisionStatus.APPLIED, null, 2_000));
        history.outcome(outcome("planner", 2, "assign/mlp", DecisionStatus.APPLIED, null, 3_000));

        assertThat(history.disagreements()).containsExactly(
                "planner/1 (placement/vision): the job applied it, this page rejected it (" + NO_DEVICE_7 + ")");
    }

    @Test
    void aDuplicateIsNeverADisagreement() {
        // The page read the decision twice (the job's restore of the key read back): its first verdict counts.
        DecisionLedger page = ledger(2);
        ControlDecision d = decision("planner", 1, assign("mlp", "vision"));
        read(history, page, d);
        read(history, page, d);
        history.outcome(outcome("planner", 1, "assign/mlp", DecisionStatus.APPLIED, null, 2_000));
        history.outcome(outcome("planner", 1, "assign/mlp", DecisionStatus.DUPLICATE, "writer 'planner' already had version 1 decided for assign/mlp", 3_000));

        assertThat(history.disagreements()).isEmpty();
    }
}
