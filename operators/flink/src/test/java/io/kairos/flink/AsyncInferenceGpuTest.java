package io.kairos.flink;

import org.apache.flink.api.common.externalresource.ExternalResourceInfo;
import org.junit.jupiter.api.Test;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** Which GPU a device slot runs on, from the GPUs Flink's GPU plugin gave the task manager ({@link GpuClaims}). */
class AsyncInferenceGpuTest {

    /** What Flink's GPU driver reports for one GPU: its index, as a string property. */
    private record Gpu(Map<String, String> properties) implements ExternalResourceInfo {
        static Gpu index(String i) {
            return new Gpu(Map.of("index", i));
        }

        @Override
        public Optional<String> getProperty(String key) {
            return Optional.ofNullable(properties.get(key));
        }

        @Override
        public Collection<String> getKeys() {
            return properties.keySet();
        }
    }

    /** GPUs 3 and 1 in no order (Flink hands over a set). */
    private static final int[] TWO = GpuClaims.indices(Set.of(Gpu.index("3"), Gpu.index("1")));

    @Test
    void slotsTakeTurnsOverTheTaskManagersGpusInIndexOrder() {
        GpuClaims claims = new GpuClaims();
        assertThat(TWO).containsExactly(1, 3);
        // Slots 0, 1, 2, 3 in one TaskManager: 1, 3, then each GPU a second slot.
        assertThat(List.of(0, 1, 2, 3)).map(slot -> claims.claim(slot, TWO)).containsExactly(1, 3, 1, 3);
    }

    @Test
    void twoSlotsOfTheSameTurnInOneTaskManagerTakeDifferentGpus() {
        // Flink put slots 0 and 2 here (1 and 3 elsewhere): by turn alone both would take GPU 1.
        GpuClaims claims = new GpuClaims();
        assertThat(claims.claim(0, TWO)).isEqualTo(1);
        assertThat(claims.claim(2, TWO)).isEqualTo(3);
        // Slot 0 closes (a restart), slot 4 opens: GPU 1 is free again.
        claims.release(1);
        assertThat(claims.claim(4, TWO)).isEqualTo(1);
        assertThat(claims.claim(6, TWO)).as("both held once: its own turn").isEqualTo(1);
    }

    @Test
    void noGpuFromFlinkIsMinusOne() {
        GpuClaims claims = new GpuClaims();
        assertThat(claims.claim(2, GpuClaims.indices(Set.of()))).isEqualTo(-1);
        assertThat(claims.claim(0, GpuClaims.indices(Set.of(new Gpu(Map.of("vendor", "nvidia")))))).as("a GPU without an index").isEqualTo(-1);
        claims.release(-1);
    }
}
