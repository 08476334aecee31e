package io.kairos.core.model;

import io.kairos.core.model.ModelCatalog.CatalogException;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The catalog's hardware types, their prices and the models' profiles per type. */
class HardwareTypesCatalogTest {

    static final String TYPED = """
            {"hardware": [{"name": "cpu", "price_per_hour": 0.10}, {"name": "gpu-t4", "price_per_hour": 0.53},
                          {"name": "gpu-v100", "price_per_hour": 2.48}],
             "models": [
              {"name": "resnet50", "input": {"dtype": "FLOAT32", "shape": [3, 32, 32]}, "batch_sizes": [1, 2, 4, 8],
               "latency_ms": {"alpha": 9.0, "beta": 4.0}, "memory_bytes": 100, "load_ms": 50,
               "hardware_profiles": {
                 "gpu-v100": {"latency_ms": {"table": {"1": 2.7, "2": 3.5, "4": 5.1, "8": 8.3}}},
                 "gpu-t4": {"latency_ms": {"alpha": 2.0, "beta": 3.0}, "load_ms": 300}}},
              {"name": "mlp", "input": {"dtype": "FLOAT32", "shape": [64]},
               "latency_ms": {"table": {"1": 0.4, "8": 0.9}}}
            ]}""";

    @Test
    void typesInFileOrderWithTheirPrices() {
        ModelCatalog c = ModelCatalog.parse(TYPED, "typed.json");
        assertThat(c.hardwareTypes()).containsExactly(
                new HardwareType("cpu", 0.10), new HardwareType("gpu-t4", 0.53), new HardwareType("gpu-v100", 2.48));
        assertThat(c.hardwareType("gpu-t4")).isEqualTo(new HardwareType("gpu-t4", 0.53));
        assertThat(c.hardwareType("tpu")).isNull();
        assertThat(c.firstHardwareType().name()).isEqualTo("cpu");
    }

    @Test
    void latencyIsTheFirstTypesProfileAndOthersComeFromHardwareProfiles() {
        ModelSpec resnet = ModelCatalog.parse(TYPED, "typed.json").get("resnet50");
        // cpu: 9 b + 4 ms; gpu-t4: 2 b + 3 ms; gpu-v100: the table.
        assertThat(resnet.latencyOn("cpu")).isSameAs(resnet.latency());
        assertThat(resnet.latency().latencyMicros(8)).isEqualTo(76_000);
        assertThat(resnet.latencyOn("gpu-t4").latencyMicros(8)).isEqualTo(19_000);
        assertThat(resnet.latencyOn("gpu-t4").latencyMicros(3)).isEqualTo(11_000); // padded to 4: 2*4 + 3
        assertThat(resnet.latencyOn("gpu-v100").latencyMicros(2)).isEqualTo(3_500);
        assertThat(resnet.latencyOn("tpu")).isNull();
        // In the catalog's order of types, not the file's order of hardware_profiles.
        assertThat(resnet.hardwareTypes()).containsExactly("cpu", "gpu-t4", "gpu-v100");
        // Load time: the model's unless the type gives its own.
        assertThat(resnet.profileOn("cpu").loadMicros()).isEqualTo(50_000);
        assertThat(resnet.profileOn("gpu-t4").loadMicros()).isEqualTo(300_000);
        assertThat(resnet.profileOn("gpu-v100").loadMicros()).isEqualTo(50_000);
        // An instance has the model's profiles.
        assertThat(ModelCatalog.parse(TYPED, "t").get("resnet50#0002").latencyOn("gpu-t4").latencyMicros(1)).isEqualTo(5_000);
    }

    @Test
    void aModelWithoutHardwareProfilesRunsOnTheFirstTypeOnly() {
        ModelSpec mlp = ModelCatalog.parse(TYPED, "typed.json").get("mlp");
        assertThat(mlp.hardwareTypes()).containsExactly("cpu");
        assertThat(mlp.runsOn("cpu")).isTrue();
        assertThat(mlp.runsOn("gpu-t4")).isFalse();
        assertThat(mlp.latencyOn("gpu-t4")).isNull();
    }

