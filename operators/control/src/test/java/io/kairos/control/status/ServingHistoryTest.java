package io.kairos.control.status;

import io.kairos.schema.ResultStatus;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static io.kairos.control.status.Records.result;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

class ServingHistoryTest {
    private static final long S = 1_000_000;

    /** Buckets of 5 s from 100 s, three kept: [100, 105), [105, 110), [110, 115), ... */
    private final ServingHistory history = new ServingHistory(100 * S, 5, 3);

    private void results() {
        // Bucket 0: mlp 2 OK of 4 (latencies 10, 20 ms OK, 30 ms LATE, one dropped); resnet50 1 OK of 1 (5 ms).
        history.add(result("mlp", ResultStatus.OK, 100 * S, 10_000, 4, 50), 100 * S + 100_000);
        history.add(result("mlp", ResultStatus.OK, 101 * S, 20_000, 4, 50), 101 * S + 100_000);
        history.add(result("mlp", ResultStatus.LATE, 102 * S, 30_000, 4, 50), 102 * S + 100_000);
        history.add(result("mlp", ResultStatus.DROPPED, 103 * S, 1_000, 0, 50), 104 * S + 999_999);
        history.add(result("resnet50", ResultStatus.OK, 101 * S, 5_000, 1, 100), 101 * S + 500_000);
        // Bucket 1: mlp 1 OK of 1 (40 ms); nothing of resnet50.
        history.add(result("mlp", ResultStatus.OK, 106 * S, 40_000, 1, 50), 106 * S + 100_000);
        // Bucket 2: resnet50 dropped, with another objective.
        history.add(result("resnet50", ResultStatus.DROPPED, 111 * S, 1_000, 0, 200), 111 * S + 100_000);
    }

    @Test
    void eachCompleteBucketHasItsAttainmentGoodputAndP99WorkedByHand() {
        results();

        // At 112 s bucket 2 is still filling: buckets 0 and 1 are shown, drawn at their ends.
        ServingHistory.Series s = history.upTo(112 * S);

        assertThat(s.bucketSeconds()).isEqualTo(5);
        assertThat(s.buckets()).isEqualTo(3);
        assertThat(s.endsAtMicros()).containsExactly(105 * S, 110 * S);
        assertThat(s.models()).extracting(ServingHistory.ModelSeries::model).containsExactly("mlp", "resnet50");
        ServingHistory.ModelSeries mlp = s.models().get(0);
        assertThat(mlp.results()).containsExactly(4L, 1L);
        assertThat(mlp.sloAttainment()).containsExactly(0.5, 1.0);
        assertThat(mlp.goodputPerSecond()).containsExactly(2 / 5.0, 1 / 5.0);
        assertThat(mlp.p99Ms().get(0)).isCloseTo(30.0, offset(0.05)); // of the served: 10, 20, 30 ms
        assertThat(mlp.p99Ms().get(1)).isCloseTo(40.0, offset(0.05));
        assertThat(mlp.sloMs()).isEqualTo(50.0);
        ServingHistory.ModelSeries resnet = s.models().get(1);
        assertThat(resnet.results()).containsExactly(1L, 0L);
        assertThat(resnet.sloAttainment()).containsExactly(1.0, null);
        assertThat(resnet.goodputPerSecond()).containsExactly(1 / 5.0, 0.0);
        assertThat(resnet.p99Ms().get(0)).isCloseTo(5.0, offset(0.01));
        assertThat(resnet.p99Ms().get(1)).isNull();
        assertThat(resnet.sloMs()).isEqualTo(100.0);

        // At 115 s bucket 2 is over: resnet50's drop is 0 % and no p99, and its objectives differ.
        s = history.upTo(115 * S);
        assertThat(s.endsAtMicros()).containsExactly(105 * S, 110 * S, 115 * S);
        resnet = s.models().get(1);
        assertThat(resnet.sloAttainment()).containsExactly(1.0, null, 0.0);
        assertThat(resnet.goodputPerSecond()).containsExactly(0.2, 0.0, 0.0);
        assertThat(resnet.p99Ms()).hasSize(3).last().isNull();
        assertThat(resnet.sloMs()).isNull();
        assertThat(s.models().get(0).sloAttainment()).containsExactly(0.5, 1.0, null);
    }

    @Test
    void oldBucketsRollOff() {
        results();

        // At 121 s the three complete buckets are 1, 2 and 3 (105 to 120 s): bucket 0 is gone.
        ServingHistory.Series s = history.upTo(121 * S);
        assertThat(s.endsAtMicros()).containsExactly(110 * S, 115 * S, 120 * S);
        assertThat(s.models().get(0).results()).containsExactly(1L, 0L, 0L);
        assertThat(s.models().get(0).sloAttainment()).containsExactly(1.0, null, null);
        // resnet50's bucket of 100 ms is gone: all it has left is the one of 200 ms.
        assertThat(s.models().get(1).sloMs()).isEqualTo(200.0);

        // A minute later nothing is left: the buckets are there, no model.
        s = history.upTo(181 * S);
        assertThat(s.endsAtMicros()).containsExactly(170 * S, 175 * S, 180 * S);
        assertThat(s.models()).isEmpty();
        assertThat(history.kept()).isZero();
    }

    @Test
    void memoryIsBoundedByTheBucketsKept() {
        for (int i = 0; i < 1000; i++) history.add(result("mlp", ResultStatus.OK, 100 * S + i * S, 1_000, 1), 100 * S + i * S);

        ServingHistory.Series s = history.upTo(1100 * S);

        assertThat(history.kept()).isEqualTo(3);
        assertThat(s.endsAtMicros()).containsExactly(1090 * S, 1095 * S, 1100 * S);
        // Five results a bucket, all OK: 1 a second.
        assertThat(s.models().get(0).goodputPerSecond()).containsExactly(1.0, 1.0, 1.0);
    }

    @Test
    void beforeTheFirstBucketIsOverThereIsNothingToDraw() {
        history.add(result("mlp", ResultStatus.OK, 100 * S, 1_000, 1), 101 * S);

        ServingHistory.Series s = history.upTo(104 * S);

        assertThat(s.endsAtMicros()).isEmpty();
        assertThat(s.models()).isEmpty();
    }

    @Test
    void aResultReceivedOnAClockSetBackCountsInTheBucketFillingNow() {
        history.add(result("mlp", ResultStatus.OK, 100 * S, 1_000, 1), 107 * S);
        history.add(result("mlp", ResultStatus.LATE, 100 * S, 1_000, 1), 102 * S);

        ServingHistory.Series s = history.upTo(110 * S);

        assertThat(s.endsAtMicros()).containsExactly(105 * S, 110 * S);
        assertThat(s.models().get(0).results()).containsExactly(0L, 2L);
        assertThat(s.models().get(0).sloAttainment()).isEqualTo(Arrays.asList(null, 0.5));
        assertThat(s.models().get(0).sloMs()).isNull(); // no result carried one
    }
}
