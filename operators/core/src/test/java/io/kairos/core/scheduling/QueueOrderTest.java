package io.kairos.core.scheduling;

import io.kairos.core.model.LatencyProfile;
import io.kairos.core.request.Request;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class QueueOrderTest {
    private static final LatencyProfile PROFILE = new LatencyProfile(new int[] {1, 2}, new long[] {1_000, 1_500});

    /** A queue of {@code model} whose head's deadline is {@code deadline}, its order key taken. */
    private static RequestQueue queue(String model, long deadline) {
        RequestQueue q = new RequestQueue(model, PROFILE);
        q.add(new Request(model + "-" + deadline, model, 0, deadline, null));
        q.keepOrderKeys(false);
        return q;
    }

    @Test
    void keepsTheTreesOrderThroughThousandsOfJoinsAndLeaves() {
        Random random = new Random(3);
        TreeSet<RequestQueue> tree = new TreeSet<>((a, b) -> {
            int c = Long.compare(a.latestStartKey(), b.latestStartKey());
            return c != 0 ? c : a.model().compareTo(b.model());
        });
        QueueOrder order = new QueueOrder();
        List<RequestQueue> all = new ArrayList<>();
        // Few distinct deadlines, so that ties fall back on the model name.
        for (int i = 0; i < 3_000; i++) all.add(queue(String.format("m%04d", random.nextInt(10_000)) + "#" + i, random.nextInt(500) * 10L));
        for (int step = 0; step < 40_000; step++) {
            RequestQueue q = all.get(random.nextInt(all.size()));
            if (random.nextInt(3) > 0) assertThat(order.join(q)).isEqualTo(tree.add(q));
            else assertThat(order.leave(q)).isEqualTo(tree.remove(q));
            if (step % 4_000 == 0) {
                assertThat(order).containsExactlyElementsOf(tree);
                if (!tree.isEmpty()) assertThat(order.first()).isSameAs(tree.first());
                // Copied by rank, a chunk at a time across the blocks: the same order.
                List<RequestQueue> tail = new ArrayList<>(tree).subList(Math.min(tree.size(), 37), tree.size());
                List<RequestQueue> copied = new ArrayList<>();
                RequestQueue[] chunk = new RequestQueue[24];
                int n;
                for (int from = 37; (n = order.copy(from, chunk)) > 0; from += n) copied.addAll(Arrays.asList(chunk).subList(0, n));
                assertThat(copied).containsExactlyElementsOf(tail);
            }
        }
        assertThat(order).containsExactlyElementsOf(tree);
        assertThat(order.size()).isEqualTo(tree.size());
        for (RequestQueue q : all) assertThat(order.contains(q)).isEqualTo(tree.contains(q));
        order.reset();
        assertThat(order).isEmpty();
        assertThat(order.join(all.get(0))).isTrue();
        assertThat(order).containsExactly(all.get(0));
    }

    @Test
    void ordersByOldestArrivalThenLatestStartThenModelFromEitherEnd() {
        Random random = new Random(5);
        TreeSet<RequestQueue> tree = new TreeSet<>((a, b) -> {
            int c = Long.compare(a.oldestArrivalKey(), b.oldestArrivalKey());
            if (c != 0) return c;
            c = Long.compare(a.latestStartKey(), b.latestStartKey());
            return c != 0 ? c : a.model().compareTo(b.model());
        });
        QueueOrder order = new QueueOrder(QueueOrder.By.OLDEST_ARRIVAL);
        for (int i = 0; i < 2_000; i++) {
            RequestQueue q = new RequestQueue("m" + random.nextInt(100_000) + "#" + i, PROFILE);
            q.add(new Request("r" + i, q.model(), random.nextInt(50), 100 + random.nextInt(50) * 10L, null));
            q.keepOrderKeys(true);
            assertThat(order.join(q)).isEqualTo(tree.add(q));
            if (i % 3 == 0) assertThat(order.leave(tree.first())).isEqualTo(tree.remove(tree.first()));
        }
        assertThat(order).containsExactlyElementsOf(tree);
        assertThat(order.first()).isSameAs(tree.first());
        List<RequestQueue> backwards = new ArrayList<>();
        order.descendingIterator().forEachRemaining(backwards::add);
        assertThat(backwards).containsExactlyElementsOf(tree.descendingSet());
    }

    @Test
    void isReadOnlyToPoliciesAndFailsFastAfterAChange() {
        QueueOrder order = new QueueOrder();
        RequestQueue a = queue("a", 10);
        RequestQueue b = queue("b", 20);
        order.join(a);
        order.join(b);
        assertThatThrownBy(() -> order.add(queue("c", 5))).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> order.remove(a)).isInstanceOf(UnsupportedOperationException.class);
        Iterator<RequestQueue> it = order.iterator();
        assertThat(it.next()).isSameAs(a);
        order.leave(a);
        // As a tree's iterator: there was a next when it last moved, and taking it throws.
        assertThat(it.hasNext()).isTrue();
        assertThatThrownBy(it::next).isInstanceOf(ConcurrentModificationException.class);
    }
}
