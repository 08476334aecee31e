package io.kairos.onnx;

import io.kairos.core.device.Device;
import io.kairos.core.device.DeviceFactory;
import io.kairos.core.model.ModelCatalog;
import io.kairos.onnx.examples.ExampleModels;
import io.kairos.schema.DType;
import io.kairos.schema.Tensor;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

/** ONNX devices as the async operator makes them: on the GPU Flink gives a slot, or on the CPU. */
class OnnxDeviceFactoryTest {
    private static final Path REPOSITORY = ExampleModels.writeRepository(Path.of("target", "onnx-test-models", "device-factory"));
    private static final ModelCatalog CATALOG = ModelRepository.load(REPOSITORY).catalog();
    private final DeviceFactory onnx = OnnxDevices.factory(RepositorySource.local(REPOSITORY), 64L << 20, 1);

    @Test
    void aSlotWithoutAGpuFromFlinkRunsOnTheCpu() throws Exception {
        ByteBuffer zeros = ByteBuffer.allocate(64 * 4).order(ByteOrder.LITTLE_ENDIAN);
        Tensor input = Tensor.newBuilder().setDtype(DType.FLOAT32).setShape(List.of(64L)).setData(zeros).build();
        try (Device device = onnx.create(3, -1, CATALOG)) {
            Device.Execution e = device.execute("mlp", 1, List.of(input)).get(30, TimeUnit.SECONDS);
            assertThat(device.slot()).isEqualTo(3);
            assertThat(e.error()).isNull();
            assertThat(e.outputs()).hasSize(1);
        }
    }

    @Test
    void aGpuFromFlinkThatTheProcessCannotUseIsAnErrorNotACpuFallBack() {
        assumeThat(OnnxDevice.cudaProblem()).as("a machine where CUDA works").isNotNull();
        assertThatThrownBy(() -> onnx.create(0, 2, CATALOG))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("device 0 was given GPU 2 by Flink, but ")
                .hasMessageContaining(OnnxDevice.cudaProblem());
    }
}
