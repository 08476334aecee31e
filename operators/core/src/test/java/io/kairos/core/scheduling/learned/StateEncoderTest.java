package io.kairos.core.scheduling.learned;

import io.kairos.core.model.ModelCatalog;
import io.kairos.core.request.Request;
import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.scheduling.Dispatch;
import io.kairos.core.scheduling.GroupScheduler;
import io.kairos.core.scheduling.PolicyParams;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The thesis' 25-value state, the mask and the carrying out of an action, on hand-made queues of
 * ResNet50 instances (tau(b) = 0.8 b + 1.9 ms: 2.7, 3.5, 5.1, 8.3, 14.7 ms at 1, 2, 4, 8, 16).
 */
class StateEncoderTest {
    static final ModelCatalog CATALOG = ModelCatalog.builtIn();

    static String m(int i) {
        return ModelCatalog.instanceName("resnet50", i);
    }

    static GroupScheduler group(DeviceView... devices) {
        return new GroupScheduler("g", CATALOG, List.of(devices), AgentPolicy.random(), PolicyParams.NONE);
    }

    static void admit(GroupScheduler g, String id, String model, long arrival, long deadline) {
        g.admit(new Request(id, model, arrival, deadline, null));
    }

    @Test
    void slotsHoldTheMostUrgentQueuesWithTheirLaxityAndTheDeviceItsBookedWork() {
        // Model 0: three requests, deadlines 20, 25, 30 ms; model 1: one request, deadline 10 ms.
        // At now = 1 ms, with 5 ms of work booked on the device at 1 ms:
        //   slot 0 = model 1 (expires first): 1 pending, laxity 10 - 1 - 2.7 = 6.3 ms;
        //   slot 1 = model 0: 3 pending, laxity 20 - 1 - 2.7 = 16.3 ms;
        //   slots 2..11: padding 0 and 1000; last value: 5 ms of booked work.
        DeviceView d = new DeviceView(0, null);
        GroupScheduler g = group(d);
        admit(g, "a", m(0), 0, 20_000);
        admit(g, "b", m(0), 0, 25_000);
        admit(g, "c", m(0), 0, 30_000);
        admit(g, "x", m(1), 0, 10_000);
        d.book(1_000, 5_000);
        StateEncoder e = new StateEncoder();
        float[] s = new float[StateEncoder.STATE_SIZE];
        e.encode(g, d, 1_000, s);
        assertThat(s.length).isEqualTo(25);
        assertThat(s[0]).isEqualTo(1f);
        assertThat(s[1]).isCloseTo(6.3f, within(1e-5f));
        assertThat(s[2]).isEqualTo(3f);
        assertThat(s[3]).isCloseTo(16.3f, within(1e-5f));
        for (int i = 2; i < 12; i++) {
            assertThat(s[2 * i]).isEqualTo(0f);
            assertThat(s[2 * i + 1]).isEqualTo(1000f);
        }
        assertThat(s[24]).isEqualTo(5f);
        assertThat(e.filled()).isEqualTo(2);
        assertThat(e.slot(0).model()).isEqualTo(m(1));
        assertThat(e.slot(1).model()).isEqualTo(m(0));
        assertThat(e.slot(2)).isNull();
    }

    @Test
    void maskAllowsInferOnlyOnPendingSlotsAndNoBatchAboveWhatIsPending() {
        // Slot 0: 1 pending -> null, infer, batch 1 only. Slot 1: 3 pending -> batches 1 and 2
        // (4 > 3). Padding: null, and batch 1 kept as the moot choice; infer not allowed.
        DeviceView d = new DeviceView(0, null);
        GroupScheduler g = group(d);
        admit(g, "a", m(0), 0, 20_000);
        admit(g, "b", m(0), 0, 25_000);
        admit(g, "c", m(0), 0, 30_000);
        admit(g, "x", m(1), 0, 10_000);
        StateEncoder e = new StateEncoder();
        e.encode(g, d, 0, new float[StateEncoder.STATE_SIZE]);
        boolean[] mask = new boolean[StateEncoder.MASK_SIZE];
        e.mask(mask);
        assertThat(Arrays.copyOfRange(mask, 0, 7)).containsExactly(true, true, true, false, false, false, false);
        assertThat(Arrays.copyOfRange(mask, 7, 14)).containsExactly(true, true, true, true, false, false, false);
        for (int slot = 2; slot < 12; slot++) {
            assertThat(Arrays.copyOfRange(mask, slot * 7, slot * 7 + 7)).containsExactly(true, false, true, false, false, false, false);
        }
    }

