package io.kairos.core.scheduling.policy;

import io.kairos.core.scheduling.Drop;
import io.kairos.core.model.LatencyEstimator;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.scheduling.BatchReport;
import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.scheduling.Dispatch;
import io.kairos.core.scheduling.GroupScheduler;
import io.kairos.core.scheduling.PolicyParams;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static io.kairos.core.scheduling.policy.SchedulingFixtures.req;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

/** A serving group whose devices are of several hardware types: each batch is predicted on its own device's type. */
class HardwareTypesSchedulingTest {
    /**
     * R: 10 ms at 1, 16 ms at 2 on cpu; 2 ms and 3 ms on gpu. C: on cpu only, 4 ms at 1, 6 ms at 2.
     */
    static final ModelCatalog CATALOG = ModelCatalog.parse("""
            {"hardware": [{"name": "cpu", "price_per_hour": 0.1}, {"name": "gpu", "price_per_hour": 0.5}],
             "models": [
              {"name": "R", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 10, "2": 16}},
               "hardware_profiles": {"gpu": {"latency_ms": {"table": {"1": 2, "2": 3}}}}},
              {"name": "C", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 4, "2": 6}}}
            ]}""", "typed-scheduling-test");

    private static DeviceView cpu(int slot) {
        return new DeviceView(slot, null, Long.MAX_VALUE, "cpu");
    }

    private static DeviceView gpu(int slot) {
        return new DeviceView(slot, null, Long.MAX_VALUE, "gpu");
    }

    @Test
    void eachBatchIsBookedWithItsDevicesTypeProfile() {
        GroupScheduler g = new GroupScheduler("g", CATALOG, List.of(cpu(0), gpu(1)), OneAtATimePolicy.fifo(), PolicyParams.NONE);
        g.admit(req("r1", "R", 0, 1_000_000));
        g.admit(req("r2", "R", 1, 1_000_000));
        // Both idle at 0: r1 to device 0 (cpu, 10 ms), r2 to device 1 (gpu, 2 ms).
        assertThat(g.schedule(1).dispatches())
                .extracting(Dispatch::device, Dispatch::predictedStartMicros, Dispatch::predictedLatencyMicros)
                .containsExactly(tuple(0, 1L, 10_000L), tuple(1, 1L, 2_000L));
        assertThat(g.hardwareTypes()).containsExactly("cpu", "gpu");
        // The queue decides with the slowest type at each size; the gpu's own profile is what a batch there takes.
        assertThat(g.profile("R").latencyMicros(2)).isEqualTo(16_000);
        g.admit(req("r3", "R", 2, 1_000_000));
        assertThat(g.profileOn(g.queue("R"), g.devices().get(1)).latencyMicros(2)).isEqualTo(3_000);
        assertThat(g.profileOn(g.queue("R"), g.devices().get(0)).latencyMicros(2)).isEqualTo(16_000);
    }

