package io.kairos.jobs.options;

import io.kairos.core.model.ModelCatalog;
import io.kairos.jobs.config.ServingConfig;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DevicesOptionTest {
    static final ModelCatalog TYPED = ModelCatalog.parse("""
            {"hardware": [{"name": "cpu", "price_per_hour": 0.10}, {"name": "gpu-t4", "price_per_hour": 0.53}],
             "models": [{"name": "m", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 1}}}]}""", "typed.json");

    @Command(name = "test")
    static final class WithDevices {
        @Mixin
        DevicesOption devices = new DevicesOption(2);
    }

    private static DevicesOption parse(String... args) {
        WithDevices w = new WithDevices();
        new CommandLine(w).parseArgs(args);
        return w.devices;
    }

    @Test
    void aCountOrTypesWithCountsGoIntoTheConfiguration() {
        ServingConfig.Builder b = ServingConfig.builder();
        parse("--devices", "cpu:2,gpu-t4:1").applyTo(b);
        ServingConfig c = b.build();
        assertThat(c.devices).isEqualTo(3);
        assertThat(c.deviceTypes).isEqualTo("cpu:2,gpu-t4:1");
        assertThat(c.deviceSlots(TYPED).typeOf(2)).isEqualTo("gpu-t4");

        ServingConfig.Builder plainBuilder = ServingConfig.builder();
        parse("--devices", "5").applyTo(plainBuilder);
        ServingConfig plain = plainBuilder.build();
        assertThat(plain.devices).isEqualTo(5);
        assertThat(plain.deviceTypes).isNull();
        assertThat(plain.deviceSlots(TYPED)).hasToString("cpu:5");
        assertThat(parse().count()).as("the command's default").isEqualTo(2);
    }

    @Test
    void badListsFailInOneLineNamingThePart() {
        CommandLine cl = new CommandLine(new WithDevices());
        assertThatThrownBy(() -> parse("--devices", "0").check(cl)).hasMessage("--devices must be at least 1, got 0");
        assertThatThrownBy(() -> parse("--devices", "cpu:0").check(cl)).hasMessage("--devices: part 'cpu:0' has count 0; a count must be at least 1");
        assertThatThrownBy(() -> parse("--devices", "cpu:1,,gpu-t4:1").check(cl)).hasMessageStartingWith("--devices 'cpu:1,,gpu-t4:1': an empty part");
        assertThatThrownBy(() -> parse("--devices", "cpu:1,tpu:2").slots(cl, TYPED))
                .hasMessage("--devices 'cpu:1,tpu:2': part 'tpu:2' names hardware type 'tpu', which the model catalog lacks (it has [cpu, gpu-t4])");
        assertThatThrownBy(() -> parse("--devices", "cpu:2").checkCount(cl)).hasMessage("--devices: this command takes a number of devices, got 'cpu:2'");
    }

    @Test
    void aPlanWithoutACatalogKnowsTheTypesWritten() {
        assertThat(parse("--devices", "cpu:1,gpu-t4:1").planWithoutCatalog("fifo", io.kairos.core.scheduling.PolicyParams.NONE).hardwareTypeOf(1)).isEqualTo("gpu-t4");
        assertThat(parse("--devices", "3").planWithoutCatalog("fifo", io.kairos.core.scheduling.PolicyParams.NONE).hardwareTypeOf(1)).isNull();
    }
}
