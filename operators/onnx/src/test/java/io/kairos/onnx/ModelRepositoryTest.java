package io.kairos.onnx;

import io.kairos.core.model.InputSpec;
import io.kairos.schema.DType;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.Tensor;
import io.kairos.wire.request.RequestValidator;
import org.junit.jupiter.api.Test;
import ai.onnx.proto.OnnxMl;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ModelRepositoryTest {

    private static void edit(Path file, String from, String to) throws Exception {
        String text = Files.readString(file);
        assertThat(text).contains(from);
        Files.writeString(file, text.replace(from, to));
    }

    @Test
    void exampleRepositoryGivesTheCatalogOfItsThreeModels() {
        ModelRepository repo = ModelRepository.load(OnnxTestData.exampleRepository("repo-good"));
        assertThat(repo.problems()).isEmpty();
        assertThat(repo.models()).containsOnlyKeys("cnn", "mlp", "resnet");
        assertThat(repo.catalog().names()).containsExactlyInAnyOrder("cnn", "mlp", "resnet");
        assertThat(repo.catalog().get("cnn").input()).isEqualTo(new InputSpec("FLOAT32", new long[]{3, 32, 32}));
        assertThat(repo.catalog().get("mlp").latency().batchSizes()).containsExactly(1, 2, 4, 8, 16, 32);
        // tau(b) = 0.002 b + 0.05 ms from the manifest
        assertThat(repo.catalog().get("mlp").latency().latencyMicros(8)).isEqualTo(66);
        assertThat(repo.get("cnn").memoryBytes()).isEqualTo(8L << 20);
        // The manifest's footprint and load time reach the catalog, for the scheduler's cold starts.
        assertThat(repo.catalog().get("cnn").memoryBytes()).isEqualTo(8L << 20);
        assertThat(repo.catalog().get("cnn").loadMicros()).isEqualTo(2_000);
        assertThat(repo.get("mlp").outputTensor().name()).isEqualTo("logits");
    }

    @Test
    void requestsThatDoNotMatchTheManifestAreRejectedByTheValidator() {
        RequestValidator validator = new RequestValidator(ModelRepository.load(OnnxTestData.exampleRepository("repo-validate")).catalog());
        InferenceRequest.Builder r = InferenceRequest.newBuilder().setRequestId("r").setTenant("t").setModel("mlp")
                .setSentAtMicros(1).setSloMs(10)
                .setInput(Tensor.newBuilder().setDtype(DType.FLOAT32).setShape(OnnxTestData.shape(64)).setData(ByteBuffer.allocate(256)).build());
        assertThat(validator.rejectionReason(r.build(), 1)).isNull();
        assertThat(validator.rejectionReason(r.setInput(Tensor.newBuilder().setDtype(DType.FLOAT32)
                .setShape(OnnxTestData.shape(3, 32, 32)).setData(ByteBuffer.allocate(12288)).build()).build(), 1)).contains("shape");
        assertThat(validator.rejectionReason(r.setModel("cnn").build(), 1)).isNull();
        assertThat(validator.rejectionReason(r.setInput(Tensor.newBuilder().setDtype(DType.INT64)
                .setShape(OnnxTestData.shape(3, 32, 32)).setData(ByteBuffer.allocate(24576)).build()).build(), 1)).contains("dtype");
    }

    @Test
    void manifestThatDisagreesWithTheModelIsSkippedNamingFileAndField() throws Exception {
        Path root = OnnxTestData.exampleRepository("repo-mismatch");
        edit(root.resolve("mlp/model.json"), "\"shape\": [64]", "\"shape\": [32]");
        ModelRepository repo = ModelRepository.load(root);
        assertThat(repo.models()).containsOnlyKeys("cnn", "resnet");
        assertThat(repo.catalog().names()).containsExactlyInAnyOrder("cnn", "resnet");
        assertThat(repo.problems()).singleElement().asString()
                .contains(root.resolve("mlp/model.json").toString()).contains("field 'input.shape'").contains("[32]").contains("[-1, 64]");
    }

    @Test
    void wrongOutputNameAndDtypeAreReported() throws Exception {
        Path root = OnnxTestData.exampleRepository("repo-names");
        edit(root.resolve("mlp/model.json"), "\"name\": \"logits\"", "\"name\": \"probabilities\"");
        edit(root.resolve("cnn/model.json"), "\"name\": \"input\",  \"dtype\": \"FLOAT32\"", "\"name\": \"input\",  \"dtype\": \"FLOAT64\"");
        ModelRepository repo = ModelRepository.load(root);
        assertThat(repo.models()).containsOnlyKeys("resnet");
        assertThat(repo.problems()).hasSize(2);
        assertThat(repo.problems().get(0)).contains("cnn/model.json").contains("field 'input.dtype' is FLOAT64").contains("is FLOAT32");
        assertThat(repo.problems().get(1)).contains("mlp/model.json").contains("field 'output.name' is 'probabilities'").contains("[logits]");
    }

    @Test
    void modelWithAFixedBatchDimensionIsSkippedUnlessItsManifestListsOnlyThatSize() throws Exception {
        Path root = OnnxTestData.exampleRepository("repo-fixed-batch");
        // The MLP's graph as an export without a dynamic batch axis writes it: batch dimension 1.
        Path file = root.resolve("mlp/model.onnx");
        OnnxMl.ModelProto.Builder model = OnnxMl.ModelProto.parseFrom(Files.readAllBytes(file)).toBuilder();
        model.getGraphBuilder().getInputBuilder(0).getTypeBuilder().getTensorTypeBuilder().getShapeBuilder().getDimBuilder(0)
                .clearDimParam().setDimValue(1);
        Files.write(file, model.build().toByteArray());
        ModelRepository repo = ModelRepository.load(root);
        assertThat(repo.models()).containsOnlyKeys("cnn", "resnet");
        assertThat(repo.problems()).containsExactly(root.resolve("mlp/model.json") + ": field 'batch_sizes' is [1, 2, 4, 8, 16, 32]"
                + " but the model's 'input' has a fixed batch dimension of 1 (export it with a dynamic batch axis,"
                + " e.g. torch.onnx.export(..., dynamic_axes={'input': {0: 'batch'}}), or list only 1)");
        // Batches of one only: served.
        edit(root.resolve("mlp/model.json"), "[1, 2, 4, 8, 16, 32]", "[1]");
        assertThat(ModelRepository.load(root).models()).containsOnlyKeys("cnn", "mlp", "resnet");
    }

    @Test
    void modelThatDoesNotLoadIsSkippedAndTheOthersServe() throws Exception {
        Path root = OnnxTestData.exampleRepository("repo-corrupt");
        Files.write(root.resolve("cnn/model.onnx"), new byte[]{1, 2, 3, 4, 5});
        ModelRepository repo = ModelRepository.load(root);
        assertThat(repo.models()).containsOnlyKeys("mlp", "resnet");
        assertThat(repo.problems()).singleElement().asString()
                .contains(root.resolve("cnn/model.onnx").toString()).contains("ONNX Runtime cannot load it");
    }

    @Test
    void missingOrInvalidManifestFieldsAreNamed() throws Exception {
        Path root = OnnxTestData.exampleRepository("repo-fields");
        edit(root.resolve("mlp/model.json"), "\"memory_bytes\": 1048576,", "");
        edit(root.resolve("cnn/model.json"), "[1, 2, 4, 8, 16, 32]", "[1, 4, 2]");
        Files.createDirectories(root.resolve("empty"));
        ModelRepository repo = ModelRepository.readManifests(root);
        assertThat(repo.models()).containsOnlyKeys("resnet");
        assertThat(repo.problems()).containsExactly(
                root.resolve("cnn/model.json") + ": field 'batch_sizes[2]' must be a positive integer above the one before it",
                root.resolve("empty/model.json") + ": missing (every model folder needs a model.json)",
                root.resolve("mlp/model.json") + ": field 'memory_bytes' must be a positive integer (bytes the loaded model takes on a device)");
    }

    @Test
    void unprofiledModelGetsThePessimisticDefaultLatency() throws Exception {
        Path root = OnnxTestData.exampleRepository("repo-unprofiled");
        edit(root.resolve("mlp/model.json"), ",\n  \"latency_ms\": {\"alpha\": 0.002, \"beta\": 0.05}", "");
        ModelRepository repo = ModelRepository.readManifests(root);
        assertThat(repo.problems()).isEmpty();
        assertThat(repo.catalog().get("mlp").latency().latencyMicros(4)).isEqualTo(3000); // 0.5*4 + 1 ms
    }

    @Test
    void energyLineOfAManifestReachesTheCatalogAndABadOneIsNamed() throws Exception {
        Path root = OnnxTestData.exampleRepository("repo-energy");
        edit(root.resolve("mlp/model.json"), "\"memory_bytes\":", "\"energy_mj\": {\"beta\": 0.5, \"zeta0\": 2.0},\n  \"memory_bytes\":");
        edit(root.resolve("cnn/model.json"), "\"memory_bytes\":", "\"energy_mj\": {\"beta\": \"x\", \"zeta0\": 2.0},\n  \"memory_bytes\":");
        ModelRepository repo = ModelRepository.readManifests(root);
        assertThat(repo.catalog().get("mlp").batchEnergyMillijoules(4)).hasValue(4.0);
        assertThat(repo.catalog().get("resnet").energyKnown()).isFalse();
        assertThat(repo.problems()).singleElement().asString()
                .startsWith(root.resolve("cnn/model.json") + ": model 'cnn': field 'energy_mj.beta' must be a non-negative number");
    }

    @Test
    void notADirectoryIsAOneLineError() {
        assertThatThrownBy(() -> ModelRepository.load(Path.of("target/no-such-repository")))
                .hasMessage("target/no-such-repository: model repository is not a directory");
    }
}
