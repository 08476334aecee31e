package io.kairos.testbed.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.model.ModelSpec;
import io.kairos.wire.result.ResultBounds;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Models whose requests carry a payload of a given size, for the benchmark's payload sweep: the
 * built-in catalog plus two image-sized models, a real image (224x224x3) as 8-bit pixels
 * ({@value #IMAGE_UINT8}, 150,528 bytes) and as float32 ({@value #IMAGE_FLOAT32}, 602,112 bytes).
 * A size asked for in kB (1,000 bytes) gets the model whose input is nearest to it within a factor
 * of {@value #NEAR}, so that 0.3 is {@code mlp} (256 bytes), 12 is {@code resnet50} (12,288), 150
 * and 600 the two image models; any other size gets a flat {@code UINT8} tensor of exactly that
 * many bytes, a model named {@code payload-<bytes>b}. Every model is in {@link #catalog()}, which
 * the serving job is given, so admission checks the request's shape and type against it as for
 * any model. The latency profiles do not matter: the benchmark's devices take no time.
 */
final class PayloadModels {
    static final String IMAGE_UINT8 = "image-uint8";
    static final String IMAGE_FLOAT32 = "image-float32";
    /** How far a model's input may be from the size asked for and still stand for it. */
    static final double NEAR = 1.25;

    /** What a request record may take: Kafka's default {@code max.request.size}, less room for its headers. */
    static final int MAX_REQUEST_BYTES = ResultBounds.KAFKA_DEFAULT_MAX_REQUEST_SIZE - ResultBounds.HEADROOM_BYTES;

    private final List<ModelSpec> models;
    private final ModelCatalog catalog;

    private PayloadModels(List<ModelSpec> models, ModelCatalog catalog) {
        this.models = models;
        this.catalog = catalog;
    }

    /**
     * The model of each size, in order, with a catalog holding the built-in models and all of them.
     *
     * @throws IllegalArgumentException when a size is not positive, or its request would not fit
     *                                  in a Kafka record of the default limit
     */
    static PayloadModels forKilobytes(double... kilobytes) {
        ObjectMapper mapper = new ObjectMapper();
        ObjectNode root;
        try (InputStream in = ModelCatalog.class.getResourceAsStream("/kairos/models.json")) {
            root = (ObjectNode) mapper.readTree(in);
        } catch (IOException | NullPointerException e) {
            throw new IllegalStateException("built-in models.json is missing from the classpath", e);
        }
        ArrayNode list = (ArrayNode) root.get("models");
        list.add(model(mapper, IMAGE_UINT8, "UINT8", 3, 224, 224));
        list.add(model(mapper, IMAGE_FLOAT32, "FLOAT32", 3, 224, 224));
        ModelCatalog known = ModelCatalog.parse(root.toString(), "payload models");
        List<String> chosen = new ArrayList<>();
        Map<String, Boolean> added = new LinkedHashMap<>();
        for (double kb : kilobytes) {
            if (!(kb > 0) || Double.isInfinite(kb)) throw new IllegalArgumentException("a payload size must be a positive number of kB, got " + kb);
            long bytes = Math.round(kb * 1_000);
            String name = nearest(known, bytes);
            if (name == null) {
                name = "payload-" + bytes + "b";
                if (added.putIfAbsent(name, true) == null) list.add(model(mapper, name, "UINT8", bytes));
            }
            chosen.add(name);
        }
        ModelCatalog catalog = ModelCatalog.parse(root.toString(), "payload models");
        List<ModelSpec> models = new ArrayList<>();
        for (int i = 0; i < chosen.size(); i++) {
            ModelSpec m = catalog.get(chosen.get(i));
            int request = KafkaRoundTrip.encodedRequestBytes(m);
            if (request > MAX_REQUEST_BYTES) {
                throw new IllegalArgumentException(String.format(Locale.ROOT, "a payload of %s kB makes %,d-byte requests, over the %,d bytes a Kafka record may take by default",
                        trim(kilobytes[i]), request, MAX_REQUEST_BYTES));
            }
            models.add(m);
        }
        return new PayloadModels(List.copyOf(models), catalog);
    }

    /** The model of each size asked for, in the order asked. */
    List<ModelSpec> models() {
        return models;
    }

    /** The built-in models and every payload model. */
    ModelCatalog catalog() {
        return catalog;
    }

    /** The catalog model whose input is nearest to {@code bytes} (by ratio), if within {@link #NEAR}; the first of equals. */
    private static String nearest(ModelCatalog catalog, long bytes) {
        String best = null;
        double bestRatio = Double.POSITIVE_INFINITY;
        for (ModelSpec m : catalog.all()) {
            long size = m.input().byteSize();
            double ratio = Math.max(size, bytes) / (double) Math.min(size, bytes);
            if (ratio < bestRatio) {
                best = m.name();
                bestRatio = ratio;
            }
        }
        return bestRatio <= NEAR ? best : null;
    }

    private static ObjectNode model(ObjectMapper mapper, String name, String dtype, long... shape) {
        ObjectNode m = mapper.createObjectNode().put("name", name);
        ObjectNode input = m.putObject("input").put("dtype", dtype);
        ArrayNode dims = input.putArray("shape");
        for (long d : shape) dims.add(d);
        ArrayNode sizes = m.putArray("batch_sizes");
        for (int b : new int[]{1, 2, 4, 8, 16}) sizes.add(b);
        m.putObject("latency_ms").put("alpha", 0.8).put("beta", 1.9);
        m.put("note", "payload sweep: requests of this size; the benchmark's devices take no time");
        return m;
    }

    /** 0.3 rather than 0.30000000000000004, 150 rather than 150.0. */
    static String trim(double kb) {
        return kb == Math.rint(kb) ? Long.toString((long) kb) : new java.math.BigDecimal(Double.toString(kb)).stripTrailingZeros().toPlainString();
    }
}
