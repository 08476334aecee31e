package io.kairos.core.plan;

import io.kairos.core.scheduling.ModelAction;
import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.request.Request;
import io.kairos.core.scheduling.Dispatch;
import io.kairos.core.scheduling.GroupScheduler;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.core.scheduling.policy.LatestStartPolicy;
import io.kairos.core.scheduling.policy.TritonPolicy;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/** A plan applied to the serving groups of one engine instance: policies, typed parameters, devices, loads and unloads. */
class ServingGroupsTest {
    /** C: 2 ms, 100 bytes, 8 ms to load; D: 1 ms, 100 bytes, 4 ms to load. */
    private static final ModelCatalog CATALOG = ModelCatalog.parse("""
            {"models": [
              {"name": "C", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 2}}, "memory_bytes": 100, "load_ms": 8},
              {"name": "D", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 1}}, "memory_bytes": 100, "load_ms": 4}
            ]}""", "serving-groups-test");

    private final ServingPlan plan = new ServingPlan(2, 1_000, "clockwork", PolicyParams.of(Map.of("lookahead_ms", "2")));
    private final ServingGroups groups = new ServingGroups(CATALOG, true, null);

    private static Request req(String id, String model, long arrival) {
        return new Request(id, model, arrival, 1_000_000, null);
    }

    @Test
    void aGroupIsCreatedOnDemandWithThePlansTypedPolicyAndItsPlacementLoaded() {
        plan.place("g", Map.of(1, Set.of("C")));
        ServingGroups.Lookup first = groups.scheduler("g", plan);
        assertThat(first.created()).isTrue();
        GroupScheduler g = first.scheduler();
        assertThat(((LatestStartPolicy) g.policy()).lookaheadMicros()).isEqualTo(2_000);
        assertThat(g.devices()).extracting(DeviceView::slot, DeviceView::models).containsExactly(tuple(1, Set.of("C")));
        assertThat(first.actions()).containsExactly(new ServingGroups.DeviceAction("g", ModelAction.load(1, "C", ModelAction.PLACED)));

        ServingGroups.Lookup again = groups.scheduler("g", plan);
        assertThat(again.created()).isFalse();
        assertThat(again.scheduler()).isSameAs(g);
        assertThat(again.actions()).as("nothing changed").isEmpty();
        assertThat(groups.get("other")).isNull();
        assertThat(groups.all()).containsExactly(g);
    }

    @Test
    void aPolicyChangeReachesTheGroupAndItsQueuesStay() {
        GroupScheduler g = groups.scheduler("g", plan).scheduler();
        g.admit(req("c1", "C", 0));
        plan.setPolicy("g", null, "triton", Map.of("max_batch", "4", "shed", "false"));
        plan.setPolicy("g", "C", "triton", Map.of("max_queue_delay_ms", "3"));
        assertThat(groups.update(plan)).isEmpty(); // every device serves every model: nothing to load
        TritonPolicy triton = (TritonPolicy) g.policy();
        assertThat(triton.batching().of("C")).isEqualTo(new TritonPolicy.Batching(4, 3_000));
        assertThat(triton.batching().of("D")).isEqualTo(new TritonPolicy.Batching(4, 1_000));
        assertThat(g.shedding()).isFalse();
        assertThat(g.pendingCount()).isEqualTo(1);
        // Parameters only: the same policy object is configured again.
        plan.setPolicy("g", null, "triton", Map.of("max_batch", "2"));
        groups.update(plan);
        assertThat(((TritonPolicy) g.policy()).batching().group()).isEqualTo(new TritonPolicy.Batching(2, 1_000));
        assertThat(g.shedding()).isTrue();
    }

