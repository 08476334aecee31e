package io.kairos.flink;

import org.apache.flink.api.common.externalresource.ExternalResourceInfo;
import org.junit.jupiter.api.Test;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** Which GPU a device slot runs on, from the GPUs Flink's GPU plugin gave the task manager. */
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

    @Test
    void slotsTakeTurnsOverTheTaskManagersGpusInIndexOrder() {
        // GPUs 3 and 1 in no order (Flink hands over a set): slots 0, 1, 2, 3 get 1, 3, 1, 3.
        Set<ExternalResourceInfo> gpus = Set.of(Gpu.index("3"), Gpu.index("1"));
        assertThat(List.of(0, 1, 2, 3)).map(slot -> AsyncInference.gpuOf(slot, gpus)).containsExactly(1, 3, 1, 3);
    }

    @Test
    void noGpuFromFlinkIsMinusOne() {
        assertThat(AsyncInference.gpuOf(2, Set.of())).isEqualTo(-1);
        assertThat(AsyncInference.gpuOf(0, Set.of(new Gpu(Map.of("vendor", "nvidia"))))).as("a GPU without an index").isEqualTo(-1);
    }
}