    @Test
    void aModelIsNeverSentToADeviceOfATypeItHasNoProfileFor() {
        GroupScheduler g = new GroupScheduler("g", CATALOG, List.of(cpu(0), gpu(1)), OneAtATimePolicy.fifo(), PolicyParams.NONE);
        DeviceView theGpu = g.devices().get(1);
        assertThat(theGpu.holds("R")).isTrue();
        assertThat(theGpu.holds("C")).isFalse();
        assertThat(g.everyDeviceHoldsEveryModel()).isFalse();
        g.admit(req("c1", "C", 0, 1_000_000));
        g.admit(req("c2", "C", 1, 1_000_000));
        // The gpu is idle, but C runs on cpu only: c1 on device 0 for 4 ms, c2 waits for it.
        GroupScheduler.Outcome first = g.schedule(1);
        assertThat(first.dispatches()).extracting(Dispatch::device, Dispatch::predictedLatencyMicros).containsExactly(tuple(0, 4_000L));
        assertThat(first.nextWakeMicros()).isEqualTo(4_001);
        assertThat(g.schedule(4_001).dispatches()).extracting(Dispatch::device, Dispatch::predictedStartMicros).containsExactly(tuple(0, 4_001L));
        g.admit(req("c3", "C", 5_000, 1_000_000));
        assertThatThrownBy(() -> g.dispatch("C", 1, theGpu, 5_000)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("does not hold C");
    }

    @Test
    void aModelThatRunsOnNoneOfTheGroupsTypesIsShedNamingTheGroup() {
        GroupScheduler g = new GroupScheduler("gpus", CATALOG, List.of(gpu(0)), OneAtATimePolicy.fifo(), PolicyParams.NONE);
        g.admit(req("c1", "C", 0, 1_000_000));
        assertThat(g.schedule(0).drops()).extracting(d -> d.request().id(), Drop::reason)
                .containsExactly(tuple("c1", "no device of serving group 'gpus' holds model 'C'"));
    }

    @Test
    void aGroupOfOneTypeDecidesWithThatTypesProfile() {
        GroupScheduler g = new GroupScheduler("gpus", CATALOG, List.of(gpu(0), gpu(1)), OneAtATimePolicy.fifo(), PolicyParams.NONE);
        assertThat(g.profile("R").latencyMicros(1)).isEqualTo(2_000);
        assertThat(g.everyDeviceHoldsEveryModel()).as("C has no gpu profile").isFalse();
        // An untyped view is of the catalog's first type.
        GroupScheduler untyped = new GroupScheduler("g", CATALOG, List.of(new DeviceView(0, null)), OneAtATimePolicy.fifo(), PolicyParams.NONE);
        assertThat(untyped.hardwareTypes()).containsExactly("cpu");
        assertThat(untyped.profile("R").latencyMicros(1)).isEqualTo(10_000);
        assertThat(untyped.everyDeviceHoldsEveryModel()).isTrue();
    }

    @Test
    void latencyIsLearnedPerType() {
        GroupScheduler g = new GroupScheduler("g", CATALOG, List.of(cpu(0), gpu(1)), OneAtATimePolicy.fifo(), PolicyParams.NONE);
        g.learnLatency(LatencyEstimator.Settings.DEFAULT);
        g.admit(req("r1", "R", 0, 1_000_000));
        g.admit(req("r2", "R", 0, 1_000_000));
        List<Dispatch> sent = g.schedule(0).dispatches();
        Dispatch onGpu = sent.get(1);
        assertThat(onGpu.device()).isEqualTo(1);
        // The gpu batch of 1 took 12 ms, not 2: the gpu profile becomes 12 ms at 1 and, scaled as
        // the nearest measured size, 3 * 12/2 = 18 ms at 2. The cpu's stays 10 and 16 ms; the queue
        // takes the slowest at each size: 12 and 18 ms.
        g.observe(BatchReport.ran(onGpu, 0, 12_000, false));
        g.admit(req("r3", "R", 12_000, 1_000_000));
        assertThat(g.profileOn(g.queue("R"), g.devices().get(1)).latencyMicros(2)).isEqualTo(18_000);
        assertThat(g.profileOn(g.queue("R"), g.devices().get(0)).latencyMicros(1)).isEqualTo(10_000);
        assertThat(g.queue("R").profile().latencyMicros(1)).isEqualTo(12_000);
        assertThat(g.queue("R").profile().latencyMicros(2)).isEqualTo(18_000);
    }

    @Test
    void aPlacementChangeToOtherTypesGivesTheQueuesTheirProfilesThere() {
        GroupScheduler g = new GroupScheduler("g", CATALOG, List.of(cpu(0)), OneAtATimePolicy.fifo(), PolicyParams.NONE);
        g.admit(req("r1", "R", 0, 1_000_000));
        assertThat(g.queue("R").profile().latencyMicros(1)).isEqualTo(10_000);
        g.setDevices(List.of(new DeviceView(1, Set.of("R"), Long.MAX_VALUE, "gpu")));
        assertThat(g.hardwareTypes()).containsExactly("gpu");
        assertThat(g.queue("R").profile().latencyMicros(1)).isEqualTo(2_000);
        assertThat(g.schedule(0).dispatches()).extracting(Dispatch::device, Dispatch::predictedLatencyMicros).containsExactly(tuple(1, 2_000L));
    }
}
