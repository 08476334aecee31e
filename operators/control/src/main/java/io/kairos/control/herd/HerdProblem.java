package io.kairos.control.herd;

import io.kairos.core.model.ModelCatalog;
import io.kairos.core.model.ModelSpec;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * What Herd's ILP is solved for, checked before any solving: the request streams with their
 * {@code n_i = rate_i / T_i} (the devices stream {@code i} needs on average, {@code T_i} its most
 * goodput on one device), the cluster's {@code N} devices, the most devices per group {@code G},
 * a device's memory and each model's memory from the catalog.
 *
 * <p><b>Models, not streams, are what is grouped.</b> The job routes a model's requests to one
 * serving group ({@code AssignGroup} is per model), so the streams of one model share a group:
 * {@code x_ij = z_kj} for the model {@code k} of stream {@code i}. They also share the model's
 * queue: a burst of one waits behind the others' requests on the same devices, so a model needs
 * the sum of its streams' {@code n_i} (its {@link Model#need}, {@code ν_k}), and a stream's burst
 * tolerance is its group's devices over that sum, {@code bt(i) = size_j / ν_k(i)} (Shepherd's
 * {@code size_j / n_i} where a model has one stream). The ILP is solved over models. A stream that
 * should have a group of its own names a model instance of its own ({@code resnet50#0001}: the
 * same network, its own queue).
 *
 * <p>The checks, each one line naming the stream's file, line and field: a model the catalog
 * lacks; an SLO that no device meets alone (below the model's batch-1 latency, or no goodput
 * within it on one device); a model larger than a device's memory; the streams of one model in
 * different affinity sets.
 */
public final class HerdProblem {
    /**
     * A model to place, with what its streams ask of it.
     *
     * @param need     {@code Σ n_i} over its streams: the devices they keep busy together on average
     * @param affinity the affinity set of its streams, or null
     * @param streams  indices into {@link #streams()}
     */
    public record Model(String name, long memoryBytes, String affinity, double need, List<Integer> streams) {}

    private final List<RequestStream> streams;
    private final double[] throughput;
    private final double[] need;
    private final List<Model> models;
    private final int devices;
    private final int maxGroup;
    private final long deviceMemoryBytes;

    private HerdProblem(List<RequestStream> streams, double[] throughput, List<Model> models, int devices, int maxGroup, long deviceMemoryBytes) {
        this.streams = List.copyOf(streams);
        this.throughput = throughput;
        this.need = new double[streams.size()];
        for (int i = 0; i < need.length; i++) need[i] = streams.get(i).ratePerSecond() / throughput[i];
        this.models = List.copyOf(models);
        this.devices = devices;
        this.maxGroup = maxGroup;
        this.deviceMemoryBytes = deviceMemoryBytes;
    }

    /** With each stream's {@code T_i} measured by the simulator ({@link SingleDeviceGoodput}). */
    public static HerdProblem of(List<RequestStream> streams, ModelCatalog catalog, int devices, int maxGroup, long deviceMemoryBytes,
                                 SingleDeviceGoodput goodput) {
        return of(streams, catalog, devices, maxGroup, deviceMemoryBytes, s -> goodput.of(s).perSecond());
    }

    /**
     * @param throughput each stream's {@code T_i}, requests per second within its SLO on one device
     * @param deviceMemoryBytes a device's memory for models; {@link Long#MAX_VALUE}: unbounded
     * @throws IllegalArgumentException in one line for a problem the checks find (above), a stream
     *         without a rate, or {@code devices}, {@code maxGroup} below 1
     */
    public static HerdProblem of(List<RequestStream> streams, ModelCatalog catalog, int devices, int maxGroup, long deviceMemoryBytes,
                                 ToDoubleFunction<RequestStream> throughput) {
        if (devices < 1) throw new IllegalArgumentException("the cluster needs at least one device, got " + devices);
        if (maxGroup < 1) throw new IllegalArgumentException("the most devices per group must be at least 1, got " + maxGroup);
        if (deviceMemoryBytes < 1) throw new IllegalArgumentException("a device's memory must be positive, got " + deviceMemoryBytes + " bytes");
        if (streams.isEmpty()) throw new IllegalArgumentException("no stream to plan for");
        // Every check before any measurement: a bad file is reported in milliseconds, not after minutes of simulation.
        Map<String, String> affinityOf = new LinkedHashMap<>();
        Map<String, RequestStream> firstOf = new LinkedHashMap<>();
        for (RequestStream s : streams) {
            ModelSpec model = catalog.get(s.model());
            if (model == null) throw new IllegalArgumentException(s.where().field("model") + ": model '" + s.model() + "' is not in the catalog; it has " + catalog.names());
            if (s.ratePerSecond() == null) throw new IllegalArgumentException(s.where().field("rate_per_s") + ": is missing (or take the rates from the job's telemetry)");
            long alone = model.latency().latencyAt(0);
            if (alone > s.sloMicros()) {
                throw new IllegalArgumentException(String.format(Locale.ROOT, "%s: no device meets an SLO of %s ms alone: model '%s' takes %s ms at batch %d",
                        s.where().field("slo_ms"), plain(s.sloMs()), s.model(), plain(alone / 1000.0), model.latency().batchSizeAt(0)));
            }
            if (model.memoryBytes() > deviceMemoryBytes) {
                throw new IllegalArgumentException(String.format(Locale.ROOT, "%s: model '%s' takes %s MB, more than a device's memory of %s MB",
                        s.where().field("model"), s.model(), mb(model.memoryBytes()), mb(deviceMemoryBytes)));
            }
            RequestStream first = firstOf.putIfAbsent(s.model(), s);
            if (first != null && !java.util.Objects.equals(affinityOf.get(s.model()), s.affinity())) {
                throw new IllegalArgumentException(s.where().field("affinity") + ": stream '" + s.name() + "' of model '" + s.model() + "' is in affinity set "
                        + setName(s.affinity()) + ", stream '" + first.name() + "' of the same model in " + setName(affinityOf.get(s.model()))
                        + "; the job routes a model to one group, so its streams share one set");
            }
            affinityOf.putIfAbsent(s.model(), s.affinity());
        }
        double[] t = new double[streams.size()];
        for (int i = 0; i < t.length; i++) {
            RequestStream s = streams.get(i);
            t[i] = throughput.applyAsDouble(s);
            if (!(t[i] > 0)) {
                throw new IllegalArgumentException(String.format(Locale.ROOT, "%s: no device meets an SLO of %s ms alone: model '%s' has no goodput within it on one device",
                        s.where().field("slo_ms"), plain(s.sloMs()), s.model()));
            }
        }
        Map<String, List<Integer>> byModel = new LinkedHashMap<>();
        for (int i = 0; i < streams.size(); i++) byModel.computeIfAbsent(streams.get(i).model(), m -> new ArrayList<>()).add(i);
        List<Model> models = new ArrayList<>();
        for (Map.Entry<String, List<Integer>> e : byModel.entrySet()) {
            // The model's streams share its queue and its group's devices: their needs add up.
            double load = 0;
            for (int i : e.getValue()) load += streams.get(i).ratePerSecond() / t[i];
            models.add(new Model(e.getKey(), catalog.get(e.getKey()).memoryBytes(), affinityOf.get(e.getKey()), load, List.copyOf(e.getValue())));
        }
        // The ILP's groups are ordered by their most demanding model (its symmetry breaking), so the models are too; names break ties.
        models.sort(Comparator.comparingDouble(Model::need).reversed().thenComparing(Model::name));
        return new HerdProblem(streams, t, models, devices, maxGroup, deviceMemoryBytes);
    }

    public List<RequestStream> streams() {
        return streams;
    }

    /** {@code T_i} of stream {@code i}. */
    public double throughput(int i) {
        return throughput[i];
    }

    /** {@code n_i = rate_i / T_i} of stream {@code i}. */
    public double need(int i) {
        return need[i];
    }

    /** The models, the most demanding first. */
    public List<Model> models() {
        return models;
    }

    public int devices() {
        return devices;
    }

    public int maxGroup() {
        return maxGroup;
    }

    public long deviceMemoryBytes() {
        return deviceMemoryBytes;
    }

    /** Whether memory limits any grouping: some model takes memory and a device has a bound. */
    public boolean memoryBinds() {
        if (deviceMemoryBytes == Long.MAX_VALUE) return false;
        long total = 0;
        for (Model m : models) total += m.memoryBytes();
        return total > deviceMemoryBytes;
    }

    static String setName(String affinity) {
        return affinity == null ? "none" : "'" + affinity + "'";
    }

    static String mb(long bytes) {
        return plain(bytes / (1024.0 * 1024.0));
    }

    static String plain(double v) {
        String s = String.format(Locale.ROOT, "%.3f", v).replaceAll("0+$", "");
        return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
    }
}
