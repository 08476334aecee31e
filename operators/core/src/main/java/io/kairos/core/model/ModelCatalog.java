package io.kairos.core.model;

import io.kairos.core.api.PublicEvolving;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.Serializable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The models a deployment serves, read from a JSON profiles file:
 *
 * <pre>{@code
 * {"models": [
 *   {"name": "resnet50", "input": {"dtype": "FLOAT32", "shape": [3, 224, 224]},
 *    "batch_sizes": [1, 2, 4, 8, 16],
 *    "latency_ms": {"alpha": 0.8, "beta": 1.9}},          // tau(b) = alpha*b + beta
 *   {"name": "mlp", "input": {"dtype": "FLOAT32", "shape": [64]},
 *    "latency_ms": {"table": {"1": 0.4, "8": 0.9, "32": 2.5}},   // measured per batch size
 *    "memory_bytes": 1048576, "load_ms": 0.4,                    // optional: a cold start's cost
 *    "energy_mj": {"beta": 0.02, "zeta0": 0.5},                   // optional: zeta(b) = beta*b + zeta0
 *    "pre_post_ms": 5, "network_ms": 5}                            // optional: T_P and T_N, see ModelSpec
 * ]}
 * }</pre>
 *
 * {@code memory_bytes} and {@code load_ms} let the scheduler predict cold starts: a batch of a model
 * that its device does not hold (as far as the scheduler's own dispatches tell) is booked with the
 * load time on top. Without them the model counts as loaded everywhere. {@code energy_mj} is the
 * energy of a batch (the SMDP batching paper's linear fit); without it the energy is unknown.
 *
 * <p>Hardware types. An optional top-level {@code hardware} list names the kinds of device the
 * catalog has profiles for, each with its price per hour; without it the catalog has one type,
 * {@code default}, at price 0:
 *
 * <pre>{@code
 * {"hardware": [{"name": "cpu", "price_per_hour": 0.10, "execution": "cpu"}, {"name": "gpu-t4", "price_per_hour": 0.53, "execution": "cuda"}],
 *  "models": [
 *   {"name": "resnet50", "input": {...}, "batch_sizes": [1, 2, 4, 8],
 *    "latency_ms": {"alpha": 9.0, "beta": 4.0},                          // on cpu, the first type
 *    "hardware_profiles": {
 *      "gpu-t4": {"latency_ms": {"alpha": 0.8, "beta": 1.9}, "load_ms": 300}}}   // load_ms optional
 * ]}
 * }</pre>
 *
 * A model's {@code latency_ms} (and {@code load_ms}) is its profile on the first type; each entry of
 * {@code hardware_profiles} its profile on another, in the same forms, with the model's batch sizes
 * (a table must list exactly them) and the model's {@code load_ms} unless it gives its own. A model
 * with no profile on a type never runs on a device of it. Memory and energy are the model's on
 * every type.
 *
 * A problem in the file is reported with the file and the field it is in.
 * Serializable only so that Flink can ship it inside functions; it is immutable.
 */
@PublicEvolving
public final class ModelCatalog implements Serializable {
    private static final long serialVersionUID = 1L;

    private final String json;
    private transient Map<String, ModelSpec> models;
    private transient List<HardwareType> hardware;
    private transient Map<String, ModelSpec> instances;

    /** Separates a model's name from the number of one of its instances. */
    public static final char INSTANCE_SEPARATOR = '#';

    private ModelCatalog(String json, Parsed parsed) {
        this.json = json;
        this.models = parsed.models;
        this.hardware = parsed.hardware;
    }

    private record Parsed(List<HardwareType> hardware, Map<String, ModelSpec> models) {}

    public static ModelCatalog load(Path file) {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new CatalogException(file + ": cannot read profiles file (" + e.getMessage() + ")");
        }
        return parse(text, file.toString());
    }

    public static ModelCatalog parse(String json, String source) {
        return new ModelCatalog(json, read(json, source));
    }

    /**
     * The same models, each taking {@code memoryBytes} on a device and {@code loadMicros} to load
     * there: a simple way to ask for cold starts ("200 ms each, with room for 4 models on a device"
     * is {@code withLoadCost(1, 200_000)} on devices of 4 bytes).
     */
    public ModelCatalog withLoadCost(long memoryBytes, long loadMicros) {
        try {
            ObjectMapper mapper = new ObjectMapper();
            JsonNode root = mapper.readTree(json);
            for (JsonNode m : root.get("models")) {
                ((com.fasterxml.jackson.databind.node.ObjectNode) m).put("memory_bytes", memoryBytes).put("load_ms", loadMicros / 1000.0);
                JsonNode onTypes = m.get("hardware_profiles");
                if (onTypes == null) continue;
                for (JsonNode profile : onTypes) {
                    if (profile.has("load_ms")) ((com.fasterxml.jackson.databind.node.ObjectNode) profile).put("load_ms", loadMicros / 1000.0);
                }
            }
            return parse(mapper.writeValueAsString(root), "catalog with load cost");
        } catch (IOException e) {
            throw new IllegalStateException("a parsed catalog could not be read again", e);
        }
    }

    /** The built-in catalog of the demo and of tests: small image, text and tabular models. */
    public static ModelCatalog builtIn() {
        try (var in = ModelCatalog.class.getResourceAsStream("/kairos/models.json")) {
            return parse(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8), "built-in models.json");
        } catch (IOException | NullPointerException e) {
            throw new IllegalStateException("built-in models.json is missing from the classpath", e);
        }
    }

    /**
     * The model of that name, or the instance {@code base#k} of a catalog model {@code base}: a
     * copy of the same network with its own name and queue, never batched with the other copies
     * (the RL thesis serves 61 models duplicated 66 times). {@code null} if neither.
     */
    public ModelSpec get(String name) {
        // Instances first: a name asked for once is asked for again, by the million in a simulation of thousands of instances.
        Map<String, ModelSpec> known = instances;
        if (known != null) {
            ModelSpec instance = known.get(name);
            if (instance != null) return instance;
        }
        ModelSpec spec = models().get(name);
        if (spec != null) return spec;
        int hash = name.lastIndexOf(INSTANCE_SEPARATOR);
        if (hash <= 0 || hash == name.length() - 1) return null;
        if (instances == null) instances = new ConcurrentHashMap<>();
        return instances.computeIfAbsent(name, n -> {
            ModelSpec base = models().get(n.substring(0, hash));
            return base == null ? null : base.named(n);
        });
    }

    /** The name of the {@code index}-th instance of {@code model}, e.g. {@code resnet50#0007}. */
    public static String instanceName(String model, int index) {
        return model + INSTANCE_SEPARATOR + String.format(java.util.Locale.ROOT, "%04d", index);
    }

    public boolean contains(String name) {
        return get(name) != null;
    }

    public Collection<ModelSpec> all() {
        return models().values();
    }

    public List<String> names() {
        return new ArrayList<>(models().keySet());
    }

    /** The hardware types the catalog has profiles for, in file order; {@link HardwareType#DEFAULT} alone when it lists none. */
    public List<HardwareType> hardwareTypes() {
        if (hardware == null) models();
        return hardware;
    }

    /** The hardware type of that name, or {@code null}. */
    public HardwareType hardwareType(String name) {
        for (HardwareType t : hardwareTypes()) {
            if (t.name().equals(name)) return t;
        }
        return null;
    }

    /** The catalog's first hardware type: the one every model's {@code latency_ms} is measured on. */
    public HardwareType firstHardwareType() {
        return hardwareTypes().get(0);
    }

    private Map<String, ModelSpec> models() {
        if (models == null) {
            Parsed parsed = read(json, "catalog");
            hardware = parsed.hardware;
            models = parsed.models;
        }
        return models;
    }

    private static Parsed read(String json, String source) {
        JsonNode root;
        try {
            root = new ObjectMapper().readTree(json);
        } catch (IOException e) {
            throw new CatalogException(source + ": not valid JSON (" + e.getMessage().lines().findFirst().orElse("") + ")");
        }
        JsonNode list = root == null ? null : root.get("models");
        if (list == null || !list.isArray()) {
            throw new CatalogException(source + ": field 'models' must be an array of models");
        }
        List<HardwareType> hardware = hardware(root.get("hardware"), source);
        Map<String, ModelSpec> models = new LinkedHashMap<>();
        for (int i = 0; i < list.size(); i++) {
            String at = source + ": models[" + i + "]";
            JsonNode m = list.get(i);
            String name = text(m, "name", at);
            at = source + ": model '" + name + "'";
            if (models.containsKey(name)) throw new CatalogException(at + " is defined twice");
            // Fields are checked in this order, so that a file with several problems names the first.
            InputSpec input = input(m.get("input"), at);
            LatencyProfile latency = latency(m.get("latency_ms"), m, at, "latency_ms");
            long memoryBytes = nonNegative(m, "memory_bytes", 1, at, "memory_bytes", "bytes the model takes on a device");
            long loadMicros = nonNegative(m, "load_ms", 1000, at, "load_ms", "milliseconds to load the model onto a device");
            EnergyProfile energy = energy(m, at);
            long prePostMicros = nonNegative(m, "pre_post_ms", 1000, at, "pre_post_ms", "milliseconds of a request's pre- and post-processing");
            long networkMicros = nonNegative(m, "network_ms", 1000, at, "network_ms", "milliseconds a request takes to reach a device on another machine");
            Map<String, HardwareProfile> profiles = new LinkedHashMap<>();
            profiles.put(hardware.get(0).name(), new HardwareProfile(latency, loadMicros));
            profiles.putAll(hardwareProfiles(m, hardware, latency, loadMicros, at));
            models.put(name, new ModelSpec(name, input, latency, memoryBytes, loadMicros, energy, profiles, prePostMicros, networkMicros));
        }
        return new Parsed(hardware, Collections.unmodifiableMap(models));
    }

    /** The optional top-level {@code hardware} list; {@code default} at price 0 alone when absent. */
    private static List<HardwareType> hardware(JsonNode list, String source) {
        if (list == null || list.isNull()) return List.of(HardwareType.DEFAULT);
        String form = "[{\"name\": \"cpu\", \"price_per_hour\": 0.10}, ...]";
        if (!list.isArray() || list.isEmpty()) throw new CatalogException(source + ": field 'hardware' must be a non-empty array " + form);
        List<HardwareType> types = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            String at = source + ": hardware[" + i + "]";
            JsonNode t = list.get(i);
            if (!t.isObject()) throw new CatalogException(at + " must be an object {\"name\": .., \"price_per_hour\": ..}");
            String name = text(t, "name", at);
            if (!HardwareType.validName(name)) {
                throw new CatalogException(at + ": field 'name' is '" + name + "', expected lower-case letters, digits, '-', '.' or '_'");
            }
            JsonNode price = t.get("price_per_hour");
            if (price == null || !price.isNumber() || !(price.asDouble() >= 0) || !Double.isFinite(price.asDouble())) {
                throw new CatalogException(at + ": field 'price_per_hour' must be a non-negative number (what one device of type '" + name + "' costs per hour)");
            }
            for (HardwareType before : types) {
                if (before.name().equals(name)) throw new CatalogException(at + ": hardware type '" + name + "' is listed twice");
            }
            types.add(new HardwareType(name, price.asDouble(), execution(t.get("execution"), at, name)));
        }
        return List.copyOf(types);
    }

    /** A hardware type's optional {@code execution}: {@code cpu} or {@code cuda}; absent, as the process can. */
    private static HardwareType.Execution execution(JsonNode v, String at, String name) {
        if (v == null || v.isNull()) return HardwareType.Execution.ANY;
        if (v.isTextual()) {
            for (HardwareType.Execution e : HardwareType.Execution.values()) {
                if (e != HardwareType.Execution.ANY && e.word().equals(v.asText())) return e;
            }
        }
        throw new CatalogException(at + ": field 'execution' must be \"cpu\" or \"cuda\" (what a device of type '" + name
                + "' runs on; leave it out to run as the process can), got " + v);
    }

    /**
     * A model's optional {@code hardware_profiles}: its profile on types other than the first, in
     * the catalog's order of types.
     */
    private static Map<String, HardwareProfile> hardwareProfiles(JsonNode m, List<HardwareType> hardware, LatencyProfile first, long firstLoad, String at) {
        JsonNode onTypes = m.get("hardware_profiles");
        if (onTypes == null || onTypes.isNull()) return Map.of();
        String form = "{\"<hardware type>\": {\"latency_ms\": {..}, \"load_ms\": ..}}";
        if (!onTypes.isObject()) throw new CatalogException(at + ": field 'hardware_profiles' must be " + form);
        for (Iterator<String> it = onTypes.fieldNames(); it.hasNext(); ) {
            String type = it.next();
            boolean known = false;
            for (HardwareType t : hardware) known |= t.name().equals(type);
            String field = "hardware_profiles." + type;
            if (!known) {
                throw new CatalogException(at + ": field '" + field + "' names hardware type '" + type + "', which the catalog's 'hardware' does not list"
                        + " (it has " + hardware.stream().map(HardwareType::name).toList() + ")");
            }
            if (type.equals(hardware.get(0).name())) {
                throw new CatalogException(at + ": field '" + field + "' names the first hardware type, whose profile is the model's 'latency_ms'");
            }
        }
        Map<String, HardwareProfile> profiles = new LinkedHashMap<>();
        for (HardwareType t : hardware) {
            JsonNode p = onTypes.get(t.name());
            if (p == null) continue;
            String field = "hardware_profiles." + t.name();
            if (!p.isObject()) throw new CatalogException(at + ": field '" + field + "' must be {\"latency_ms\": {..}} with an optional \"load_ms\"");
            LatencyProfile latency = latency(p.get("latency_ms"), m, at, field + ".latency_ms");
            if (!java.util.Arrays.equals(latency.batchSizes(), first.batchSizes())) {
                throw new CatalogException(at + ": field '" + field + ".latency_ms' has batch sizes " + java.util.Arrays.toString(latency.batchSizes())
                        + ", not the model's " + java.util.Arrays.toString(first.batchSizes()) + " (every type's profile allows the same sizes)");
            }
            long load = p.has("load_ms") ? nonNegative(p, "load_ms", 1000, at, field + ".load_ms", "milliseconds to load the model onto a device of this type") : firstLoad;
            profiles.put(t.name(), new HardwareProfile(latency, load));
        }
        return profiles;
    }

    /** An optional non-negative number field, times {@code scale} and rounded; 0 when absent. */
    private static long nonNegative(JsonNode m, String key, double scale, String at, String field, String meaning) {
        JsonNode v = m.get(key);
        if (v == null || v.isNull()) return 0;
        if (!v.isNumber() || v.asDouble() < 0) throw new CatalogException(at + ": field '" + field + "' must be a non-negative number (" + meaning + ")");
        return Math.round(v.asDouble() * scale);
    }

    /** The optional {@code energy_mj} line; {@code null} (unknown) when absent. */
    private static EnergyProfile energy(JsonNode m, String at) {
        JsonNode e = m.get("energy_mj");
        if (e == null || e.isNull()) return null;
        String form = "{\"beta\": mJ per request, \"zeta0\": mJ per batch}";
        if (!e.isObject()) throw new CatalogException(at + ": field 'energy_mj' must be " + form);
        for (String f : new String[]{"beta", "zeta0"}) {
            JsonNode v = e.get(f);
            if (v == null || !v.isNumber() || v.asDouble() < 0) {
                throw new CatalogException(at + ": field 'energy_mj." + f + "' must be a non-negative number (" + form + ")");
            }
        }
        return new EnergyProfile(e.get("beta").asDouble(), e.get("zeta0").asDouble());
    }

    private static InputSpec input(JsonNode in, String at) {
        if (in == null || !in.isObject()) throw new CatalogException(at + ": field 'input' must be an object with 'dtype' and 'shape'");
        String dtype = text(in, "dtype", at + " input");
        try {
            InputSpec.bytesPerElement(dtype);
        } catch (IllegalArgumentException e) {
            throw new CatalogException(at + ": field 'input.dtype' is '" + dtype + "', expected one of FLOAT32, FLOAT64, INT32, INT64, UINT8, INT8, BOOL, FLOAT16");
        }
        JsonNode shape = in.get("shape");
        if (shape == null || !shape.isArray() || shape.isEmpty()) throw new CatalogException(at + ": field 'input.shape' must be a non-empty array of positive integers");
        long[] dims = new long[shape.size()];
        for (int d = 0; d < dims.length; d++) {
            if (!shape.get(d).canConvertToLong() || shape.get(d).asLong() < 1) {
                throw new CatalogException(at + ": field 'input.shape[" + d + "]' must be a positive integer");
            }
            dims[d] = shape.get(d).asLong();
        }
        return new InputSpec(dtype, dims);
    }

    /** A latency profile in either form, {@code lat} being the model's {@code field}; batch sizes from the model's {@code batch_sizes}/{@code max_batch}. */
    private static LatencyProfile latency(JsonNode lat, JsonNode m, String at, String field) {
        if (lat == null || !lat.isObject()) throw new CatalogException(at + ": field '" + field + "' must be {\"alpha\":..,\"beta\":..} or {\"table\":{..}}");
        try {
            if (lat.has("table")) {
                JsonNode table = lat.get("table");
                int[] sizes = new int[table.size()];
                long[] micros = new long[table.size()];
                int i = 0;
                for (Iterator<Map.Entry<String, JsonNode>> it = table.fields(); it.hasNext(); i++) {
                    Map.Entry<String, JsonNode> e = it.next();
                    sizes[i] = Integer.parseInt(e.getKey());
                    micros[i] = Math.round(e.getValue().asDouble() * 1000.0);
                }
                return new LatencyProfile(sizes, micros);
            }
            if (!lat.has("alpha") || !lat.has("beta")) throw new CatalogException(at + ": field '" + field + "' needs 'alpha' and 'beta', or 'table'");
            int[] sizes;
            JsonNode bs = m.get("batch_sizes");
            if (bs == null) {
                sizes = LatencyProfile.powersOfTwoUpTo(m.has("max_batch") ? m.get("max_batch").asInt() : 16);
            } else {
                sizes = new int[bs.size()];
                for (int i = 0; i < sizes.length; i++) sizes[i] = bs.get(i).asInt();
            }
            return LatencyProfile.linear(lat.get("alpha").asDouble(), lat.get("beta").asDouble(), sizes);
        } catch (NumberFormatException e) {
            throw new CatalogException(at + ": field '" + field + ".table' keys must be batch sizes (" + e.getMessage() + ")");
        } catch (IllegalArgumentException e) {
            if (e instanceof CatalogException) throw e;
            throw new CatalogException(at + ": field '" + field + "': " + e.getMessage());
        }
    }

    private static String text(JsonNode node, String field, String at) {
        JsonNode v = node == null ? null : node.get(field);
        if (v == null || !v.isTextual() || v.asText().isBlank()) throw new CatalogException(at + ": field '" + field + "' must be a non-empty string");
        return v.asText();
    }

    /** A profiles file that cannot be used; the message names the file and the field. */
    public static final class CatalogException extends IllegalArgumentException {
        public CatalogException(String message) {
            super(message);
        }
    }
}
