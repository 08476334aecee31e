package io.kairos.control.herd;

import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DeviceHostsTest {

    private static HerdPlan.Group group(String name, List<Integer> devices, String model, double bt) {
        return new HerdPlan.Group(name, devices, List.of(model), List.of(new HerdPlan.Share("s-" + model, model, 100, 50, 2, bt)));
    }

    /** herd-1 on 3 devices, herd-2 on 1, devices 4..7 left: planned on slots 0..7 in order. */
    private static final HerdPlan PLAN = new HerdPlan(List.of(group("herd-1", List.of(0, 1, 2), "m1", 1.5), group("herd-2", List.of(3), "m2", 0.5)),
            "OPTIMAL", 0.5, 7, null, List.of(4, 5, 6, 7));

    private static DeviceHosts hosts(Object... hostThenSlots) {
        Map<String, List<Integer>> m = new LinkedHashMap<>();
        for (int i = 0; i < hostThenSlots.length; i += 2) {
            @SuppressWarnings("unchecked") List<Integer> slots = (List<Integer>) hostThenSlots[i + 1];
            m.put((String) hostThenSlots[i], slots);
        }
        return new DeviceHosts(m);
    }

    @Test
    void eachGroupTakesTheDevicesOfOneHostBestFitLargestFirst() {
        // Flink put the even slots on tm-a and the odd ones on tm-b.
        DeviceHosts hosts = hosts("tm-a", List.of(0, 2, 4, 6), "tm-b", List.of(1, 3, 5, 7));
        HerdPlan placed = hosts.place(PLAN);
        // herd-1 (3) first: both hosts have 4 free, the first of equals; herd-2 (1): tm-a's one left
        // is the tightest fit, so tm-b stays whole for the default group.
        assertThat(placed.groups().get(0).devices()).containsExactly(0, 2, 4);
        assertThat(placed.groups().get(1).devices()).containsExactly(6);
        assertThat(placed.leftover()).containsExactly(1, 3, 5, 7);
        assertThat(hosts.hostsOf(placed)).containsExactly(Map.entry("herd-1", List.of("tm-a")), Map.entry("herd-2", List.of("tm-a")));
        // The grouping itself is untouched: models, streams, burst tolerances.
        assertThat(placed.groups().get(0).models()).containsExactly("m1");
        assertThat(placed.minBurstTolerance()).isEqualTo(0.5);
        assertThat(placed.status()).isEqualTo("OPTIMAL");
    }

    @Test
    void aGroupNoHostCanHoldTakesTheRoomiestHostsFirst() {
        DeviceHosts hosts = hosts("tm-a", List.of(0, 1), "tm-b", List.of(2, 3), "tm-c", List.of(4, 5, 6, 7));
        HerdPlan plan = new HerdPlan(List.of(group("herd-1", List.of(0, 1, 2, 3, 4), "m1", 1.5), group("herd-2", List.of(5, 6), "m2", 0.5)),
                "OPTIMAL", 0.5, 7, null, List.of(7));
        HerdPlan placed = hosts.place(plan);
        // herd-1 (5): tm-c's 4, then one of tm-a's (the first of the two with 2). herd-2 (2): tm-b fits it exactly.
        assertThat(placed.groups().get(0).devices()).containsExactly(4, 5, 6, 7, 0);
        assertThat(placed.groups().get(1).devices()).containsExactly(2, 3);
        assertThat(placed.leftover()).containsExactly(1);
        assertThat(hosts.hostsOf(placed).get("herd-1")).containsExactly("tm-c", "tm-a");
    }

    @Test
    void devicesThePlanAndTheHostsDoNotShareAreNamed() {
        assertThatThrownBy(() -> hosts("tm-a", List.of(0, 1, 2), "tm-b", List.of(3, 4, 5, 6)).place(PLAN))
                .hasMessage("the plan has device slot(s) 7 that no TaskManager runs (the TaskManagers run 0-6)");
        assertThatThrownBy(() -> hosts("tm-a", List.of(0, 1, 2, 3), "tm-b", List.of(4, 5, 6, 7, 8)).place(PLAN))
                .hasMessage("the TaskManagers run device slot(s) 8 that the plan does not have (it plans 0-7)");
        assertThatThrownBy(() -> hosts("tm-a", List.of(0, 1), "tm-b", List.of(1, 2)))
                .hasMessage("device slot 1 is on both tm-a and tm-b");
    }
}
