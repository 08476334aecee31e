package io.kairos.core.scheduling.policy;

import io.kairos.core.scheduling.RequestQueue;
import io.kairos.core.scheduling.GroupScheduler;
import io.kairos.core.scheduling.HoldingQueues;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.core.scheduling.QueueIndex;
import org.junit.jupiter.api.Test;

import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

import static io.kairos.core.scheduling.policy.SchedulingFixtures.CATALOG;
import static io.kairos.core.scheduling.policy.SchedulingFixtures.device;
import static io.kairos.core.scheduling.policy.SchedulingFixtures.req;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * An index a policy brings as a class of its own: the scheduler fills it with the pending queues
 * when it is first asked for and keeps it up to date, without knowing what it is.
 */
class QueueIndexTest {

    /** The models whose queue is pending, by name: a policy's own order, made of the hooks alone. */
    static final class ByName implements QueueIndex {
        final TreeSet<String> models = new TreeSet<>();

        @Override
        public void fill(Collection<RequestQueue> pending, Collection<RequestQueue> batchable) {
            for (RequestQueue q : pending) models.add(q.model());
        }

        @Override
        public void joined(RequestQueue q) {
            models.add(q.model());
        }

        @Override
        public void left(RequestQueue q) {
            models.remove(q.model());
        }

        @Override
        public void clear() {
            models.clear();
        }
    }

    /**
     * R2 and R queued before the index is made: it is filled with both. A arrives: in. Fifo sends
     * R2's request (the oldest) to the one device: R2's queue empties and leaves. Drained: empty.
     */
    @Test
    void theSchedulerKeepsAnIndexItDoesNotKnow() {
        GroupScheduler g = new GroupScheduler("g", CATALOG, List.of(device(0)), OneAtATimePolicy.fifo(), PolicyParams.NONE);
        g.admit(req("r2", "R2", 0, 1_000_000));
        g.admit(req("r", "R", 1, 1_000_000));
        ByName index = g.index(ByName.class, "by name", ByName::new);
        assertThat(index.models).containsExactly("R", "R2");
        g.admit(req("a", "A", 2, 1_000_000));
        assertThat(index.models).containsExactly("A", "R", "R2");
        assertThat(g.index(ByName.class, "by name", ByName::new)).as("kept, not made again").isSameAs(index);
        g.schedule(10); // fifo: R2 (arrived first) on device 0
        assertThat(index.models).containsExactly("A", "R");
        g.drainPending();
        assertThat(index.models).isEmpty();
    }

    /** Static batching's index: the queues holding 2 requests (or a full batch); asked for 3, a new one replaces it. */
    @Test
    void anIndexAskedForWithAnotherKeyIsMadeAgain() {
        GroupScheduler g = new GroupScheduler("g", CATALOG, List.of(device(0)), OneAtATimePolicy.fifo(), PolicyParams.NONE);
        g.admit(req("r1", "R", 0, 1_000_000));
        g.admit(req("r2", "R", 1, 1_000_000));
        g.admit(req("a1", "A", 2, 1_000_000));
        HoldingQueues two = g.index(HoldingQueues.class, 2, () -> new HoldingQueues(2));
        // A allows batches of 1 only: a full batch. R holds 2.
        assertThat(two.queues()).extracting(RequestQueue::model).containsExactlyInAnyOrder("R", "A");
        HoldingQueues three = g.index(HoldingQueues.class, 3, () -> new HoldingQueues(3));
        assertThat(three).isNotSameAs(two);
        assertThat(three.queues()).extracting(RequestQueue::model).containsExactly("A");
        g.admit(req("r3", "R", 3, 1_000_000));
        assertThat(three.queues()).extracting(RequestQueue::model).containsExactlyInAnyOrder("R", "A");
    }
}
