package io.kairos.testbed.bench;

import io.kairos.core.model.ModelCatalog;
import io.kairos.core.scheduling.ConfiguredPolicy;
import io.kairos.jobs.config.ServingConfig;
import io.kairos.testbed.SharedBroker;
import io.kairos.testbed.job.TestConfigs;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The serving job at twice its capacity, on a real broker and a Flink mini-cluster, with simulated
 * devices: two devices 16 times slower than the catalog's ResNet50 (a full batch in 235 ms:
 * capacity 136 requests/s, few enough for a machine shared with other builds), SLO 1 s, and a
 * group bound of 300 pending requests (about what twice the capacity brings within the SLO). The scheduler's backlog stays under its
 * bound, the goodput near capacity, and nothing is lost.
 */
class OverloadIntegrationTest {

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(
            new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).build());

    private static final int MAX_PENDING = 300;

    @Test
    void atTwiceCapacityTheBacklogStaysBoundedAndGoodputNearCapacity() throws Exception {
        ServingConfig config = TestConfigs.onBroker(SharedBroker.get(), "overload-it-", c -> {
            c.simulatedSpeed = 16;
            c.policyParams = Map.of(ConfiguredPolicy.MAX_PENDING, Integer.toString(MAX_PENDING));
        });
        ModelCatalog catalog = ModelCatalog.builtIn();
        try (OverloadRig rig = new OverloadRig(SharedBroker.get(), config, catalog, "resnet50", 1_000, StreamExecutionEnvironment.getExecutionEnvironment())) {
            assertThat(rig.capacity()).isBetween(136.0, 136.1);
            // A short run at capacity first: the scheduler learns that the devices are slower than the catalog says.
            rig.run(1, Duration.ofSeconds(5), Duration.ZERO, Duration.ofSeconds(3), (s, o, b) -> {});
            OverloadRig.Step s = rig.run(2, Duration.ofSeconds(15), Duration.ofSeconds(3), Duration.ofSeconds(3), (sent, o, b) -> {});
            System.out.printf("at 2x capacity: offered %.0f/s, goodput %.0f/s, %d late, %d dropped (%d shed early, %d queue full), "
                            + "most in Kafka %d, in the scheduler %d, in the system %d, heap max %.0f MB, live %.0f MB%n",
                    s.offeredPerSecond(), s.goodputPerSecond(), s.late(), s.dropped(), s.shedEarly(), s.queueFull(),
                    s.maxKafkaLag(), s.maxSchedulerBacklog(), s.maxInSystem(), s.heapMaxMb(), s.liveHeapMb());
            assertThat(s.missing()).as("requests without a result").isZero();
            assertThat(s.maxSchedulerBacklog()).as("most requests queued in the scheduler at once").isLessThanOrEqualTo(MAX_PENDING);
            assertThat(s.dropped()).as("overload is shed").isPositive();
            // Generous: a test machine shared with other builds loses some of the devices' time to scheduling jitter.
            assertThat(s.goodputPerSecond()).as("goodput at twice capacity").isGreaterThan(0.5 * rig.capacity());
            assertThat(s.late()).as("late requests").isLessThan(s.measured() / 10);
        }
    }
}