    @Test
    void aQueueOfSixteenOrMoreAllowsEveryBatchSize() {
        DeviceView d = new DeviceView(0, null);
        GroupScheduler g = group(d);
        for (int i = 0; i < 17; i++) admit(g, "r" + i, m(0), 0, 50_000);
        StateEncoder e = new StateEncoder();
        e.encode(g, d, 0, new float[StateEncoder.STATE_SIZE]);
        boolean[] mask = new boolean[StateEncoder.MASK_SIZE];
        e.mask(mask);
        assertThat(Arrays.copyOfRange(mask, 0, 7)).containsOnly(true);
    }

    @Test
    void onlyTheTwelveQueuesThatExpireSoonestAreInTheState() {
        // Fourteen models, one request each, model i with deadline 100 - i ms: model 13 expires
        // first. The slots hold models 13 down to 2; models 1 and 0 (deadlines 99, 100 ms) are left out.
        DeviceView d = new DeviceView(0, null);
        GroupScheduler g = group(d);
        for (int i = 0; i < 14; i++) admit(g, "r" + i, m(i), 0, (100 - i) * 1000L);
        StateEncoder e = new StateEncoder();
        float[] s = new float[StateEncoder.STATE_SIZE];
        e.encode(g, d, 0, s);
        assertThat(e.filled()).isEqualTo(12);
        for (int slot = 0; slot < 12; slot++) {
            assertThat(e.slot(slot).model()).isEqualTo(m(13 - slot));
            // laxity = (100 - (13 - slot)) - 2.7 ms
            assertThat(s[2 * slot + 1]).isCloseTo(100 - (13 - slot) - 2.7f, within(1e-4f));
        }
    }

    @Test
    void aDeviceSeesOnlyTheModelsItHolds() {
        DeviceView holdsOne = new DeviceView(0, java.util.Set.of(m(0)));
        DeviceView holdsAll = new DeviceView(1, null);
        GroupScheduler g = group(holdsOne, holdsAll);
        admit(g, "a", m(0), 0, 20_000);
        admit(g, "x", m(1), 0, 10_000);
        StateEncoder e = new StateEncoder();
        e.encode(g, holdsOne, 0, new float[StateEncoder.STATE_SIZE]);
        assertThat(e.filled()).isEqualTo(1);
        assertThat(e.slot(0).model()).isEqualTo(m(0));
    }

    @Test
    void anActionOutsideTheMaskIsRefusedWithTheSlotAndTheReason() {
        DeviceView d = new DeviceView(0, null);
        GroupScheduler g = group(d);
        admit(g, "a", m(0), 0, 20_000);
        admit(g, "b", m(0), 0, 25_000);
        admit(g, "c", m(0), 0, 30_000);
        StateEncoder e = new StateEncoder();
        e.encode(g, d, 0, new float[StateEncoder.STATE_SIZE]);
        int[] action = new int[StateEncoder.ACTION_SIZE];
        assertThat(e.invalid(action)).isNull(); // all null: a wait
        action[0] = 1;
        action[1] = 2; // batch of 4, 3 pending
        assertThat(e.invalid(action)).isEqualTo("slot 0: batch of 4 but 3 can run (3 pending)");
        action[1] = 1;
        assertThat(e.invalid(action)).isNull();
        action[2] = 1; // slot 1 is padding
        assertThat(e.invalid(action)).isEqualTo("slot 1: infer on a slot with no pending request");
        action[2] = 0;
        action[3] = 5;
        assertThat(e.invalid(action)).isEqualTo("slot 1: batch-size index must be 0 to 4, got 5");
    }

    @Test
    void inferStartsTheBatchOfTheEarliestDeadlinesOnTheDevice() {
        // Slot 1 (model 0: deadlines 20, 25, 30 ms) infers a batch of 2; slot 0 (model 1) waits.
        // The batch starts at 0 on the idle device and takes tau(2) = 3.5 ms.
        DeviceView d = new DeviceView(0, null);
        GroupScheduler g = group(d);
        admit(g, "c", m(0), 0, 30_000);
        admit(g, "a", m(0), 0, 20_000);
        admit(g, "b", m(0), 0, 25_000);
        admit(g, "x", m(1), 0, 10_000);
        StateEncoder e = new StateEncoder();
        e.encode(g, d, 0, new float[StateEncoder.STATE_SIZE]);
        int[] action = new int[StateEncoder.ACTION_SIZE];
        action[2] = 1;
        action[3] = 1;
        List<Dispatch> started = new ArrayList<>();
        assertThat(e.apply(g, d, 0, action, started::add)).isEqualTo(1);
        assertThat(started).hasSize(1);
        Dispatch batch = started.get(0);
        assertThat(batch.model()).isEqualTo(m(0));
        assertThat(Arrays.stream(batch.requests()).map(Request::id)).containsExactly("a", "b");
        assertThat(batch.predictedStartMicros()).isEqualTo(0);
        assertThat(batch.predictedLatencyMicros()).isEqualTo(3_500);
        assertThat(d.outstandingMicros(0)).isEqualTo(3_500);
        assertThat(g.pendingCount()).isEqualTo(2);
    }
}