    @Test
    void aNewPlacementUnloadsAndLoadsAndKeepsTheWorkBooked() {
        plan.place("g", Map.of(0, Set.of("C")));
        GroupScheduler g = groups.scheduler("g", plan).scheduler();
        g.admit(req("c1", "C", 0));
        // C loaded by the placement, the load booked on the device from 0 to 8 ms: the batch
        // starts after it, 2 ms, no load in front.
        assertThat(g.schedule(0).dispatches()).as("the device is busy loading C").isEmpty();
        assertThat(g.schedule(8_000).dispatches()).extracting(Dispatch::predictedStartMicros, Dispatch::predictedLatencyMicros)
                .containsExactly(tuple(8_000L, 2_000L));

        plan.place("g", Map.of(0, Set.of("D")));
        assertThat(groups.update(plan)).extracting(ServingGroups.DeviceAction::group, ServingGroups.DeviceAction::action).containsExactly(
                tuple("g", ModelAction.unload(0, "C", ModelAction.UNPLACED)),
                tuple("g", ModelAction.load(0, "D", ModelAction.PLACED)));
        // D's load (4 ms) is booked behind the batch of C, which ends at 10 ms.
        assertThat(g.devices().get(0).freeAtMicros()).isEqualTo(14_000);
    }

    @Test
    void aDeviceMovedToAnotherGroupBringsItsBookedWorkAndMemory() {
        plan.place("a", Map.of(0, Set.of("C"), 1, Set.of("C")));
        plan.place("b", Map.of());
        plan.assign("D", "b");
        GroupScheduler a = groups.scheduler("a", plan).scheduler();
        GroupScheduler b = groups.scheduler("b", plan).scheduler();
        a.admit(req("c1", "C", 0));
        a.schedule(8_000); // on device 0 (both free once their placement's load of C ends at 8 ms: the first), until 10 ms

        // Device 0 goes from a to b, to serve C and D there.
        plan.place("a", Map.of(1, Set.of("C")));
        plan.place("b", Map.of(0, Set.of("C", "D")));
        List<ServingGroups.DeviceAction> actions = groups.update(plan);
        DeviceView moved = b.devices().get(0);
        assertThat(moved.freeAtMicros()).as("the batch of a still runs there, D's load after it").isEqualTo(14_000);
        assertThat(moved.loadedModels()).startsWith("C");
        // C is there already; D (100 bytes) fits beside it in the 1,000-byte budget: loaded now.
        assertThat(actions).containsExactly(new ServingGroups.DeviceAction("b", ModelAction.load(0, "D", ModelAction.PLACED)));
        assertThat(a.devices()).extracting(DeviceView::slot).containsExactly(1);
    }

    @Test
    void aReplicaTakenAwayUnloadsWhatNoGroupKeepsThereAndIsReleased() {
        plan.place("g", Map.of(0, Set.of("C"), 1, Set.of("C")));
        plan.assign("C", "g");
        GroupScheduler g = groups.scheduler("g", plan).scheduler();
        g.admit(req("c1", "C", 0));
        g.schedule(8_000); // on device 0 once its placement's load of C is done, until 10 ms
        assertThat(plan.releasedDevices()).as("the default group still holds both, for D").isEmpty();

        // Replica 1 goes: nothing keeps C there (the default group holds the device with every
        // model, but C is routed to g), so C is unloaded from it.
        plan.place("g", Map.of(0, Set.of("C")));
        assertThat(groups.update(plan)).containsExactly(new ServingGroups.DeviceAction("g", ModelAction.unload(1, "C", ModelAction.LEFT)));
        assertThat(g.devices().get(0).freeAtMicros()).as("the replica that stays keeps its batch").isEqualTo(10_000);
        assertThat(plan.keeps(1, "C")).isFalse();
        assertThat(plan.keeps(1, "D")).as("routed to the default group").isTrue();

        // With the default group placed on no device, device 1 holds nothing: released.
        plan.place(ServingPlan.DEFAULT_GROUP, Map.of());
        assertThat(plan.releasedDevices()).containsExactly(1);
        // Replica 0 goes to a group that keeps C there too: nothing to unload.
        plan.place("h", Map.of(0, Set.of("C", "D")));
        plan.place("g", Map.of(1, Set.of("C")));
        assertThat(groups.update(plan)).containsExactly(new ServingGroups.DeviceAction("g", ModelAction.load(1, "C", ModelAction.PLACED)));
        assertThat(plan.releasedDevices()).isEmpty();
    }

