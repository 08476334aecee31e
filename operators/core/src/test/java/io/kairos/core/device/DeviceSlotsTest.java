package io.kairos.core.device;

import io.kairos.core.model.ModelCatalog;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DeviceSlotsTest {

    static final ModelCatalog TYPED = ModelCatalog.parse("""
            {"hardware": [{"name": "cpu", "price_per_hour": 0.10}, {"name": "gpu-t4", "price_per_hour": 0.53}],
             "models": [{"name": "m", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 1}}}]}""", "typed.json");

    @Test
    void aCountIsThatManySlotsOfTheFirstType() {
        DeviceSlots s = DeviceSlots.parse("4", TYPED);
        assertThat(s.count()).isEqualTo(4);
        assertThat(s.types()).containsExactly("cpu", "cpu", "cpu", "cpu");
        assertThat(DeviceSlots.parse("3", ModelCatalog.builtIn()).types()).containsExactly("default", "default", "default");
    }

    @Test
    void typesWithCountsInTheOrderWritten() {
        DeviceSlots s = DeviceSlots.parse("cpu:2,gpu-t4:1", TYPED);
        assertThat(s.count()).isEqualTo(3);
        assertThat(s.typeOf(0)).isEqualTo("cpu");
        assertThat(s.typeOf(1)).isEqualTo("cpu");
        assertThat(s.typeOf(2)).isEqualTo("gpu-t4");
        assertThat(s.slotsOf("cpu")).containsExactly(0, 1);
        assertThat(s.slotsOf("gpu-t4")).containsExactly(2);
        assertThat(s.slotsOf("gpu-v100")).isEmpty();
        assertThat(DeviceSlots.parse(" gpu-t4:1 , cpu:1 ,gpu-t4:2", TYPED).types()).containsExactly("gpu-t4", "cpu", "gpu-t4", "gpu-t4");
        assertThatThrownBy(() -> s.typeOf(3)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void costIsTheSumOfTheDevicesPrices() {
        // 2 x 0.10 + 1 x 0.53 = 0.73 per hour.
        assertThat(DeviceSlots.parse("cpu:2,gpu-t4:1", TYPED).costPerHour(TYPED)).isCloseTo(0.73, org.assertj.core.data.Offset.offset(1e-12));
        // 4 x 0.10
        assertThat(DeviceSlots.parse("4", TYPED).costPerHour(TYPED)).isCloseTo(0.40, org.assertj.core.data.Offset.offset(1e-12));
        // The default type is free.
        assertThat(DeviceSlots.parse("8", ModelCatalog.builtIn()).costPerHour(ModelCatalog.builtIn())).isZero();
        assertThatThrownBy(() -> DeviceSlots.uniform("tpu", 1).costPerHour(TYPED)).hasMessageContaining("device slot 0 is of hardware type 'tpu'");
    }

    @Test
    void toStringReadsBackToTheSameSlots() {
        assertThat(DeviceSlots.parse("cpu:2,gpu-t4:1", TYPED).toString()).isEqualTo("cpu:2,gpu-t4:1");
        assertThat(DeviceSlots.parse("cpu:1,cpu:1,gpu-t4:1,cpu:1", TYPED).toString()).isEqualTo("cpu:2,gpu-t4:1,cpu:1");
        assertThat(DeviceSlots.parse("4", ModelCatalog.builtIn()).toString()).isEqualTo("4");
        // A count on a typed catalog names the type it means.
        assertThat(DeviceSlots.parse("4", TYPED).toString()).isEqualTo("cpu:4");
        for (String spec : List.of("cpu:2,gpu-t4:1", "gpu-t4:3", "2", "gpu-t4:1,cpu:1,gpu-t4:1")) {
            DeviceSlots s = DeviceSlots.parse(spec, TYPED);
            assertThat(DeviceSlots.parse(s.toString(), TYPED)).isEqualTo(s);
        }
        assertThat(DeviceSlots.parse("cpu:2", TYPED)).isEqualTo(DeviceSlots.uniform("cpu", 2)).isEqualTo(DeviceSlots.of(2, TYPED))
                .hasSameHashCodeAs(DeviceSlots.of(List.of("cpu", "cpu")));
    }

    @Test
    void errorsNameThePart() {
        assertBad("", "devices: empty; expected a count (4) or types with counts (cpu:2,gpu-t4:1)");
        assertBad("  ", "devices: empty");
        assertBad("0", "devices: part '0' has count 0; a count must be at least 1");
        assertBad("four", "devices: part 'four' has count 'four', which is no integer");
        assertBad("cpu:2,tpu:1", "devices 'cpu:2,tpu:1': part 'tpu:1' names hardware type 'tpu', which the model catalog lacks (it has [cpu, gpu-t4])");
        assertBad("cpu:0", "devices: part 'cpu:0' has count 0; a count must be at least 1");
        assertBad("cpu:-1,gpu-t4:1", "devices: part 'cpu:-1' has count -1");
        assertBad("cpu:x", "devices: part 'cpu:x' has count 'x', which is no integer");
        assertBad("cpu:1,,gpu-t4:1", "devices 'cpu:1,,gpu-t4:1': an empty part");
        assertBad("cpu:1,", "an empty part");
        assertBad("cpu,gpu-t4:1", "devices 'cpu,gpu-t4:1': part 'cpu' has no count");
        assertBad(":2", "part ':2' names hardware type '', which is no type name");
        assertBad("GPU:1", "part 'GPU:1' names hardware type 'GPU', which is no type name");
    }

    @Test
    void theCountIsKnownWithoutACatalog() {
        assertThat(DeviceSlots.countIn("cpu:2,gpu-t4:1")).isEqualTo(3);
        assertThat(DeviceSlots.countIn("tpu:5")).as("types are the catalog's to check").isEqualTo(5);
        assertThat(DeviceSlots.countIn(" 4 ")).isEqualTo(4);
        assertThat(DeviceSlots.isCount("4")).isTrue();
        assertThat(DeviceSlots.isCount("cpu:4")).isFalse();
        assertThatThrownBy(() -> DeviceSlots.countIn("cpu:0")).hasMessageContaining("a count must be at least 1");
    }

    private static void assertBad(String spec, String message) {
        assertThatThrownBy(() -> DeviceSlots.parse(spec, TYPED)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(message)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }
}
