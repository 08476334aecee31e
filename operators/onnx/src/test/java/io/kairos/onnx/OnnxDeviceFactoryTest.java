package io.kairos.onnx;

import io.kairos.core.device.DeviceSlots;
import io.kairos.core.model.ModelCatalog;
import io.kairos.onnx.examples.ExampleModels;
import io.kairos.schema.DType;
import io.kairos.schema.Tensor;
import io.kairos.wire.device.Device;
import io.kairos.wire.device.DeviceFactory;
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

    /** A cpu type that stays on the CPU and a gpu-t4 type that runs on CUDA, mlp profiled on both. */
    private static final ModelCatalog TYPED = ModelCatalog.parse("""
            {"hardware": [{"name": "cpu", "price_per_hour": 0.1, "execution": "cpu"}, {"name": "gpu-t4", "price_per_hour": 0.53, "execution": "cuda"}],
             "models": [{"name": "mlp", "input": {"dtype": "FLOAT32", "shape": [64]}, "latency_ms": {"table": {"1": 0.4}},
                         "hardware_profiles": {"gpu-t4": {"latency_ms": {"table": {"1": 0.1}}}}}]}""", "typed");

    @Test
    void aSlotOfACpuTypeRunsOnTheCpuAndOneOfACudaTypeNeedsCuda() throws Exception {
        DeviceFactory typed = OnnxDevices.factory(RepositorySource.local(REPOSITORY), 64L << 20, 1, false, io.kairos.core.device.Eviction.LRU, "cpu:1,gpu-t4:2");
        ByteBuffer zeros = ByteBuffer.allocate(64 * 4).order(ByteOrder.LITTLE_ENDIAN);
        Tensor input = Tensor.newBuilder().setDtype(DType.FLOAT32).setShape(List.of(64L)).setData(zeros).build();
        try (Device device = typed.create(0, -1, TYPED)) {
            assertThat(((OnnxDevice) device).gpu()).as("a cpu slot, even where CUDA works").isEqualTo(-1);
            assertThat(device.execute("mlp", 1, List.of(input)).get(30, TimeUnit.SECONDS).error()).isNull();
        }
        // Without Flink's GPUs, the cuda slots take GPUs 0 and 1 in slot order, the cpu slot counting for none.
        DeviceSlots slots = DeviceSlots.parse("cpu:1,gpu-t4:2", TYPED);
        assertThat(OnnxDevices.cudaTurn(slots, 1, TYPED)).isZero();
        assertThat(OnnxDevices.cudaTurn(slots, 2, TYPED)).isEqualTo(1);
        if (OnnxDevice.cudaProblem() != null) {
            assertThatThrownBy(() -> typed.create(2, -1, TYPED)).isInstanceOf(IllegalStateException.class)
                    .hasMessage("device 2 is of hardware type 'gpu-t4', which runs on CUDA, but " + OnnxDevice.cudaProblem());
        } else {
            try (Device device = typed.create(2, -1, TYPED)) {
                assertThat(((OnnxDevice) device).gpu()).isEqualTo(1);
            }
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
