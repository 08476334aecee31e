package io.kairos.sim.learning;

import io.kairos.core.model.ModelCatalog;
import io.kairos.core.request.Request;
import io.kairos.core.result.ResultStatus;
import io.kairos.core.scheduling.ConfiguredPolicy;
import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.scheduling.Dispatch;
import io.kairos.core.scheduling.GroupScheduler;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.core.scheduling.learned.AgentPolicy;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/**
 * RF1, RF2 and RF3 on hand-made steps with ResNet50 (tau(b) = 0.8 b + 1.9 ms: tau(1) = 2.7,
 * tau(4) = 5.1 ms), so the early positive reward per request is 2 * 2.7 = 5.4 and the correction
 * for a late or dropped request -3 * 5.4 = -16.2.
 */
class RewardMeterTest {
    private static final String R = ModelCatalog.instanceName("resnet50", 0);

    private static GroupScheduler group(DeviceView d) {
        return new GroupScheduler("g", ModelCatalog.builtIn(), List.of(d), AgentPolicy.random(), PolicyParams.NONE);
    }

    /** A batch of 4 at time 0 on an idle device, ending at 5.1 ms; request "late" has a 4 ms deadline. */
    private static double[] batchOfFour(Reward reward) {
        return batchOfFour(reward, RewardMeter.LateCharge.AT_FATE, ResultStatus.LATE);
    }

    /** The same, the late request's correction charged as {@code charge} says, "late" ending with {@code lateEnds}. */
    private static double[] batchOfFour(Reward reward, RewardMeter.LateCharge charge, ResultStatus lateEnds) {
        DeviceView d = new DeviceView(0, null);
        GroupScheduler g = group(d);
        g.admit(new Request("late", R, 0, 4_000, null));
        for (int i = 0; i < 3; i++) g.admit(new Request("r" + i, R, 0, 20_000, null));
        Dispatch batch = g.dispatch(R, 4, d, 0);
        RewardMeter meter = new RewardMeter(reward, charge);
        meter.applied(0, g, d, List.of(batch));
        double atStep = meter.take();
        // The batch ends at 5.1 ms: three within their SLO, "late" after its deadline.
        for (Request r : batch.requests()) meter.onFate(r, r.id().equals("late") ? lateEnds : ResultStatus.OK, 5_100, 4);
        double atFates = meter.take();
        return new double[] {atStep, atFates, meter.ok(), meter.late(), meter.dropped(), meter.total()};
    }

    @Test
    void rf2GivesEachRequestItsShareAndTheEarlyRewardThenTheCorrection() {
        // Share of tau(4): 5.1 / 4 = 1.275 each. Predicted end 5.1 ms: within 20 ms for three
        // (+5.4 each), past 4 ms for "late" (no early positive): 3 * (5.4 - 1.275) - 1.275 = 11.1.
        // Then "late" ends late: -3 * 5.4 = -16.2.
        double[] r = batchOfFour(Reward.RF2);
        assertThat(r[0]).isCloseTo(11.1, within(1e-9));
        assertThat(r[1]).isCloseTo(-16.2, within(1e-9));
        assertThat(r[2]).isEqualTo(3);
        assertThat(r[3]).isEqualTo(1);
        assertThat(r[5]).isCloseTo(11.1 - 16.2, within(1e-9));
    }

    @Test
    void chargedAtStartTheStepThatStartsAPredictedLateRequestPaysItsCorrectionAndTheTotalIsTheSame() {
        // As rf2GivesEachRequestItsShare..., the -16.2 of "late" moved into the step: 11.1 - 16.2
        // = -5.1 there, nothing at the fates, the same -5.1 in all.
        double[] r = batchOfFour(Reward.RF2, RewardMeter.LateCharge.AT_START, ResultStatus.LATE);
        assertThat(r[0]).isCloseTo(-5.1, within(1e-9));
        assertThat(r[1]).isCloseTo(0, within(1e-9));
        assertThat(r[3]).isEqualTo(1);
        assertThat(r[5]).isCloseTo(11.1 - 16.2, within(1e-9));
        // Predicted late, yet met after all (the device ran faster than its profile): the charge
        // comes back at its fate, and the total is RF2's for four requests met without the early
        // reward of "late": 11.1.
        double[] met = batchOfFour(Reward.RF2, RewardMeter.LateCharge.AT_START, ResultStatus.OK);
        assertThat(met[0]).isCloseTo(-5.1, within(1e-9));
        assertThat(met[1]).isCloseTo(16.2, within(1e-9));
        assertThat(met[5]).isCloseTo(11.1, within(1e-9));
        assertThat(met[2]).isEqualTo(4);
    }