    @Test
    void aCatalogWithoutHardwareHasTheFreeDefaultType() {
        ModelCatalog c = ModelCatalog.builtIn();
        assertThat(c.hardwareTypes()).containsExactly(new HardwareType("default", 0));
        assertThat(c.get("resnet50").hardwareTypes()).containsExactly("default");
        assertThat(c.get("resnet50").latencyOn("default")).isSameAs(c.get("resnet50").latency());
        // A model built in code is on the default type too.
        ModelSpec coded = new ModelSpec("m", new InputSpec("FLOAT32", new long[] {1}), LatencyProfile.linear(1, 0, 1));
        assertThat(coded.hardwareTypes()).containsExactly("default");
    }

    @Test
    void typesSurviveJavaSerialization() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(ModelCatalog.parse(TYPED, "typed.json"));
        }
        ModelCatalog back;
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            back = (ModelCatalog) in.readObject();
        }
        assertThat(back.hardwareTypes()).extracting(HardwareType::name).containsExactly("cpu", "gpu-t4", "gpu-v100");
        assertThat(back.get("resnet50").latencyOn("gpu-t4").latencyMicros(1)).isEqualTo(5_000);
    }

    @Test
    void withLoadCostSetsTheLoadTimeOnEveryType() {
        ModelSpec resnet = ModelCatalog.parse(TYPED, "typed.json").withLoadCost(1, 7_000).get("resnet50");
        assertThat(resnet.profileOn("cpu").loadMicros()).isEqualTo(7_000);
        assertThat(resnet.profileOn("gpu-t4").loadMicros()).isEqualTo(7_000);
        assertThat(resnet.profileOn("gpu-v100").loadMicros()).isEqualTo(7_000);
    }

    @Test
    void hasLoadCostCountsALoadTimeOnAnyType() {
        ModelCatalog c = ModelCatalog.parse("""
                {"hardware": [{"name": "cpu", "price_per_hour": 0}, {"name": "gpu", "price_per_hour": 1}],
                 "models": [{"name": "m", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 1}},
                             "hardware_profiles": {"gpu": {"latency_ms": {"table": {"1": 0.5}}, "load_ms": 20}}}]}""", "t");
        assertThat(c.get("m").hasLoadCost()).isTrue();
    }

    @Test
    void badHardwareListsNameTheField() {
        String model = "\"models\": [{\"name\": \"m\", \"input\": {\"dtype\": \"FLOAT32\", \"shape\": [1]}, \"latency_ms\": {\"table\": {\"1\": 1}}}]";
        assertBad("{\"hardware\": [], " + model + "}", "field 'hardware' must be a non-empty array");
        assertBad("{\"hardware\": {\"cpu\": 1}, " + model + "}", "field 'hardware' must be a non-empty array");
        assertBad("{\"hardware\": [{\"price_per_hour\": 1}], " + model + "}", "hardware[0]: field 'name'");
        assertBad("{\"hardware\": [{\"name\": \"GPU T4\", \"price_per_hour\": 1}], " + model + "}",
                "hardware[0]: field 'name' is 'GPU T4', expected lower-case letters, digits, '-', '.' or '_'");
        assertBad("{\"hardware\": [{\"name\": \"cpu\"}], " + model + "}", "hardware[0]: field 'price_per_hour' must be a non-negative number");
        assertBad("{\"hardware\": [{\"name\": \"cpu\", \"price_per_hour\": -0.1}], " + model + "}", "hardware[0]: field 'price_per_hour'");
        assertBad("{\"hardware\": [{\"name\": \"cpu\", \"price_per_hour\": 1}, {\"name\": \"cpu\", \"price_per_hour\": 2}], " + model + "}",
                "hardware[1]: hardware type 'cpu' is listed twice");
        assertBad("{\"hardware\": [3], " + model + "}", "hardware[0] must be an object");
        assertBad("{\"hardware\": [{\"name\": \"gpu\", \"price_per_hour\": 1, \"execution\": \"tpu\"}], " + model + "}",
                "hardware[0]: field 'execution' must be \"cpu\" or \"cuda\" (what a device of type 'gpu' runs on; leave it out to run as the process can), got \"tpu\"");
    }

    @Test
    void aTypeSaysWhatItsRealDevicesRunOn() {
        ModelCatalog c = ModelCatalog.parse("""
                {"hardware": [{"name": "cpu", "price_per_hour": 0.1, "execution": "cpu"}, {"name": "gpu-t4", "price_per_hour": 0.53, "execution": "cuda"},
                              {"name": "any", "price_per_hour": 1}],
                 "models": [{"name": "m", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 1}}}]}""", "exec.json");
        assertThat(c.hardwareTypes()).extracting(HardwareType::execution)
                .containsExactly(HardwareType.Execution.CPU, HardwareType.Execution.CUDA, HardwareType.Execution.ANY);
        assertThat(HardwareType.Execution.CUDA.word()).isEqualTo("cuda");
        assertThat(HardwareType.Execution.ANY.word()).isNull();
        assertThat(HardwareType.DEFAULT.execution()).as("a catalog without types: as the process can, as before types").isEqualTo(HardwareType.Execution.ANY);
    }

    @Test
    void aProfileOnATypeTheCatalogLacksNamesTheModelAndField() {
        assertBad(typed("\"hardware_profiles\": {\"gpu-a100\": {\"latency_ms\": {\"table\": {\"1\": 1}}}}"),
                "model 'm': field 'hardware_profiles.gpu-a100' names hardware type 'gpu-a100', which the catalog's 'hardware' does not list (it has [cpu, gpu-t4])");
        // Without a hardware list the only type is default.
        assertBad("{\"models\": [{\"name\": \"m\", \"input\": {\"dtype\": \"FLOAT32\", \"shape\": [1]}, \"latency_ms\": {\"table\": {\"1\": 1}},"
                        + " \"hardware_profiles\": {\"gpu\": {\"latency_ms\": {\"table\": {\"1\": 1}}}}}]}",
                "model 'm': field 'hardware_profiles.gpu' names hardware type 'gpu'");
    }

    @Test
    void badProfilesNameTheModelAndField() {
        assertBad(typed("\"hardware_profiles\": {\"cpu\": {\"latency_ms\": {\"table\": {\"1\": 1}}}}"),
                "model 'm': field 'hardware_profiles.cpu' names the first hardware type, whose profile is the model's 'latency_ms'");
        assertBad(typed("\"hardware_profiles\": {\"gpu-t4\": {\"latency_ms\": {\"table\": {\"1\": 1, \"8\": 2}}}}"),
                "model 'm': field 'hardware_profiles.gpu-t4.latency_ms' has batch sizes [1, 8], not the model's [1, 4]");
        assertBad(typed("\"hardware_profiles\": {\"gpu-t4\": {\"latency_ms\": {\"alpha\": 1}}}"),
                "model 'm': field 'hardware_profiles.gpu-t4.latency_ms' needs 'alpha' and 'beta', or 'table'");
        assertBad(typed("\"hardware_profiles\": {\"gpu-t4\": {}}"),
                "model 'm': field 'hardware_profiles.gpu-t4.latency_ms' must be");
        assertBad(typed("\"hardware_profiles\": {\"gpu-t4\": 3}"), "model 'm': field 'hardware_profiles.gpu-t4' must be");
        assertBad(typed("\"hardware_profiles\": {\"gpu-t4\": {\"latency_ms\": {\"table\": {\"1\": 1, \"4\": 2}}, \"load_ms\": -2}}"),
                "model 'm': field 'hardware_profiles.gpu-t4.load_ms' must be a non-negative number");
        assertBad(typed("\"hardware_profiles\": [1]"), "model 'm': field 'hardware_profiles' must be");
    }

    @Test
    void hardwareTypeNamesAndPricesAreChecked() {
        assertThatThrownBy(() -> new HardwareType("Gpu", 1)).hasMessageContaining("'Gpu'");
        assertThatThrownBy(() -> new HardwareType("gpu", -1)).hasMessageContaining("price per hour");
        assertThatThrownBy(() -> new HardwareType("gpu", Double.NaN)).hasMessageContaining("price per hour");
        assertThat(new HardwareType("gpu-v100_sxm2.32gb", 2.48).name()).isEqualTo("gpu-v100_sxm2.32gb");
    }

    private static String typed(String profiles) {
        return "{\"hardware\": [{\"name\": \"cpu\", \"price_per_hour\": 0.1}, {\"name\": \"gpu-t4\", \"price_per_hour\": 0.53}], "
                + "\"models\": [{\"name\": \"m\", \"input\": {\"dtype\": \"FLOAT32\", \"shape\": [1]}, \"latency_ms\": {\"table\": {\"1\": 1, \"4\": 3}}, "
                + profiles + "}]}";
    }

    private static void assertBad(String json, String... inMessage) {
        assertThatThrownBy(() -> ModelCatalog.parse(json, "hw.json"))
                .isInstanceOf(CatalogException.class)
                .hasMessageStartingWith("hw.json: ")
                .hasMessageContainingAll(inMessage);
    }
}
