package io.kairos.core.model;

import io.kairos.core.model.ModelCatalog.CatalogException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ModelCatalogTest {

    private static final String GOOD = """
            {"models": [
              {"name": "resnet50", "input": {"dtype": "FLOAT32", "shape": [3, 224, 224]},
               "batch_sizes": [1, 2, 4, 8, 16], "latency_ms": {"alpha": 0.8, "beta": 1.9}},
              {"name": "mlp", "input": {"dtype": "INT64", "shape": [64]},
               "latency_ms": {"table": {"1": 0.4, "8": 0.9, "32": 2.5}}},
              {"name": "small", "input": {"dtype": "UINT8", "shape": [10]}, "max_batch": 12,
               "latency_ms": {"alpha": 1, "beta": 0}}
            ]}""";

    @Test
    void parsesLinearAndTableModelsInFileOrder() {
        ModelCatalog c = ModelCatalog.parse(GOOD, "good.json");
        assertThat(c.names()).containsExactly("resnet50", "mlp", "small");

        ModelSpec resnet = c.get("resnet50");
        assertThat(resnet.input()).isEqualTo(new InputSpec("FLOAT32", new long[] {3, 224, 224}));
        assertThat(resnet.input().byteSize()).isEqualTo(3L * 224 * 224 * 4);
        assertThat(resnet.latency().batchSizes()).containsExactly(1, 2, 4, 8, 16);
        assertThat(resnet.latency().latencyMicros(8)).isEqualTo(8300); // 0.8*8 + 1.9 ms

        ModelSpec mlp = c.get("mlp");
        assertThat(mlp.input().byteSize()).isEqualTo(64 * 8);
        assertThat(mlp.latency().batchSizes()).containsExactly(1, 8, 32);
        assertThat(mlp.latency().latencyMicros(1)).isEqualTo(400);
        assertThat(mlp.latency().latencyMicros(5)).isEqualTo(900);
        assertThat(mlp.latency().latencyMicros(32)).isEqualTo(2500);

        // No batch_sizes: powers of two up to max_batch; tau(b) = 1 ms * b.
        ModelSpec small = c.get("small");
        assertThat(small.latency().batchSizes()).containsExactly(1, 2, 4, 8, 12);
        assertThat(small.latency().latencyMicros(12)).isEqualTo(12_000);

        assertThat(c.contains("mlp")).isTrue();
        assertThat(c.contains("nope")).isFalse();
        assertThat(c.get("nope")).isNull();
        assertThat(c.all()).hasSize(3);
    }

    @Test
    void memoryAndLoadTimeAreOptionalAndLoadTimeIsInMicroseconds() {
        ModelCatalog c = ModelCatalog.parse("""
                {"models": [
                  {"name": "a", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 1}}, "memory_bytes": 4096, "load_ms": 12.5},
                  {"name": "b", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 1}}}
                ]}""", "t");
        assertThat(c.get("a").memoryBytes()).isEqualTo(4096);
        assertThat(c.get("a").loadMicros()).isEqualTo(12_500);
        assertThat(c.get("a").hasLoadCost()).isTrue();
        assertThat(c.get("b").hasLoadCost()).isFalse();
        // An instance of a model costs what the model does.
        assertThat(c.get("a#0003").loadMicros()).isEqualTo(12_500);
        assertThatThrownBy(() -> ModelCatalog.parse("""
                {"models": [{"name": "a", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 1}}, "load_ms": -1}]}""", "t.json"))
                .hasMessage("t.json: model 'a': field 'load_ms' must be a non-negative number (milliseconds to load the model onto a device)");
    }

    /** T_P and T_N of the placement policies: optional, 0 when absent, in microseconds, kept by an instance. */
    @Test
    void prePostAndNetworkTimesAreOptional() {
        ModelCatalog c = ModelCatalog.parse("""
                {"models": [
                  {"name": "a", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 1}}, "pre_post_ms": 5, "network_ms": 0.25},
                  {"name": "b", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 1}}}
                ]}""", "t");
        assertThat(c.get("a").prePostMicros()).isEqualTo(5_000);
        assertThat(c.get("a").networkMicros()).isEqualTo(250);
        assertThat(c.get("a#0002").prePostMicros()).isEqualTo(5_000);
        assertThat(c.get("b").prePostMicros()).isZero();
        assertThat(c.get("b").networkMicros()).isZero();
        assertThatThrownBy(() -> ModelCatalog.parse("""
                {"models": [{"name": "a", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 1}}, "pre_post_ms": "x"}]}""", "t.json"))
                .hasMessage("t.json: model 'a': field 'pre_post_ms' must be a non-negative number (milliseconds of a request's pre- and post-processing)");
    }

    @Test
    void energyIsOptionalUnknownWhenAbsentAndPaddedLikeLatency() {
        ModelCatalog c = ModelCatalog.parse("""
                {"models": [
                  {"name": "a", "input": {"dtype": "FLOAT32", "shape": [1]}, "batch_sizes": [1, 4, 8],
                   "latency_ms": {"alpha": 1, "beta": 1}, "energy_mj": {"beta": 19.9, "zeta0": 19.6}},
                  {"name": "b", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 1}}}
                ]}""", "t");
        assertThat(c.get("a").energyKnown()).isTrue();
        // 3 requests run padded to 4: 19.9*4 + 19.6 mJ.
        assertThat(c.get("a").batchEnergyMillijoules(3)).hasValue(19.9 * 4 + 19.6);
        assertThat(c.get("a#0002").batchEnergyMillijoules(8)).hasValue(19.9 * 8 + 19.6);
        assertThat(c.get("b").energyKnown()).isFalse();
        assertThat(c.get("b").batchEnergyMillijoules(1)).isEmpty();
        assertThat(ModelCatalog.builtIn().get("googlenet").energy()).isEqualTo(new EnergyProfile(19.90, 19.60));
        assertThat(ModelCatalog.builtIn().get("resnet50").energyKnown()).isFalse();
        assertBad("""
                {"models": [{"name": "a", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 1}}, "energy_mj": {"beta": -1, "zeta0": 2}}]}""",
                "model 'a': field 'energy_mj.beta' must be a non-negative number");
        assertBad("""
                {"models": [{"name": "a", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 1}}, "energy_mj": {"beta": 1}}]}""",
                "model 'a': field 'energy_mj.zeta0' must be a non-negative number");
        assertBad("""
                {"models": [{"name": "a", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 1}}, "energy_mj": 3}]}""",
                "model 'a': field 'energy_mj' must be {");
    }

    @Test
    void linearModelWithoutSizesDefaultsToPowersOfTwoUpTo16() {
        ModelCatalog c = ModelCatalog.parse("""
                {"models": [{"name": "m", "input": {"dtype": "BOOL", "shape": [1]}, "latency_ms": {"alpha": 0.5, "beta": 1}}]}""", "s");
        assertThat(c.get("m").latency().batchSizes()).containsExactly(1, 2, 4, 8, 16);
        assertThat(c.get("m").latency().latencyMicros(16)).isEqualTo(9000); // 0.5*16 + 1 ms
    }

    @Test
    void builtInCatalogHasTheFourDemoModels() {
        ModelCatalog c = ModelCatalog.builtIn();
        assertThat(c.names()).containsExactly("resnet50", "googlenet", "bert-tiny", "mlp");
        assertThat(c.get("resnet50").latency().latencyMicros(16)).isEqualTo(14700);
        // googlenet: 0.3051 * 32 + 1.052 = 10.8152 ms
        assertThat(c.get("googlenet").latency().latencyMicros(32)).isEqualTo(10815);
        assertThat(c.get("bert-tiny").input()).isEqualTo(new InputSpec("INT64", new long[] {64}));
        assertThat(c.get("mlp").latency().latencyMicros(64)).isEqualTo(1100);
    }

    @Test
    void survivesJavaSerialization() throws Exception {
        ModelCatalog c = ModelCatalog.parse(GOOD, "good.json");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(c);
        }
        ModelCatalog back;
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            back = (ModelCatalog) in.readObject();
        }
        assertThat(back.names()).containsExactly("resnet50", "mlp", "small");
        assertThat(back.get("mlp").latency().latencyMicros(8)).isEqualTo(900);
    }

    @Test
    void loadsFromAFile(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("profiles.json");
        Files.writeString(file, GOOD);
        assertThat(ModelCatalog.load(file).names()).hasSize(3);

        Path missing = dir.resolve("missing.json");
        assertThatThrownBy(() -> ModelCatalog.load(missing))
                .isInstanceOf(CatalogException.class).hasMessageStartingWith(missing.toString());
    }

    @Test
    void badFileNamesSourceAndField(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("broken.json");
        Files.writeString(file, "{\"model\": []}");
        assertThatThrownBy(() -> ModelCatalog.load(file))
                .isInstanceOf(CatalogException.class)
                .hasMessageStartingWith(file.toString())
                .hasMessageContaining("'models'");
    }

    @Test
    void modelsMustBeAnArray() {
        assertBad("{\"models\": {}}", "'models'");
        assertBad("{}", "'models'");
        assertBad("[]", "'models'");
    }

    @Test
    void invalidJson() {
        assertBad("{\"models\": [", "not valid JSON");
    }

    @Test
    void badDtype() {
        assertBad(model("\"input\": {\"dtype\": \"BFLOAT16\", \"shape\": [3]}", LINEAR), "model 'm'", "'input.dtype'", "BFLOAT16");
    }

    @Test
    void nonPositiveOrNonIntegerShape() {
        assertBad(model("\"input\": {\"dtype\": \"FLOAT32\", \"shape\": [3, 0]}", LINEAR), "model 'm'", "'input.shape[1]'");
        assertBad(model("\"input\": {\"dtype\": \"FLOAT32\", \"shape\": [-2]}", LINEAR), "'input.shape[0]'");
        assertBad(model("\"input\": {\"dtype\": \"FLOAT32\", \"shape\": [\"x\"]}", LINEAR), "'input.shape[0]'");
        assertBad(model("\"input\": {\"dtype\": \"FLOAT32\", \"shape\": []}", LINEAR), "'input.shape'");
    }

    @Test
    void missingInputOrName() {
        assertBad("{\"models\": [{\"name\": \"m\", " + LINEAR + "}]}", "model 'm'", "'input'");
        assertBad("{\"models\": [{" + INPUT + ", " + LINEAR + "}]}", "models[0]", "'name'");
        assertBad("{\"models\": [{\"name\": \" \", " + INPUT + ", " + LINEAR + "}]}", "models[0]", "'name'");
    }

    @Test
    void duplicateName() {
        String m = "{\"name\": \"m\", " + INPUT + ", " + LINEAR + "}";
        assertBad("{\"models\": [" + m + ", " + m + "]}", "model 'm'", "defined twice");
    }

    @Test
    void badTableKey() {
        assertBad(model(INPUT, "\"latency_ms\": {\"table\": {\"1\": 0.4, \"eight\": 0.9}}"), "model 'm'", "'latency_ms.table'", "eight");
    }

    @Test
    void tableSizesOutOfOrder() {
        assertBad(model(INPUT, "\"latency_ms\": {\"table\": {\"8\": 0.9, \"1\": 0.4}}"), "model 'm'", "'latency_ms'", "strictly increasing");
    }

    @Test
    void latencyNeedsAlphaAndBetaOrTable() {
        assertBad(model(INPUT, "\"latency_ms\": {\"alpha\": 0.8}"), "model 'm'", "'latency_ms'", "'beta'");
        assertBad(model(INPUT, "\"latency_ms\": 3"), "model 'm'", "'latency_ms'");
        assertBad("{\"models\": [{\"name\": \"m\", " + INPUT + "}]}", "model 'm'", "'latency_ms'");
    }

    private static final String INPUT = "\"input\": {\"dtype\": \"FLOAT32\", \"shape\": [3]}";
    private static final String LINEAR = "\"latency_ms\": {\"alpha\": 0.8, \"beta\": 1.9}";

    private static String model(String input, String latency) {
        return "{\"models\": [{\"name\": \"m\", " + input + ", " + latency + "}]}";
    }

    private static void assertBad(String json, String... inMessage) {
        assertThatThrownBy(() -> ModelCatalog.parse(json, "test-source.json"))
                .isInstanceOf(CatalogException.class)
                .hasMessageStartingWith("test-source.json: ")
                .hasMessageContainingAll(inMessage);
    }
}