    @Test
    void aBatchPredictedToEndBeforeAWindowStartEarnsNoEarlyRewardAndPaysTheCorrection() {
        // "w" wants its answer between 100 and 1,000 ms; unheld (window_hold false), it starts
        // alone at 0 and is predicted to end at 2.7 ms, before its window: a predicted miss, as a
        // late one is. RF2 at its step: the share alone, -2.7; at its fate, EARLY, -16.2, counted
        // with the requests that ran and missed. Charged at the start, the -16.2 moves into the step.
        for (RewardMeter.LateCharge charge : RewardMeter.LateCharge.values()) {
            DeviceView d = new DeviceView(0, null);
            GroupScheduler g = new GroupScheduler("g", ModelCatalog.builtIn(), List.of(d), AgentPolicy.random(),
                    PolicyParams.of(Map.of(ConfiguredPolicy.WINDOW_HOLD, "false")));
            g.admit(new Request("w", R, 0, 1_000_000, 100_000, null));
            Dispatch batch = g.dispatch(R, 1, d, 0);
            RewardMeter meter = new RewardMeter(Reward.RF2, charge);
            meter.applied(0, g, d, List.of(batch));
            double atStep = meter.take();
            meter.onFate(batch.requests()[0], ResultStatus.EARLY, 2_700, 1);
            double atFate = meter.take();
            boolean atStart = charge == RewardMeter.LateCharge.AT_START;
            assertThat(atStep).as(charge.name()).isCloseTo(atStart ? -2.7 - 16.2 : -2.7, within(1e-9));
            assertThat(atFate).as(charge.name()).isCloseTo(atStart ? 0 : -16.2, within(1e-9));
            assertThat(meter.late()).isEqualTo(1);
            assertThat(meter.ok()).isZero();
        }
    }

    @Test
    void rf3AddsTheGpuTermOnTheWorkBookedAfterTheAction() {
        // As RF2, and the device has 5.1 ms booked after the step: -0.5 * 5.1 = -2.55 -> 8.55.
        double[] r = batchOfFour(Reward.RF3);
        assertThat(r[0]).isCloseTo(8.55, within(1e-9));
        assertThat(r[1]).isCloseTo(-16.2, within(1e-9));
    }

    @Test
    void theGpuTermIsTheMetersToSet() {
        // A wait with 3 ms booked: RF3 at 0.1 per ms -0.3, at 0 nothing; RF2 ignores it.
        DeviceView d = new DeviceView(0, null);
        GroupScheduler g = group(d);
        d.book(0, 3_000);
        double[][] cases = {{0.1, -0.3}, {0, 0}};
        for (double[] c : cases) {
            RewardMeter meter = new RewardMeter(Reward.RF3, RewardMeter.LateCharge.AT_FATE, RewardMeter.DropCharge.AT_FATE, c[0]);
            meter.applied(0, g, d, List.of());
            assertThat(meter.take()).isCloseTo(c[1], within(1e-9));
        }
        RewardMeter rf2 = new RewardMeter(Reward.RF2, RewardMeter.LateCharge.AT_FATE, RewardMeter.DropCharge.AT_FATE, 0.5);
        rf2.applied(0, g, d, List.of());
        assertThat(rf2.take()).isEqualTo(0);
        assertThatThrownBy(() -> new RewardMeter(Reward.RF3, RewardMeter.LateCharge.AT_FATE, RewardMeter.DropCharge.AT_FATE, Double.POSITIVE_INFINITY))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("got Infinity");
    }

    @Test
    void rf1CountsOnlyOutcomes() {
        // Nothing at the step; +1 three times, -1 once.
        double[] r = batchOfFour(Reward.RF1);
        assertThat(r[0]).isEqualTo(0);
        assertThat(r[1]).isEqualTo(2);
    }

    @Test
    void aWaitCostsOnlyTheBookedWorkAndADroppedRequestTheCorrection() {
        // A wait (no batch) with 3 ms booked: RF3 -1.5, RF2 0. A dropped request: RF2 and RF3
        // -16.2, RF1 -1.
        DeviceView d = new DeviceView(0, null);
        GroupScheduler g = group(d);
        d.book(0, 3_000);
        Request r = new Request("x", R, 0, 2_000, null);
        for (Reward reward : Reward.values()) {
            RewardMeter meter = new RewardMeter(reward);
            meter.applied(0, g, d, List.of());
            assertThat(meter.take()).as(reward.name()).isCloseTo(reward == Reward.RF3 ? -1.5 : 0, within(1e-9));
            meter.onFate(r, ResultStatus.DROPPED, 1_000, 0);
            assertThat(meter.take()).as(reward.name()).isCloseTo(reward == Reward.RF1 ? -1 : -16.2, within(1e-9));
            assertThat(meter.dropped()).isEqualTo(1);
        }
    }

