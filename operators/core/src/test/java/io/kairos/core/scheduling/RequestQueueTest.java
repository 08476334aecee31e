package io.kairos.core.scheduling;

import io.kairos.core.request.Request;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RequestQueueTest {

    private static Request req(String id, long arrival, long deadline) {
        return new Request(id, "m", arrival, deadline, null);
    }

    private static List<String> ids(RequestQueue q) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < q.size(); i++) ids.add(q.get(i).id());
        return ids;
    }

    private static List<String> ids(Request[] rs) {
        return Arrays.stream(rs).map(Request::id).toList();
    }

    @Test
    void emptyQueue() {
        RequestQueue q = new RequestQueue("m", null);
        assertThat(q.isEmpty()).isTrue();
        assertThat(q.size()).isZero();
        assertThat(q.peek()).isNull();
        assertThat(q.poll()).isNull();
        assertThat(q.oldestArrival()).isEqualTo(Long.MAX_VALUE);
        assertThat(q.take(0)).isEmpty();
        assertThatThrownBy(() -> q.get(0)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> q.take(1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void outOfOrderInsertsComeOutEarliestDeadlineFirst() {
        RequestQueue q = new RequestQueue("m", null);
        q.add(req("a", 0, 50));
        q.add(req("b", 1, 10));
        q.add(req("c", 2, 30));
        q.add(req("d", 3, 5));
        q.add(req("e", 4, 70));
        assertThat(ids(q)).containsExactly("d", "b", "c", "a", "e");
        assertThat(q.headDeadline()).isEqualTo(5);
        assertThat(q.peek().id()).isEqualTo("d");
        // Oldest arrival is "a" (t=0), though it is not the head.
        assertThat(q.oldestArrival()).isZero();
    }

    @Test
    void equalDeadlinesKeepArrivalOrder() {
        RequestQueue q = new RequestQueue("m", null);
        q.add(req("x1", 0, 20));
        q.add(req("y1", 1, 10));
        q.add(req("x2", 2, 20));
        q.add(req("y2", 3, 10));
        q.add(req("x3", 4, 20));
        assertThat(ids(q)).containsExactly("y1", "y2", "x1", "x2", "x3");
    }

    @Test
    void takeReturnsTheNEarliestAndLeavesTheRest() {
        RequestQueue q = new RequestQueue("m", null);
        long[] deadlines = {40, 10, 30, 20, 50};
        for (int i = 0; i < deadlines.length; i++) q.add(req("r" + deadlines[i], i, deadlines[i]));
        assertThat(ids(q.take(2))).containsExactly("r10", "r20");
        assertThat(ids(q)).containsExactly("r30", "r40", "r50");
        assertThat(q.poll().id()).isEqualTo("r30");
        assertThat(q.size()).isEqualTo(2);
        assertThatThrownBy(() -> q.take(3)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> q.take(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(ids(q.take(2))).containsExactly("r40", "r50");
        assertThat(q.isEmpty()).isTrue();
        // An emptied queue starts over and still orders correctly.
        q.add(req("late", 9, 99));
        q.add(req("early", 9, 1));
        assertThat(ids(q)).containsExactly("early", "late");
    }

    @Test
    void growsPastItsInitialCapacity() {
        RequestQueue q = new RequestQueue("m", null);
        // 100 inserts in descending deadline order: every insert goes to the head.
        for (int i = 0; i < 100; i++) q.add(req("r" + i, i, 1000 - i));
        assertThat(q.size()).isEqualTo(100);
        for (int i = 0; i < 100; i++) assertThat(q.get(i).deadlineMicros()).isEqualTo(901 + i);
    }

    @Test
    void compactsWhenTheHeadHasMovedOn() {
        RequestQueue q = new RequestQueue("m", null);
        // Steady state: 3 in, 3 out, many times; the queue never holds more than a handful,
        // so it must reuse its array rather than fail or lose requests.
        int next = 0;
        for (int round = 0; round < 1000; round++) {
            for (int i = 0; i < 5; i++) q.add(req("r" + next, next, next++));
            Request[] out = q.take(q.size() >= 5 ? 4 : q.size());
            for (int i = 1; i < out.length; i++) assertThat(out[i].deadlineMicros()).isGreaterThan(out[i - 1].deadlineMicros());
        }
        // 5 in and 4 out per round: 1000 left, the last 1000 added, in order.
        assertThat(q.size()).isEqualTo(1000);
        assertThat(q.peek().id()).isEqualTo("r4000");
        assertThat(q.get(999).id()).isEqualTo("r4999");
    }

    @Test
    void slidingWindowReusesTheArray() {
        // 5 queued, then one in and one out 1000 times: the tail keeps hitting the end of the
        // 16-slot array while the queue is small, which is the compaction path.
        RequestQueue q = new RequestQueue("m", null);
        for (int i = 0; i < 5; i++) q.add(req("r" + i, i, i));
        for (int i = 5; i < 1005; i++) {
            q.add(req("r" + i, i, i));
            assertThat(q.poll().id()).isEqualTo("r" + (i - 5));
            assertThat(q.size()).isEqualTo(5);
        }
        assertThat(ids(q)).containsExactly("r1000", "r1001", "r1002", "r1003", "r1004");
    }

    @Test
    void randomAddsAndTakesMatchAStableSortByDeadline() {
        for (long seed = 1; seed <= 20; seed++) {
            Random rnd = new Random(seed);
            RequestQueue q = new RequestQueue("m", null);
            List<Request> reference = new ArrayList<>();
            int next = 0;
            for (int op = 0; op < 3000; op++) {
                if (rnd.nextInt(100) < 60) {
                    // Small deadline range, so that ties are frequent; arrivals are monotonic.
                    Request r = req("r" + next, next, rnd.nextInt(40));
                    next++;
                    q.add(r);
                    int at = reference.size();
                    while (at > 0 && reference.get(at - 1).deadlineMicros() > r.deadlineMicros()) at--;
                    reference.add(at, r);
                } else {
                    int n = reference.isEmpty() ? 0 : rnd.nextInt(Math.min(reference.size(), 20) + 1);
                    List<Request> expected = new ArrayList<>(reference.subList(0, n));
                    reference.subList(0, n).clear();
                    assertThat(q.take(n)).containsExactlyElementsOf(expected);
                }
                assertThat(q.size()).isEqualTo(reference.size());
                // After every step: the oldest arrival is cached and must follow adds and takes.
                assertThat(q.oldestArrival()).isEqualTo(reference.stream().mapToLong(Request::arrivalMicros).min().orElse(Long.MAX_VALUE));
            }
            for (int i = 0; i < reference.size(); i++) assertThat(q.get(i)).isSameAs(reference.get(i));
            long oldest = reference.stream().mapToLong(Request::arrivalMicros).min().orElse(Long.MAX_VALUE);
            assertThat(q.oldestArrival()).isEqualTo(oldest);
        }
    }

    @Test
    void referenceSortIsStable() {
        // The property above relies on a stable insert; check it against List.sort on one run.
        Random rnd = new Random(7);
        RequestQueue q = new RequestQueue("m", null);
        List<Request> all = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            Request r = req("r" + i, i, rnd.nextInt(10));
            all.add(r);
            q.add(r);
        }
        all.sort((a, b) -> Long.compare(a.deadlineMicros(), b.deadlineMicros())); // List.sort is stable
        assertThat(ids(q.take(500))).containsExactlyElementsOf(all.stream().map(Request::id).toList());
    }
}
