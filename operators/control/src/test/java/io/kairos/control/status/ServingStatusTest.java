package io.kairos.control.status;

import io.kairos.core.plan.ServingPlan;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.schema.DecisionStatus;
import io.kairos.schema.ResultStatus;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.kairos.control.status.Records.batch;
import static io.kairos.control.status.Records.decision;
import static io.kairos.control.status.Records.outcome;
import static io.kairos.control.status.Records.placement;
import static io.kairos.control.status.Records.result;
import static org.assertj.core.api.Assertions.assertThat;

class ServingStatusTest {
    private static final long S = 1_000_000;

    private final ServingStatus status = new ServingStatus(new ServingStatus.Topics("control", "outcomes", "results", "telemetry"),
            new ServingPlan(2, "clockwork", PolicyParams.NONE), 100 * S, 10, 20);

    @Test
    void countsWhatItReadFromEachTopicAndWhen() {
        status.decision(decision("planner", 1, placement("vision", 1, List.of("mlp"))), 101 * S);
        status.notADecision(102 * S); // a tombstone
        status.outcome(outcome("planner", 1, "placement/vision", DecisionStatus.APPLIED, null, 101 * S), 103 * S);
        status.undecodable("results", 104 * S);
        status.result(result("mlp", ResultStatus.OK, 104 * S, 1_000, 2), 105 * S);

        StatusSnapshot s = status.snapshot(106 * S);

        assertThat(s.sources()).containsExactly(
                new StatusSnapshot.Source("decisions", "control", 2, 1, 102 * S),
                new StatusSnapshot.Source("outcomes", "outcomes", 1, 0, 103 * S),
                new StatusSnapshot.Source("results", "results", 2, 1, 105 * S),
                new StatusSnapshot.Source("telemetry", "telemetry", 0, 0, null));
        assertThat(s.plan().groups()).extracting(PlanView.Group::name).containsExactly("default", "vision");
        assertThat(s.decisions()).extracting(DecisionHistory.Row::status).containsExactly("APPLIED");
        assertThat(s.rates()).extracting(ServingRates.Window::name).containsExactly("last 10 s", "since start");
        assertThat(s.rates().get(1).all().total()).isEqualTo(1);
        assertThat(s.warnings()).isEmpty();
        assertThat(s.startedAtMicros()).isEqualTo(100 * S);
        assertThat(s.takenAtMicros()).isEqualTo(106 * S);
    }

    @Test
    void warnsWhenItCannotReadAndWhenItDecidedOtherwiseThanTheJob() {
        status.batch(batch(0, 4, 101 * S, 101 * S + 500_000, true, null), 102 * S);
        // The job has more devices than the page was told: it applies a placement on device 3.
        status.decision(decision("planner", 1, placement("vision", 3, List.of("mlp"))), 101 * S);
        status.outcome(outcome("planner", 1, "placement/vision", DecisionStatus.APPLIED, null, 101 * S), 101 * S);
        status.readerProblem("AuthorizationException: not authorised to read results");

        StatusSnapshot s = status.snapshot(103 * S);

        assertThat(s.warnings()).containsExactly(
                "reading the topics: AuthorizationException: not authorised to read results",
                "this page decided 1 of the last decisions otherwise than the job, so the plan shown is not the job's: "
                        + "start it with the job's --devices, --policy and --policy-param",
                "planner/1 (placement/vision): the job applied it, this page rejected it (device 3 does not exist: the job has devices 0..1)");
        assertThat(s.devices()).extracting(DeviceLoads.Load::device, DeviceLoads.Load::coldStarts)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(0, 1L));

        status.readerProblem(null);
        assertThat(status.snapshot(103 * S).warnings()).hasSize(2);
    }
}