    /**
     * One idle device; a batch of one booked at 0 on it ("first", 3 ms deadline: ends at 2.7 ms, in
     * time, 5.4 - 2.7 = +2.7). The group's earliest start moves from 0 to 2.7 ms, past the latest
     * start alone (deadline - 2.7 ms) of "sealed" (5 ms: 2.3) and, in another instance's queue,
     * "sealed2" (4 ms: 1.3), but not of "safe" (20 ms: 17.3), nor of "gone" (1 ms: -1.7), which was
     * past it before the booking. Charged at the seal, the step pays -16.2 for each sealed request:
     * 2.7 - 32.4 = -29.7. At their fates a sealed request dropped pays nothing more, one met after all
     * is paid back, and "gone" pays at its drop; the total is the thesis' timing's.
     */
    @Test
    void chargedAtTheSealTheBookingThatLeftARequestNoDeviceInTimePaysItsDropAndTheTotalIsTheSame() {
        String r2 = ModelCatalog.instanceName("resnet50", 1);
        double[] totals = new double[2];
        for (RewardMeter.DropCharge charge : RewardMeter.DropCharge.values()) {
            DeviceView d = new DeviceView(0, null);
            GroupScheduler g = group(d);
            g.admit(new Request("first", R, 0, 3_000, null));
            g.admit(new Request("sealed", R, 0, 5_000, null));
            g.admit(new Request("safe", R, 0, 20_000, null));
            Request gone = new Request("gone", r2, 0, 1_000, null);
            Request sealed2 = new Request("sealed2", r2, 0, 4_000, null);
            g.admit(gone);
            g.admit(sealed2);
            Dispatch batch = g.dispatch(R, 1, d, 0);
            assertThat(batch.requests()).extracting(Request::id).containsExactly("first");
            RewardMeter meter = new RewardMeter(Reward.RF2, RewardMeter.LateCharge.AT_FATE, charge);
            meter.applied(0, g, d, List.of(batch));
            double step = meter.take();
            meter.onFate(batch.requests()[0], ResultStatus.OK, 2_700, 1);
            meter.onFate(g.queue(R).get(0), ResultStatus.DROPPED, 2_400, 0); // "sealed"
            meter.onFate(sealed2, ResultStatus.OK, 3_900, 1);                 // met after all: the device ran early
            meter.onFate(gone, ResultStatus.DROPPED, 0, 0);
            double fates = meter.take();
            if (charge == RewardMeter.DropCharge.AT_SEAL) {
                assertThat(step).isCloseTo(2.7 - 32.4, within(1e-9));
                assertThat(fates).isCloseTo(16.2 - 16.2, within(1e-9));
            } else {
                assertThat(step).isCloseTo(2.7, within(1e-9));
                assertThat(fates).isCloseTo(-16.2 - 16.2, within(1e-9));
            }
            assertThat(meter.dropped()).isEqualTo(2);
            totals[charge.ordinal()] = meter.total();
        }
        assertThat(totals[1]).isCloseTo(totals[0], within(1e-9)).isCloseTo(-29.7, within(1e-9));
    }

    @Test
    void aStepThatBooksNothingOrLeavesTheEarliestStartWhereItWasSealsNothing() {
        // Two devices, the other free at 0: booking this one later leaves the group's earliest start at 0.
        DeviceView d = new DeviceView(0, null);
        DeviceView other = new DeviceView(1, null);
        GroupScheduler g = new GroupScheduler("g", ModelCatalog.builtIn(), List.of(d, other), AgentPolicy.random(), PolicyParams.NONE);
        g.admit(new Request("first", R, 0, 3_000, null));
        g.admit(new Request("close", R, 0, 5_000, null));
        Dispatch batch = g.dispatch(R, 1, d, 0);
        RewardMeter meter = new RewardMeter(Reward.RF2, RewardMeter.LateCharge.AT_FATE, RewardMeter.DropCharge.AT_SEAL);
        meter.applied(0, g, d, List.of(batch));
        assertThat(meter.take()).isCloseTo(2.7, within(1e-9));
        meter.applied(0, g, other, List.of());
        assertThat(meter.take()).isCloseTo(0, within(1e-9));
    }
}
