package io.kairos.core.scheduling.policy;

import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.scheduling.Dispatch;
import io.kairos.core.scheduling.GroupScheduler;
import io.kairos.core.scheduling.GroupView;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.core.scheduling.SchedulingPolicy;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static io.kairos.core.scheduling.policy.SchedulingFixtures.CATALOG;
import static io.kairos.core.scheduling.policy.SchedulingFixtures.device;
import static io.kairos.core.scheduling.policy.SchedulingFixtures.ids;
import static io.kairos.core.scheduling.policy.SchedulingFixtures.req;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;

/** {@link GroupScheduler#preempt} for any policy: what can be preempted, and what the device and the queues look like after. */
class GroupSchedulerPreemptionTest {

    @Test
    void aBatchThatHasNotStartedCanBePreemptedAndTheDeviceIsFreeFromItsStart() {
        // Clockwork with a 20 ms lookahead books A x1 on [0, 10) and a second A x1 on [10, 20) at once.
        GroupScheduler g = new GroupScheduler("g", CATALOG, List.of(device(0)), LatestStartPolicy.clockwork(), PolicyParams.of(Map.of("lookahead_ms", "20")));
        g.allowPreemption(true);
        g.admit(req("a1", "A", 0, 100_000));
        g.admit(req("a2", "A", 0, 100_000));
        List<Dispatch> booked = g.schedule(0).dispatches();
        assertThat(booked).extracting(Dispatch::predictedStartMicros).containsExactly(0L, 10_000L);
        DeviceView d0 = g.devices().get(0);
        assertThat(d0.preemptibleAt(1_000)).isSameAs(booked.get(1));

        // At 1 ms: the second, not started, is preempted; the first keeps running, so the device is free from 10 ms.
        assertThat(g.preempt(d0, 1_000)).isSameAs(booked.get(1));
        assertThat(d0.freeAtMicros()).isEqualTo(10_000);
        assertThat(d0.preemptibleAt(1_000)).as("only the last batch booked is known").isNull();
        assertThat(g.pendingCount()).isEqualTo(1);

        // The next call reports it, and a2 (alone from 10 ms it ends at 20 ms <= 100) is booked again behind a1.
        GroupScheduler.Outcome o = g.schedule(1_000);
        assertThat(o.preempted()).containsExactly(booked.get(1));
        assertThat(o.drops()).isEmpty();
        assertThat(o.dispatches()).extracting(d -> ids(d).get(0), Dispatch::predictedStartMicros).containsExactly(tuple("a2", 10_000L));
    }

    @Test
    void aBatchThatHasEndedCannotBePreempted() {
        GroupScheduler g = new GroupScheduler("g", CATALOG, List.of(device(0)), new FlexPolicy(), PolicyParams.NONE);
        g.allowPreemption(true);
        g.admit(req("b", "B", 0, 10_000));
        g.schedule(0); // B x1 on [0, 1 ms)
        DeviceView d0 = g.devices().get(0);
        assertThat(d0.preemptibleAt(999)).isNotNull();
        assertThat(d0.preemptibleAt(1_000)).isNull();
        assertThatThrownBy(() -> g.preempt(d0, 1_000)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aBatchPreemptedInTheCallThatDispatchedItNeverReachesTheEngine() {
        // A policy that starts R x2 and changes its mind at once: the outcome has neither the batch nor a preemption.
        SchedulingPolicy fickle = new SchedulingPolicy() {
            @Override
            public long schedule(long now, GroupView group) {
                DeviceView d = group.devices().get(0);
                group.dispatch("R", 2, d, now);
                group.preempt(d, now);
                return NO_WAKE;
            }

            @Override
            public String name() {
                return "fickle";
            }
        };
        GroupScheduler g = new GroupScheduler("g", CATALOG, List.of(device(0)), fickle, PolicyParams.NONE);
        g.allowPreemption(true);
        g.admit(req("r0", "R", 0, 50_000));
        g.admit(req("r1", "R", 0, 50_000));
        GroupScheduler.Outcome o = g.schedule(0);
        assertThat(o.dispatches()).isEmpty();
        assertThat(o.preempted()).isEmpty();
        assertThat(o.drops()).isEmpty();
        assertThat(g.pendingCount()).isEqualTo(2);
        assertThat(g.devices().get(0).freeAtMicros()).isZero();
    }
}
