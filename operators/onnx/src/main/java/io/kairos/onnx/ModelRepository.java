package io.kairos.onnx;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kairos.core.model.InputSpec;
import io.kairos.core.model.ModelCatalog;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A folder of ONNX models, one subfolder per model, in the manner of Triton's model repository:
 *
 * <pre>
 * models/
 *   cnn/model.onnx
 *   cnn/model.json    {"name": "cnn", "version": 1,
 *                      "input":  {"name": "input",  "dtype": "FLOAT32", "shape": [3, 32, 32]},
 *                      "output": {"name": "logits", "dtype": "FLOAT32", "shape": [10]},
 *                      "batch_sizes": [1, 2, 4, 8, 16, 32],
 *                      "memory_bytes": 8388608,
 *                      "latency_ms": {"alpha": 0.03, "beta": 0.1},    (optional; see below)
 *                      "energy_mj": {"beta": 0.5, "zeta0": 2.0}}      (optional: zeta(b) = beta*b + zeta0 mJ)
 * </pre>
 *
 * Shapes are per request, without the batch dimension. {@code latency_ms} takes the catalog's
 * forms ({@code alpha}/{@code beta} or a {@code table} per batch size, as {@code bin/kairos profile}
 * writes it); a model without one gets {@link #UNPROFILED_LATENCY} until it is profiled.
 *
 * <p>A model whose manifest is wrong, or whose {@code model.onnx} does not load or does not match
 * its manifest, is reported in {@link #problems()} with the file and the field, and left out; the
 * others are served. The repository produces the {@link ModelCatalog} that validation and
 * scheduling use, so that a request whose tensor does not match the manifest is rejected before it
 * reaches a device.
 */
public final class ModelRepository {
    public static final String MODEL_FILE = "model.onnx";
    public static final String MANIFEST_FILE = "model.json";
    /** A deliberately pessimistic guess (1 ms + 0.5 ms per request) for a model not yet profiled. */
    public static final String UNPROFILED_LATENCY = "{\"alpha\": 0.5, \"beta\": 1.0}";

    private final Path root;
    private final Map<String, OnnxModel> models;
    private final List<String> problems;
    private final ModelCatalog catalog;

    private ModelRepository(Path root, Map<String, OnnxModel> models, List<String> problems, ModelCatalog catalog) {
        this.root = root;
        this.models = models;
        this.problems = problems;
        this.catalog = catalog;
    }

    /**
     * Reads every manifest and checks each {@code model.onnx} against it by opening it in ONNX
     * Runtime (input and output names, dtypes, shapes). What the serving client calls.
     */
    public static ModelRepository load(Path root) {
        return read(root, true);
    }

    /**
     * Reads the manifests only, without opening the models: what a device calls, since the client
     * already checked the models and the device loads them on first use.
     */
    public static ModelRepository readManifests(Path root) {
        return read(root, false);
    }

    private static ModelRepository read(Path root, boolean checkModels) {
        if (!Files.isDirectory(root)) throw new IllegalArgumentException(root + ": model repository is not a directory");
        List<Path> folders;
        try (Stream<Path> list = Files.list(root)) {
            folders = list.filter(Files::isDirectory).sorted().toList();
        } catch (IOException e) {
            throw new IllegalArgumentException(root + ": cannot list the model repository (" + e.getMessage() + ")");
        }
        Map<String, OnnxModel> models = new LinkedHashMap<>();
        List<String> problems = new ArrayList<>();
        ObjectMapper json = new ObjectMapper();
        ObjectNode catalogJson = json.createObjectNode();
        ArrayNode entries = catalogJson.putArray("models");
        for (Path folder : folders) {
            Path manifest = folder.resolve(MANIFEST_FILE);
            try {
                JsonNode m = readJson(json, manifest);
                OnnxModel model = parse(m, folder, manifest);
                if (models.containsKey(model.name())) {
                    throw new ManifestException(manifest + ": field 'name': model '" + model.name() + "' is already defined in "
                            + models.get(model.name()).file().getParent());
                }
                if (checkModels) OnnxModelCheck.check(model);
                ObjectNode entry = model.catalogEntry(json.createObjectNode());
                ArrayNode sizes = entry.putArray("batch_sizes");
                for (int b : model.batchSizes()) sizes.add(b);
                entry.set("latency_ms", m.has("latency_ms") ? m.get("latency_ms") : json.readTree(UNPROFILED_LATENCY));
                if (m.has("load_ms")) entry.set("load_ms", m.get("load_ms"));
                if (m.has("energy_mj")) entry.set("energy_mj", m.get("energy_mj"));
                // The catalog checks the latency profile; a bad one is this manifest's problem.
                ModelCatalog.parse(json.writeValueAsString(json.createObjectNode().set("models", json.createArrayNode().add(entry))), manifest.toString());
                entries.add(entry);
                models.put(model.name(), model);
            } catch (IllegalArgumentException e) {
                problems.add(e.getMessage());
            } catch (IOException e) {
                problems.add(manifest + ": " + e.getMessage());
            }
        }
        ModelCatalog catalog;
        try {
            catalog = ModelCatalog.parse(json.writeValueAsString(catalogJson), root + " (model repository)");
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return new ModelRepository(root, models, List.copyOf(problems), catalog);
    }

    private static JsonNode readJson(ObjectMapper json, Path manifest) {
        if (!Files.isRegularFile(manifest)) throw new ManifestException(manifest + ": missing (every model folder needs a " + MANIFEST_FILE + ")");
        try {
            return json.readTree(manifest.toFile());
        } catch (IOException e) {
            throw new ManifestException(manifest + ": not valid JSON (" + e.getMessage().lines().findFirst().orElse("") + ")");
        }
    }

    private static OnnxModel parse(JsonNode m, Path folder, Path manifest) {
        String at = manifest.toString();
        String name = text(m, "name", at);
        Path file = folder.resolve(MODEL_FILE);
        if (!Files.isRegularFile(file)) throw new ManifestException(file + ": missing (model '" + name + "')");
        int version = m.has("version") ? m.get("version").asInt(1) : 1;
        TensorSpec input = tensor(m.get("input"), at, "input");
        TensorSpec output = tensor(m.get("output"), at, "output");
        JsonNode bs = m.get("batch_sizes");
        if (bs == null || !bs.isArray() || bs.isEmpty()) throw new ManifestException(at + ": field 'batch_sizes' must be a non-empty array of increasing positive integers");
        int[] sizes = new int[bs.size()];
        for (int i = 0; i < sizes.length; i++) {
            if (!bs.get(i).canConvertToInt() || bs.get(i).asInt() < 1 || (i > 0 && bs.get(i).asInt() <= sizes[i - 1])) {
                throw new ManifestException(at + ": field 'batch_sizes[" + i + "]' must be a positive integer above the one before it");
            }
            sizes[i] = bs.get(i).asInt();
        }
        JsonNode mem = m.get("memory_bytes");
        if (mem == null || !mem.canConvertToLong() || mem.asLong() < 1) throw new ManifestException(at + ": field 'memory_bytes' must be a positive integer (bytes the loaded model takes on a device)");
        return new OnnxModel(name, version, file, input, output, sizes, mem.asLong());
    }

    private static TensorSpec tensor(JsonNode t, String at, String field) {
        if (t == null || !t.isObject()) throw new ManifestException(at + ": field '" + field + "' must be an object with 'name', 'dtype' and 'shape'");
        String name = text(t, "name", at + " " + field);
        String dtype = text(t, "dtype", at + " " + field);
        try {
            InputSpec.bytesPerElement(dtype);
        } catch (IllegalArgumentException e) {
            throw new ManifestException(at + ": field '" + field + ".dtype' is '" + dtype + "', expected one of FLOAT32, FLOAT64, INT32, INT64, UINT8, INT8, BOOL");
        }
        JsonNode shape = t.get("shape");
        if (shape == null || !shape.isArray() || shape.isEmpty()) throw new ManifestException(at + ": field '" + field + ".shape' must be a non-empty array of positive integers (without the batch dimension)");
        long[] dims = new long[shape.size()];
        for (int d = 0; d < dims.length; d++) {
            if (!shape.get(d).canConvertToLong() || shape.get(d).asLong() < 1) throw new ManifestException(at + ": field '" + field + ".shape[" + d + "]' must be a positive integer");
            dims[d] = shape.get(d).asLong();
        }
        return new TensorSpec(name, new InputSpec(dtype, dims));
    }

    private static String text(JsonNode node, String field, String at) {
        JsonNode v = node == null ? null : node.get(field);
        if (v == null || !v.isTextual() || v.asText().isBlank()) throw new ManifestException(at + ": field '" + field + "' must be a non-empty string");
        return v.asText();
    }

    public Path root() {
        return root;
    }

    /** The models that passed, by name, in folder order. */
    public Map<String, OnnxModel> models() {
        return models;
    }

    public OnnxModel get(String name) {
        return models.get(name);
    }

    /** One line per model left out: the file, the field and what is wrong. */
    public List<String> problems() {
        return problems;
    }

    /** The catalog of the models that passed, for validation and scheduling. */
    public ModelCatalog catalog() {
        return catalog;
    }

    /** A named tensor of one request: the element type and the shape without the batch dimension. */
    public record TensorSpec(String name, InputSpec spec) {
        public String dtype() {
            return spec.dtype();
        }

        public long[] shape() {
            return spec.shape();
        }
    }

    /** One model of the repository, as its manifest describes it. */
    public record OnnxModel(String name, int version, Path file, TensorSpec inputTensor, TensorSpec outputTensor,
                            int[] batchSizes, long memoryBytes) {
        public InputSpec input() {
            return inputTensor.spec();
        }

        public int maxBatch() {
            return batchSizes[batchSizes.length - 1];
        }

        /**
         * Writes what a catalog entry ({@code models.json}) says of this model's name, input and
         * memory footprint into {@code entry}.
         */
        public ObjectNode catalogEntry(ObjectNode entry) {
            entry.put("name", name);
            ObjectNode input = entry.putObject("input");
            input.put("dtype", input().dtype());
            ArrayNode shape = input.putArray("shape");
            for (long d : input().shape()) shape.add(d);
            entry.put("memory_bytes", memoryBytes);
            return entry;
        }

        @Override
        public String toString() {
            return name + " v" + version + " " + inputTensor.name() + ":" + input() + " -> " + outputTensor.name() + ":" + outputTensor.spec()
                    + " batches " + Arrays.toString(batchSizes) + ", " + memoryBytes + " bytes";
        }
    }

    /** A manifest that cannot be used; the message names the file and the field. */
    public static final class ManifestException extends IllegalArgumentException {
        public ManifestException(String message) {
            super(message);
        }
    }
}
