package io.kairos.core.scheduling.policy;

import io.kairos.core.scheduling.RequestQueue;
import io.kairos.core.scheduling.BatchableHeap;
import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.scheduling.GroupScheduler;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.core.scheduling.QueueHeap;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.function.ToLongFunction;

import static io.kairos.core.scheduling.policy.SchedulingFixtures.CATALOG;
import static io.kairos.core.scheduling.policy.SchedulingFixtures.device;
import static io.kairos.core.scheduling.policy.SchedulingFixtures.req;
import static org.assertj.core.api.Assertions.assertThat;

/** The scheduler's index of the batchable queues by a policy's key, and the latest-start policies' use of it. */
class BatchableIndexTest {

    // Head deadline less 1 ms per request: a key that moves with the head and with the size.
    private static final ToLongFunction<RequestQueue> KEY = q -> q.headDeadline() - 1000L * q.size();

    // The heap's queues by key: the order a policy's search would rank them in.
    private static List<String> models(QueueHeap heap) {
        List<Integer> places = new ArrayList<>();
        for (int i = 0; i < heap.size(); i++) {
            places.add(i);
            if (i > 0) assertThat(heap.keyAt((i - 1) / 2)).as("heap order at %d", i).isLessThanOrEqualTo(heap.keyAt(i));
        }
        places.sort(Comparator.comparingLong(heap::keyAt));
        return places.stream().map(i -> heap.at(i).model()).toList();
    }

    @Test
    void batchableQueuesComeByTheirKeyAsTheyGrowAndShrink() {
        GroupScheduler s = new GroupScheduler("g", CATALOG, List.of(device(0)), LatestStartPolicy.kairos(), PolicyParams.NONE);
        s.admit(req("r1", "R", 0, 50_000));
        s.admit(req("r2", "R", 0, 60_000));   // R: 50,000 - 2,000 = 48,000
        s.admit(req("q1", "R2", 0, 45_000));  // R2 holds one: not batchable
        s.admit(req("a1", "A", 0, 90_000));
        assertThat(models(s.index(BatchableHeap.class, KEY, () -> new BatchableHeap(KEY)).heap())).containsExactly("R");
        s.admit(req("q2", "R2", 0, 70_000));  // R2: 45,000 - 2,000 = 43,000
        assertThat(models(s.index(BatchableHeap.class, KEY, () -> new BatchableHeap(KEY)).heap())).containsExactly("R2", "R");
        for (int i = 0; i < 6; i++) s.admit(req("r" + (i + 3), "R", 0, 80_000)); // R: 50,000 - 8,000 = 42,000, behind its head
        assertThat(models(s.index(BatchableHeap.class, KEY, () -> new BatchableHeap(KEY)).heap())).containsExactly("R", "R2");
        s.admit(req("q0", "R2", 0, 30_000));  // a new head for R2: 30,000 - 3,000 = 27,000
        assertThat(models(s.index(BatchableHeap.class, KEY, () -> new BatchableHeap(KEY)).heap())).containsExactly("R2", "R");
        s.dispatch("R2", 2, s.devices().get(0), 0); // R2 keeps one: out of the index
        assertThat(models(s.index(BatchableHeap.class, KEY, () -> new BatchableHeap(KEY)).heap())).containsExactly("R");
        s.dispatch("R", 7, s.devices().get(0), 0);
        assertThat(models(s.index(BatchableHeap.class, KEY, () -> new BatchableHeap(KEY)).heap())).isEmpty();
        // Another key rebuilds the index from the batchable queues.
        s.admit(req("a2", "A", 0, 95_000));
        assertThat(models(s.index(BatchableHeap.class, "longest", () -> new BatchableHeap(q -> -q.size())).heap())).containsExactly("A");
    }

    /**
     * The indexed pick against the scan it replaces, on random queues of four models (two with one
     * batch size, two with five) and random device starts, padded and not, with batches leaving and
     * requests joining between picks: the same strategy.
     */
    @Test
    void indexedPickIsTheScansPick() {
        Random random = new Random(7);
        String[] models = {"A", "B", "R", "R2"};
        for (LatestStartPolicy policy : List.of(LatestStartPolicy.kairos(), LatestStartPolicy.clockwork())) {
            for (int trial = 0; trial < 300; trial++) {
                DeviceView d = device(0);
                GroupScheduler s = new GroupScheduler("g", CATALOG, List.of(d), policy, PolicyParams.NONE);
                int n = 1 + random.nextInt(40);
                for (int i = 0; i < n; i++) {
                    String model = models[random.nextInt(models.length)];
                    s.admit(req(trial + "-" + i, model, 0, 20_000 + random.nextInt(40) * 500L));
                }
                for (int k = 0; k < 8; k++) {
                    long start = random.nextInt(40) * 500L;
                    LatestStartPolicy.Pick indexed = policy.pick(start, s, d, true);
                    LatestStartPolicy.Pick scanned = policy.pick(start, s, d, false);
                    assertThat(indexed).as("trial %d, start %d", trial, start).isEqualTo(scanned);
                    // Change the queues between picks: a batch leaves, or a request joins.
                    if (indexed != null && random.nextBoolean()) {
                        s.dispatch(indexed.model(), indexed.take(), d, 0);
                    } else {
                        s.admit(req(trial + "-x" + k, models[random.nextInt(models.length)], 0, 20_000 + random.nextInt(40) * 500L));
                    }
                }
            }
        }
    }
}