    @Test
    void aModelRoutedToAGroupRunElsewhereLeavesItsQueueWhereItIs() {
        // This instance runs g only (h's key is another scheduler subtask's): C's queued requests
        // stay in g, served by device 0 while it holds C; no second scheduler of h is made here.
        groups.runningOnly(group -> group.equals("g"));
        plan.place("g", Map.of(0, Set.of("C", "D")));
        plan.place("h", Map.of(1, Set.of("C")));
        plan.assign("C", "g");
        GroupScheduler g = groups.scheduler("g", plan).scheduler();
        g.admit(req("c1", "C", 0));
        g.admit(req("c2", "C", 0));
        plan.assign("C", "h");
        assertThat(groups.update(plan)).isEmpty();
        assertThat(groups.moved()).isEmpty();
        assertThat(groups.get("h")).isNull();
        assertThat(g.pendingRequests()).extracting(Request::id).containsExactlyInAnyOrder("c1", "c2");
        // Device 0 still holds C: g serves them (C's only batch size is 1: one now, the other next),
        // once the placement's loads of C and D are done (8 + 4 ms).
        assertThat(g.schedule(12_000).dispatches()).singleElement().satisfies(d -> assertThat(d.model()).isEqualTo("C"));
    }

    @Test
    void aModelRoutedToAnotherGroupTakesItsQueuedRequestsThereAndTheBatchSentStays() {
        // g serves C and D on device 0; h is placed on device 1 with C, and has seen no request.
        plan.place("g", Map.of(0, Set.of("C", "D")));
        plan.place("h", Map.of(1, Set.of("C")));
        plan.assign("C", "g");
        plan.assign("D", "g");
        GroupScheduler g = groups.scheduler("g", plan).scheduler();
        g.admit(req("c1", "C", 0));
        g.admit(req("d1", "D", 0));
        // Device 0 free once the placement's loads are done (C 0 to 8 ms, D to 12 ms): clockwork starts
        // c1 then (12 to 14 ms); d1 waits for the device (its latest start is nearly 1 s away).
        assertThat(g.schedule(12_000).dispatches()).extracting(Dispatch::model).containsExactly("C");
        g.admit(req("c2", "C", 12_100));
        g.admit(req("c3", "C", 12_050));
        g.admit(req("d2", "D", 12_100));
        assertThat(groups.moved()).isEmpty();

        // C to h: c2 and c3 leave g's queue for h's, made now; d1 and d2 stay, D is still g's; c1
        // was sent and stays on device 0's books.
        plan.assign("C", "h");
        List<ServingGroups.DeviceAction> actions = groups.update(plan);
        assertThat(actions).as("h's placement loads C on device 1 now").containsExactly(new ServingGroups.DeviceAction("h", ModelAction.load(1, "C", ModelAction.PLACED)));
        assertThat(groups.moved()).hasSize(1);
        ServingGroups.Move move = groups.moved().get(0);
        assertThat(move.from()).isEqualTo("g");
        assertThat(move.to()).isEqualTo("h");
        assertThat(move.model()).isEqualTo("C");
        assertThat(move.requests()).extracting(Request::id).containsExactlyInAnyOrder("c2", "c3");
        GroupScheduler h = groups.get("h");
        assertThat(h.pendingRequests()).extracting(Request::id).containsExactlyInAnyOrder("c2", "c3");
        assertThat(g.pendingRequests()).extracting(Request::id).containsExactlyInAnyOrder("d1", "d2");
        assertThat(g.devices().get(0).freeAtMicros()).as("c1 stays booked on device 0").isEqualTo(14_000);
        // h serves one of them at once on its device 1, idle since its load of C ended at 8 ms (C's only batch size is 1).
        assertThat(h.schedule(12_200).dispatches()).singleElement().satisfies(d -> {
            assertThat(d.device()).isEqualTo(1);
            assertThat(d.model()).isEqualTo("C");
        });
        assertThat(h.pendingCount()).isEqualTo(1);

        // A request of C that reaches g without the plan routing C there (a test's, or one routed
        // before the change and queued after it) stays: only what the change rerouted moves.
        g.admit(req("c4", "C", 12_300));
        plan.setPolicy("g", null, "clockwork", Map.of("lookahead_ms", "3"));
        groups.update(plan);
        assertThat(groups.moved()).isEmpty();
        assertThat(g.pendingRequests()).extracting(Request::id).contains("c4");

        // Nothing changed since: nothing moves again.
        groups.update(plan);
        assertThat(groups.moved()).isEmpty();
    }
}
