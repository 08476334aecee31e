package io.kairos.control.status;

import io.kairos.schema.ResultStatus;
import org.junit.jupiter.api.Test;

import static io.kairos.control.status.Records.result;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

class ServingRatesTest {
    private static final long S = 1_000_000;

    @Test
    void figuresOverTheLastSecondsAndSinceTheStartWorkedByHand() {
        ServingRates rates = new ServingRates(100 * S, 10);
        rates.add(result("mlp", ResultStatus.OK, 99 * S, 10_000, 4), 100 * S + 200_000);
        rates.add(result("mlp", ResultStatus.LATE, 99 * S, 30_000, 4), 100 * S + 700_000);
        rates.add(result("mlp", ResultStatus.DROPPED, 104 * S, 1_000, 0), 104 * S + 500_000);
        rates.add(result("resnet50", ResultStatus.OK, 112 * S, 20_000, 2), 112 * S + 100_000);
        rates.add(result("mlp", ResultStatus.OK, 112 * S, 5_000, 1), 112 * S + 900_000);

        long now = 113 * S;
        // Since the start, 13 s: mlp 2 OK of 4, its executed requests saw batches 4, 4, 1.
        ServingRates.Window all = rates.sinceStart(now);
        assertThat(all.name()).isEqualTo("since start");
        assertThat(all.seconds()).isEqualTo(13.0);
        assertThat(all.models()).extracting(ServingRates.ModelRates::model).containsExactly("mlp", "resnet50");
        ServingRates.ModelRates mlp = all.models().get(0);
        assertThat(mlp.total()).isEqualTo(4);
        assertThat(mlp.ok()).isEqualTo(2);
        assertThat(mlp.late()).isEqualTo(1);
        assertThat(mlp.dropped()).isEqualTo(1);
        assertThat(mlp.sloAttainment()).isEqualTo(0.5);
        assertThat(mlp.goodputPerSecond()).isCloseTo(2 / 13.0, offset(1e-12));
        assertThat(mlp.throughputPerSecond()).isCloseTo(3 / 13.0, offset(1e-12));
        assertThat(mlp.meanBatchSize()).isEqualTo(3.0);
        assertThat(mlp.p99Ms()).isCloseTo(30.0, offset(0.05));
        assertThat(all.all().total()).isEqualTo(5);
        assertThat(all.all().sloAttainment()).isEqualTo(0.6);
        assertThat(all.all().meanBatchSize()).isEqualTo(2.75);

        // The last 10 s are the seconds 104 to 113, 9 s up to now: the drop at 104.5 and the two at 112.
        ServingRates.Window recent = rates.recent(now);
        assertThat(recent.name()).isEqualTo("last 10 s");
        assertThat(recent.seconds()).isEqualTo(9.0);
        ServingRates.ModelRates recentMlp = recent.models().get(0);
        assertThat(recentMlp.total()).isEqualTo(2);
        assertThat(recentMlp.sloAttainment()).isEqualTo(0.5);
        assertThat(recentMlp.goodputPerSecond()).isCloseTo(1 / 9.0, offset(1e-12));
        assertThat(recentMlp.meanBatchSize()).isEqualTo(1.0);
        assertThat(recent.models().get(1).goodputPerSecond()).isCloseTo(1 / 9.0, offset(1e-12));

        // Ten seconds on, with nothing new: the window is empty, its figures undefined.
        ServingRates.Window later = rates.recent(now + 10 * S);
        assertThat(later.models()).isEmpty();
        assertThat(later.all().total()).isZero();
        assertThat(later.all().sloAttainment()).isNull();
        assertThat(later.all().meanBatchSize()).isNull();
        assertThat(later.all().p99Ms()).isNull();
    }

    @Test
    void theRecentWindowDoesNotReachBeforeTheStart() {
        ServingRates rates = new ServingRates(100 * S, 10);
        rates.add(result("mlp", ResultStatus.OK, 99 * S, 10_000, 4), 100 * S + 200_000);
        rates.add(result("mlp", ResultStatus.LATE, 99 * S, 30_000, 4), 100 * S + 700_000);

        ServingRates.Window recent = rates.recent(100 * S + 800_000);

        assertThat(recent.seconds()).isCloseTo(0.8, offset(1e-12));
        assertThat(recent.models().get(0).goodputPerSecond()).isCloseTo(1.25, offset(1e-12));
        assertThat(recent.models().get(0).throughputPerSecond()).isCloseTo(2.5, offset(1e-12));
    }

    @Test
    void aResultReceivedBeforeTheWindowCountsSinceStartOnly() {
        ServingRates rates = new ServingRates(0, 2);
        rates.add(result("mlp", ResultStatus.OK, 0, 1_000, 1), 10 * S);
        rates.add(result("mlp", ResultStatus.OK, 0, 1_000, 1), 7 * S); // out of order, older than any window to come

        assertThat(rates.recent(10 * S + 1).all().total()).isEqualTo(1);
        assertThat(rates.sinceStart(10 * S + 1).all().total()).isEqualTo(2);
    }
}
