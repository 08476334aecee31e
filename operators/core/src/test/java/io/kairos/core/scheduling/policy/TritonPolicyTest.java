package io.kairos.core.scheduling.policy;

import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.request.Request;
import io.kairos.core.scheduling.Dispatch;
import io.kairos.core.scheduling.GroupScheduler;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.core.scheduling.SchedulingPolicy;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Random;

import static io.kairos.core.scheduling.policy.SchedulingFixtures.CATALOG;
import static io.kairos.core.scheduling.policy.SchedulingFixtures.device;
import static io.kairos.core.scheduling.policy.SchedulingFixtures.droppedIds;
import static io.kairos.core.scheduling.policy.SchedulingFixtures.ids;
import static io.kairos.core.scheduling.policy.SchedulingFixtures.req;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TritonPolicyTest {

    private static final long FAR = 10_000_000; // a deadline that never matters

    private static GroupScheduler scheduler(PolicyParams params, DeviceView... devices) {
        return new GroupScheduler("g", CATALOG, List.of(devices), new TritonPolicy(), params);
    }

    private static PolicyParams params(String... keyValues) {
        Map<String, String> m = new java.util.HashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) m.put(keyValues[i], keyValues[i + 1]);
        return PolicyParams.of(m);
    }

    @Test
    void nameIsTriton() {
        assertThat(new TritonPolicy().name()).isEqualTo("triton");
        assertThat(Policies.create("triton")).isInstanceOf(TritonPolicy.class);
    }

    @Test
    void releasesWhenTheQueueReachesMaxBatch() {
        // max_batch 4, delay 10 ms: three arrivals wait for the oldest (t=0) to have waited 10 ms,
        // the fourth fills the batch at t=3 ms: R at 4 = 5.1 ms, from 3 to 8.1 ms.
        GroupScheduler g = scheduler(params("max_batch", "4", "max_queue_delay_ms", "10"), device(0));
        for (int i = 0; i < 3; i++) {
            g.admit(req("r" + i, "R", i * 1_000L, FAR));
            GroupScheduler.Outcome o = g.schedule(i * 1_000L);
            assertThat(o.dispatches()).isEmpty();
            assertThat(o.nextWakeMicros()).isEqualTo(10_000);
        }
        g.admit(req("r3", "R", 3_000, FAR));
        GroupScheduler.Outcome o = g.schedule(3_000);
        assertThat(o.dispatches()).singleElement().satisfies(d -> {
            assertThat(ids(d)).containsExactly("r0", "r1", "r2", "r3");
            assertThat(d.device()).isZero();
            assertThat(d.predictedStartMicros()).isEqualTo(3_000);
            assertThat(d.predictedLatencyMicros()).isEqualTo(5_100);
        });
        assertThat(o.nextWakeMicros()).isEqualTo(SchedulingPolicy.NO_WAKE);
    }

    @Test
    void releasesWhenTheOldestHasWaitedMaxQueueDelay() {
        // Arrivals at 0 and 4 ms, delay 10 ms: wake at 0 + 10 ms; at 9.999 ms still waiting; at 10 ms a batch of 2
        // (3.5 ms).
        GroupScheduler g = scheduler(params("max_batch", "8", "max_queue_delay_ms", "10"), device(0));
        g.admit(req("r0", "R", 0, FAR));
        assertThat(g.schedule(0).nextWakeMicros()).isEqualTo(10_000);
        g.admit(req("r1", "R", 4_000, FAR));
        assertThat(g.schedule(4_000).nextWakeMicros()).isEqualTo(10_000);

        GroupScheduler.Outcome early = g.schedule(9_999);
        assertThat(early.dispatches()).isEmpty();
        assertThat(early.nextWakeMicros()).isEqualTo(10_000);

        GroupScheduler.Outcome o = g.schedule(10_000);
        assertThat(o.dispatches()).singleElement().satisfies(d -> {
            assertThat(ids(d)).containsExactly("r0", "r1");
            assertThat(d.predictedStartMicros()).isEqualTo(10_000);
            assertThat(d.predictedLatencyMicros()).isEqualTo(3_500);
        });
    }

    @Test
    void defaultDelayIsOneMillisecond() {
        GroupScheduler g = scheduler(PolicyParams.NONE, device(0));
        g.admit(req("r0", "R", 500, FAR));
        assertThat(g.schedule(500).nextWakeMicros()).isEqualTo(1_500);
        assertThat(g.schedule(1_500).dispatches()).hasSize(1);
    }

    @Test
    void releasesOnlyToAnIdleDevice() {
        // A full batch at t=0, but the only device is booked until 20 ms: wait for it, then start there.
        DeviceView d0 = device(0);
        d0.book(0, 20_000);
        GroupScheduler g = scheduler(params("max_batch", "4"), d0);
        for (int i = 0; i < 4; i++) g.admit(req("r" + i, "R", 0, FAR));

        GroupScheduler.Outcome o = g.schedule(0);
        assertThat(o.dispatches()).isEmpty();
        assertThat(o.nextWakeMicros()).isEqualTo(20_000);

        GroupScheduler.Outcome later = g.schedule(20_000);
        assertThat(later.dispatches()).singleElement().satisfies(d -> {
            assertThat(d.size()).isEqualTo(4);
            assertThat(d.predictedStartMicros()).isEqualTo(20_000);
        });
    }

    @Test
    void withALookaheadTheNextBatchIsSentBeforeTheDeviceFrees() {
        // The device is booked until 20 ms; lookahead 3 ms: from 17 ms on it counts as idle, and the
        // batch sent then is booked to start at 20 ms, back to back with the one before.
        DeviceView d0 = device(0);
        d0.book(0, 20_000);
        GroupScheduler g = scheduler(params("max_batch", "4", "lookahead_ms", "3"), d0);
        for (int i = 0; i < 4; i++) g.admit(req("r" + i, "R", 0, FAR));

        GroupScheduler.Outcome o = g.schedule(0);
        assertThat(o.dispatches()).isEmpty();
        assertThat(o.nextWakeMicros()).isEqualTo(17_000);
        assertThat(g.schedule(16_999).dispatches()).isEmpty();

        GroupScheduler.Outcome ahead = g.schedule(17_000);
        assertThat(ahead.dispatches()).singleElement().satisfies(d -> {
            assertThat(d.size()).isEqualTo(4);
            assertThat(d.predictedStartMicros()).isEqualTo(20_000);
        });
        // R at 4 takes 5.1 ms: the device is now booked until 25.1 ms, and a second full batch
        // waits for 22.1 ms, not for 25.1.
        for (int i = 4; i < 8; i++) g.admit(req("r" + i, "R", 17_500, FAR));
        assertThat(g.schedule(17_500).nextWakeMicros()).isEqualTo(22_100);
        assertThat(g.schedule(22_100).dispatches()).singleElement()
                .satisfies(d -> assertThat(d.predictedStartMicros()).isEqualTo(25_100));
    }

    @Test
    void theLookaheadDoesNotShortenTheQueueDelay() {
        // An idle device and one request: the lookahead is about devices, the 10 ms delay still holds.
        GroupScheduler g = scheduler(params("max_batch", "4", "max_queue_delay_ms", "10", "lookahead_ms", "3"), device(0));
        g.admit(req("r0", "R", 0, FAR));
        GroupScheduler.Outcome o = g.schedule(0);
        assertThat(o.dispatches()).isEmpty();
        assertThat(o.nextWakeMicros()).isEqualTo(10_000);
    }

    @Test
    void picksTheIdleDeviceOverABusyOne() {
        DeviceView busy = device(0);
        busy.book(0, 20_000);
        GroupScheduler g = scheduler(params("max_batch", "1"), busy, device(1));
        g.admit(req("r", "R", 0, FAR));
        assertThat(g.schedule(0).dispatches()).singleElement().satisfies(d -> {
            assertThat(d.device()).isEqualTo(1);
            assertThat(d.predictedStartMicros()).isZero();
        });
    }

    @Test
    void perModelMaxBatchOverridesTheGroups() {
        // Group max_batch 4, R2 overridden to 2; long delay, so only a full batch is released.
        PolicyParams p = params("max_batch", "4", "max_queue_delay_ms", "1000").withModel("R2", Map.of("max_batch", "2"));
        GroupScheduler g = scheduler(p, device(0), device(1));
        g.admit(req("a0", "R", 0, FAR));
        g.admit(req("a1", "R", 0, FAR));
        g.admit(req("b0", "R2", 0, FAR));
        g.admit(req("b1", "R2", 0, FAR));
        GroupScheduler.Outcome o = g.schedule(0);
        assertThat(o.dispatches()).singleElement().satisfies(d -> {
            assertThat(d.model()).isEqualTo("R2");
            assertThat(ids(d)).containsExactly("b0", "b1");
        });
        assertThat(g.pendingCount()).isEqualTo(2);
    }

    @Test
    void maxBatchIsCappedByTheProfile() {
        // max_batch 64 but R's largest size is 16: 20 queued -> one batch of 16 now, 4 left to wait for the delay.
        GroupScheduler g = scheduler(params("max_batch", "64"), device(0), device(1));
        for (int i = 0; i < 20; i++) g.admit(req("r" + i, "R", 0, FAR));
        GroupScheduler.Outcome o = g.schedule(0);
        assertThat(o.dispatches()).singleElement().satisfies(d -> assertThat(d.size()).isEqualTo(16));
        assertThat(g.pendingCount()).isEqualTo(4);
        assertThat(o.nextWakeMicros()).isEqualTo(1_000);
    }

    @Test
    void oldestWaitingModelGetsTheIdleDeviceFirst() {
        // R2 waits since 0, R since 0.1 ms; the device frees at 5 ms: R2 goes first, R behind it.
        DeviceView d0 = device(0);
        d0.book(0, 5_000);
        GroupScheduler g = scheduler(params("max_batch", "1"), d0);
        g.admit(req("late", "R", 100, FAR));
        g.admit(req("early", "R2", 0, FAR));
        assertThat(g.schedule(100).dispatches()).isEmpty();
        GroupScheduler.Outcome o = g.schedule(5_000);
        assertThat(o.dispatches()).singleElement().satisfies(d -> assertThat(ids(d)).containsExactly("early"));
        assertThat(o.nextWakeMicros()).isEqualTo(5_000 + 2_700);
    }

    @Test
    void fifoMissesTheTightDeadlineThatClockworkMeets() {
        // The case of LatestStartClockworkTest: A (10 ms, SLO 100 ms) at t=0 and B (1 ms, deadline 10 ms) at
        // 1 us, one device. Each is a full batch (their only size is 1); A, the older, takes the device for
        // [0, 10) ms. B alone would finish at 10 + 1 = 11 ms > 10 ms: it becomes unreachable at
        // 10 - 1 ms + 1 us = 9001 us, and is shed then.
        GroupScheduler g = scheduler(PolicyParams.NONE, device(0));
        g.admit(req("a", "A", 0, 100_000));
        g.admit(req("b", "B", 1, 10_000));
        GroupScheduler.Outcome o = g.schedule(1);
        assertThat(o.dispatches()).singleElement().satisfies(d -> {
            assertThat(ids(d)).containsExactly("a");
            assertThat(d.predictedEndMicros()).isEqualTo(10_001);
        });
        assertThat(o.nextWakeMicros()).isEqualTo(9_001);
        GroupScheduler.Outcome later = g.schedule(9_001);
        assertThat(droppedIds(later)).containsExactly("b");
        assertThat(later.drops().get(0).reason()).contains("1001 us late");
    }

    @Test
    void withSheddingOffALateRequestIsDispatchedAnyway() {
        // Deadline 1 ms after arrival, tau(1) = 2.7 ms: unreachable from the start. Delay 0: release at once.
        GroupScheduler shedding = scheduler(params("max_queue_delay_ms", "0"), device(0));
        shedding.admit(req("r", "R", 0, 1_000));
        GroupScheduler.Outcome shed = shedding.schedule(0);
        assertThat(droppedIds(shed)).containsExactly("r");
        assertThat(shed.dispatches()).isEmpty();

        GroupScheduler keeping = scheduler(params("max_queue_delay_ms", "0", GroupScheduler.SHED, "false"), device(0));
        keeping.admit(req("r", "R", 0, 1_000));
        GroupScheduler.Outcome kept = keeping.schedule(0);
        assertThat(kept.drops()).isEmpty();
        assertThat(kept.dispatches()).singleElement().satisfies(d -> assertThat(d.predictedEndMicros()).isEqualTo(2_700));
    }

    @Test
    void withSheddingOffTheQueueTimeoutRejectsBAtItsDeadline() {
        // As above for A and B, without the group's shedding: Triton's queue policy (timeout = SLO) still
        // gives up on B when its deadline, 10 ms, passes while it waits for the device (busy until 10.001 ms).
        GroupScheduler g = scheduler(params(GroupScheduler.SHED, "false"), device(0));
        g.admit(req("a", "A", 0, 100_000));
        g.admit(req("b", "B", 1, 10_000));
        GroupScheduler.Outcome o = g.schedule(1);
        assertThat(ids(o.dispatches().get(0))).containsExactly("a");
        assertThat(o.nextWakeMicros()).isEqualTo(10_000);
        assertThat(g.schedule(9_999).drops()).isEmpty();
        GroupScheduler.Outcome at = g.schedule(10_000);
        assertThat(droppedIds(at)).containsExactly("b");
        assertThat(at.drops().get(0).reason()).startsWith("queue timeout").contains("timeout = SLO");
        assertThat(at.dispatches()).isEmpty();
        assertThat(g.pendingCount()).isZero();
    }

    @Test
    void aQueueTimeoutInMillisecondsCountsFromArrival() {
        // queue_timeout_ms 3, delay 10 ms, max_batch 8: r0 (t=0) times out at 3 ms, r1 (t=2 ms) at 5 ms;
        // the wake times say so, and each is dropped at its own time with the timeout in the reason.
        GroupScheduler g = scheduler(params("max_batch", "8", "max_queue_delay_ms", "10", "queue_timeout_ms", "3", GroupScheduler.SHED, "false"), device(0));
        g.admit(req("r0", "R", 0, FAR));
        assertThat(g.schedule(0).nextWakeMicros()).isEqualTo(3_000);
        g.admit(req("r1", "R", 2_000, FAR));
        assertThat(g.schedule(2_000).nextWakeMicros()).isEqualTo(3_000);
        GroupScheduler.Outcome first = g.schedule(3_000);
        assertThat(droppedIds(first)).containsExactly("r0");
        assertThat(first.drops().get(0).reason()).contains("longer than 3.0 ms");
        assertThat(first.nextWakeMicros()).isEqualTo(5_000);
        assertThat(droppedIds(g.schedule(5_000))).containsExactly("r1");
    }

    @Test
    void queueTimeoutZeroNeverRejects() {
        GroupScheduler g = scheduler(params("queue_timeout_ms", "0", GroupScheduler.SHED, "false"), device(0));
        g.admit(req("a", "A", 0, 100_000));
        g.admit(req("b", "B", 1, 10_000));
        g.schedule(1);
        GroupScheduler.Outcome later = g.schedule(10_001);
        assertThat(later.drops()).isEmpty();
        assertThat(ids(later.dispatches().get(0))).containsExactly("b");
    }

    @Test
    void preferredSizesGoAtOnceTheLargestFirst() {
        // preferred 2,4, delay 10 ms: 1 queued waits; 2 go at once; with 3 queued the largest preferred size
        // held, 2, goes and 1 waits; with 5 queued (the device idle again) 4 go, the largest preferred size.
        DeviceView d0 = device(0);
        GroupScheduler g = scheduler(params("preferred_batch_sizes", "2,4", "max_queue_delay_ms", "10"), d0);
        g.admit(req("a0", "R", 0, FAR));
        assertThat(g.schedule(0).dispatches()).isEmpty();
        g.admit(req("a1", "R", 100, FAR));
        assertThat(g.schedule(100).dispatches()).singleElement().satisfies(d -> assertThat(ids(d)).containsExactly("a0", "a1"));
        // The device is busy for 3.5 ms; three arrive meanwhile.
        for (int i = 0; i < 3; i++) g.admit(req("b" + i, "R", 200 + i, FAR));
        GroupScheduler.Outcome busy = g.schedule(202);
        assertThat(busy.dispatches()).isEmpty();
        assertThat(busy.nextWakeMicros()).isEqualTo(3_600);
        GroupScheduler.Outcome three = g.schedule(3_600);
        assertThat(three.dispatches()).singleElement().satisfies(d -> assertThat(ids(d)).containsExactly("b0", "b1"));
        // b2 waits; four more arrive while the batch of 2 runs (to 7.1 ms): 5 queued, 4 go.
        for (int i = 0; i < 4; i++) g.admit(req("c" + i, "R", 4_000 + i, FAR));
        GroupScheduler.Outcome five = g.schedule(7_100);
        assertThat(five.dispatches()).singleElement().satisfies(d -> assertThat(ids(d)).containsExactly("b2", "c0", "c1", "c2"));
        assertThat(g.pendingCount()).isEqualTo(1);
    }

    @Test
    void belowTheSmallestPreferredSizeAllGoAfterTheDelay() {
        // preferred 4,8, delay 2 ms: 3 queued since 0 go together at 2 ms, not a preferred size.
        GroupScheduler g = scheduler(params("preferred_batch_sizes", "4,8", "max_queue_delay_ms", "2"), device(0));
        for (int i = 0; i < 3; i++) g.admit(req("r" + i, "R", 0, FAR));
        assertThat(g.schedule(0).nextWakeMicros()).isEqualTo(2_000);
        assertThat(g.schedule(2_000).dispatches()).singleElement().satisfies(d -> assertThat(d.size()).isEqualTo(3));
    }

    @Test
    void batchSizeFollowsTritonsRules() {
        int[] none = {};
        int[] p = {4, 8};
        assertThat(TritonPolicy.batchSize(3, 16, none)).isZero();
        assertThat(TritonPolicy.batchSize(16, 16, none)).isEqualTo(16);
        assertThat(TritonPolicy.batchSize(40, 16, none)).isEqualTo(16);
        assertThat(TritonPolicy.batchSize(3, 16, p)).isZero();
        assertThat(TritonPolicy.batchSize(4, 16, p)).isEqualTo(4);
        assertThat(TritonPolicy.batchSize(7, 16, p)).isEqualTo(4);
        assertThat(TritonPolicy.batchSize(8, 16, p)).isEqualTo(8);
        assertThat(TritonPolicy.batchSize(30, 16, p)).isEqualTo(8);
        // A profile whose largest size is below the preferred ones: its maximum caps them.
        assertThat(TritonPolicy.batchSize(30, 6, p)).isEqualTo(4);
    }

    @Test
    void badPreferredSizesAndTimeoutsAreRejectedWithTheirValue() {
        assertThatThrownBy(() -> scheduler(params("preferred_batch_sizes", "8,4"), device(0)))
                .hasMessageContaining("preferred_batch_sizes").hasMessageContaining("'8,4'").hasMessageContaining("increasing");
        assertThatThrownBy(() -> scheduler(params("preferred_batch_sizes", "4,x"), device(0))).hasMessageContaining("'4,x'");
        assertThatThrownBy(() -> scheduler(params("preferred_batch_sizes", "4,32", "max_batch", "16"), device(0)))
                .hasMessageContaining("must not exceed max_batch (16)");
        assertThatThrownBy(() -> scheduler(params("lookahead_ms", "-1"), device(0)))
                .hasMessageContaining("lookahead_ms").hasMessageContaining("'-1'");
        assertThatThrownBy(() -> scheduler(params("queue_timeout_ms", "soon"), device(0)))
                .hasMessageContaining("queue_timeout_ms").hasMessageContaining("'soon'");
        assertThat(((TritonPolicy) new TritonPolicy().configure(new io.kairos.core.scheduling.ParamReader("g", "triton",
                params("queue_timeout_ms", " SLO ")))).batching().of("R").queueTimeoutMicros()).isEqualTo(TritonPolicy.AT_DEADLINE);
    }

    @Test
    void withSheddingAndTimeoutOffFifoRunsBLate() {
        // As above for A and B, but without shedding or timeout: B waits for the device (free at 10 ms) and ends at 11 ms.
        GroupScheduler g = scheduler(params(GroupScheduler.SHED, "false", "queue_timeout_ms", "0"), device(0));
        g.admit(req("a", "A", 0, 100_000));
        g.admit(req("b", "B", 1, 10_000));
        GroupScheduler.Outcome o = g.schedule(0);
        assertThat(o.nextWakeMicros()).isEqualTo(10_000);
        GroupScheduler.Outcome later = g.schedule(10_000);
        assertThat(later.dispatches()).singleElement().satisfies(d -> {
            assertThat(ids(d)).containsExactly("b");
            assertThat(d.predictedEndMicros()).isEqualTo(11_000);
        });
    }

    @Test
    void randomArrivalsEndExactlyOnceWithinMaxBatchOnIdleDevices() {
        ModelCatalog catalog = ModelCatalog.builtIn();
        List<String> models = catalog.names();
        int drops = 0;
        int largestBatch = 0;
        for (long seed = 1; seed <= 12; seed++) {
            Random rnd = new Random(seed);
            int deviceCount = 2 + rnd.nextInt(3);
            List<DeviceView> devices = GroupSimulation.devices(rnd, deviceCount, models);
            List<Request> arrivals = GroupSimulation.randomLoad(rnd, 3000, models);
            int maxBatch = 1 + rnd.nextInt(12);
            boolean shed = seed % 3 != 0;
            PolicyParams p = params("max_batch", Integer.toString(maxBatch), "max_queue_delay_ms", Double.toString(rnd.nextInt(5) * 0.5),
                    GroupScheduler.SHED, Boolean.toString(shed))
                    .withModel("mlp", Map.of("max_batch", "32"));
            GroupSimulation sim = new GroupSimulation().run(catalog, devices, new TritonPolicy(), p, arrivals);

            for (GroupSimulation.Made m : sim.dispatched) {
                Dispatch d = m.dispatch();
                int limit = Math.min(d.model().equals("mlp") ? 32 : maxBatch, catalog.get(d.model()).latency().maxBatch());
                assertThat(d.size()).as("seed %d", seed).isLessThanOrEqualTo(limit);
                // Only to a device idle at the time of the decision.
                assertThat(d.predictedStartMicros()).as("seed %d", seed).isEqualTo(m.at());
            }
            if (!shed) {
                // Without shedding only requests of a model no device holds are dropped, and those whose
                // deadline passed while queued (the queue timeout), never before it.
                for (GroupSimulation.Shed s : sim.dropped) {
                    if (s.drop().reason().startsWith("queue timeout")) {
                        assertThat(s.at()).as("seed %d", seed).isGreaterThanOrEqualTo(s.drop().request().deadlineMicros());
                    } else {
                        assertThat(s.drop().reason()).contains("holds model");
                    }
                }
            }
            drops += sim.dropped.size();
            for (GroupSimulation.Made m : sim.dispatched) largestBatch = Math.max(largestBatch, m.dispatch().size());
        }
        assertThat(drops).isPositive();
        assertThat(largestBatch).isGreaterThan(1);
    }

    @Test
    void aTimeoutSharedByEveryModelRejectsWhatTheScanOfEveryModelRejects() {
        // One group-wide timeout finds the expired heads in the queues' order by head arrival; the
        // same timeout given to one model as an override makes the policy look at every model. Both
        // must reject the same requests at the same times and send the same batches.
        ModelCatalog catalog = ModelCatalog.builtIn();
        List<String> models = catalog.names();
        int timedOut = 0;
        for (long seed = 1; seed <= 8; seed++) {
            for (String timeout : List.of("3", "0")) {
                Random rnd = new Random(seed);
                int deviceCount = 1 + rnd.nextInt(3);
                // One SLO for all, as the class says its timeout check at the head assumes.
                List<Request> arrivals = GroupSimulation.arrivals(rnd, 3000, models, 200 + rnd.nextInt(1800), 20);
                PolicyParams shared = params("max_batch", "4", "max_queue_delay_ms", "1", "queue_timeout_ms", timeout, GroupScheduler.SHED, "false");
                PolicyParams scanned = shared.withModel(models.get(0), Map.of("queue_timeout_ms", timeout));
                GroupSimulation byOrder = new GroupSimulation().run(catalog, uniformDevices(deviceCount), new TritonPolicy(), shared, arrivals);
                GroupSimulation byScan = new GroupSimulation().run(catalog, uniformDevices(deviceCount), new TritonPolicy(), scanned, arrivals);
                assertThat(outcomes(byOrder)).as("seed %d, timeout %s ms", seed, timeout).isEqualTo(outcomes(byScan));
                long expired = byOrder.dropped.stream().filter(d -> d.drop().reason().startsWith("queue timeout")).count();
                if (timeout.equals("0")) assertThat(expired).as("seed %d: no timeout, nothing times out", seed).isZero();
                timedOut += (int) expired;
            }
        }
        assertThat(timedOut).as("the loads must make requests wait out a 3 ms timeout").isPositive();
    }

    private static List<DeviceView> uniformDevices(int count) {
        List<DeviceView> out = new java.util.ArrayList<>();
        for (int i = 0; i < count; i++) out.add(device(i));
        return out;
    }

    /** What a run decided, order aside within one instant: each batch (when, device, requests) and each drop (when, request). */
    private static java.util.Set<String> outcomes(GroupSimulation sim) {
        java.util.Set<String> out = new java.util.HashSet<>();
        for (GroupSimulation.Made m : sim.dispatched) out.add(m.at() + " d" + m.dispatch().device() + " " + ids(m.dispatch()));
        for (GroupSimulation.Shed s : sim.dropped) out.add(s.at() + " x " + s.drop().request().id());
        return out;
    }
}
