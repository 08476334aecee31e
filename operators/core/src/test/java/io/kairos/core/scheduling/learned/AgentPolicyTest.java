package io.kairos.core.scheduling.learned;

import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.scheduling.Dispatch;
import io.kairos.core.scheduling.GroupScheduler;
import io.kairos.core.scheduling.GroupView;
import io.kairos.core.scheduling.ParamReader;
import io.kairos.core.scheduling.PolicyParams;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.kairos.core.scheduling.learned.StateEncoderTest.admit;
import static io.kairos.core.scheduling.learned.StateEncoderTest.m;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The order in which one decision round asks the group's devices: the least work booked first,
 * ties in the group's order (ResNet50 instances, tau(1) = 2.7 ms).
 */
class AgentPolicyTest {

    /** Infers the most urgent slot alone, batch of 1, on whichever device it is asked for; records where. */
    static final class FirstSlot implements Agent {
        final List<Integer> asked = new ArrayList<>();
        final List<String> started = new ArrayList<>();

        @Override
        public void act(float[] state, boolean[] mask, int[] action) {
            java.util.Arrays.fill(action, 0);
            action[0] = mask[1] ? 1 : 0;
        }

        @Override
        public void applied(long nowMicros, GroupView group, DeviceView device, List<Dispatch> batches) {
            asked.add(device.slot());
            for (Dispatch d : batches) started.add(d.model() + "@" + device.slot());
        }
    }

    static GroupScheduler group(Agent agent, DeviceView... devices) {
        return group(agent, PolicyParams.NONE, devices);
    }

    static GroupScheduler group(Agent agent, PolicyParams params, DeviceView... devices) {
        return new GroupScheduler("g", StateEncoderTest.CATALOG, List.of(devices), AgentPolicy.drivenBy("test", agent), params);
    }

    /**
     * Devices 0, 1, 2 with 5, 2 and 0 ms booked at 1 ms; two models, one request each (model 1
     * expires first); one decision at 1 ms with {@code params}. Returns the agent that recorded it.
     */
    static FirstSlot decideWithFiveTwoAndZeroBooked(PolicyParams params) {
        DeviceView d0 = new DeviceView(0, null), d1 = new DeviceView(1, null), d2 = new DeviceView(2, null);
        FirstSlot agent = new FirstSlot();
        GroupScheduler g = group(agent, params, d0, d1, d2);
        d0.book(1_000, 5_000);
        d1.book(1_000, 2_000);
        admit(g, "a", m(0), 0, 30_000);
        admit(g, "x", m(1), 0, 10_000);
        g.schedule(1_000);
        return agent;
    }

    @Test
    void asksTheDeviceWithTheLeastWorkBookedFirst() {
        // The idle device 2 is asked first and takes model 1 (slot 0), device 1 (2 ms) takes model
        // 0, device 0 (5 ms) finds nothing pending and is not asked. In the group's order device 0
        // would have taken model 1 behind its 5 ms.
        FirstSlot agent = decideWithFiveTwoAndZeroBooked(PolicyParams.NONE);
        assertThat(agent.asked).containsExactly(2, 1);
        assertThat(agent.started).containsExactly(m(1) + "@2", m(0) + "@1");
    }

    @Test
    void tiesKeepTheGroupsOrder() {
        // Devices 0 and 2 idle, device 1 with 3 ms: 0 before 2, 1 last.
        DeviceView d0 = new DeviceView(0, null), d1 = new DeviceView(1, null), d2 = new DeviceView(2, null);
        FirstSlot agent = new FirstSlot();
        GroupScheduler g = group(agent, d0, d1, d2);
        d1.book(1_000, 3_000);
        admit(g, "a", m(0), 0, 30_000);
        admit(g, "b", m(1), 0, 20_000);
        admit(g, "c", m(2), 0, 10_000);
        g.schedule(1_000);
        assertThat(agent.started).containsExactly(m(2) + "@0", m(1) + "@2", m(0) + "@1");
    }

    @Test
    void inTheGroupsOrderTheFirstDeviceTakesTheMostUrgentBehindItsBookedWork() {
        // The first case with device_order=group: device 0 (5 ms booked) takes model 1, device 1
        // (2 ms) model 0, and the idle device 2 finds nothing pending.
        FirstSlot agent = decideWithFiveTwoAndZeroBooked(PolicyParams.of(Map.of(AgentPolicy.DEVICE_ORDER, AgentPolicy.GROUP_ORDER)));
        assertThat(agent.asked).containsExactly(0, 1);
        assertThat(agent.started).containsExactly(m(1) + "@0", m(0) + "@1");
    }

    @Test
    void anUnknownOrderIsRefusedNamingTheParameter() {
        assertThatThrownBy(() -> AgentPolicy.random().configure(new ParamReader("g", "random",
                PolicyParams.of(Map.of(AgentPolicy.DEVICE_ORDER, "busiest")))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("device_order").hasMessageContaining("freest, group");
    }
}
