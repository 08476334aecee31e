package io.kairos.onnx;

import io.kairos.core.model.HardwareType;

import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kairos.onnx.ModelRepository.OnnxModel;
import io.kairos.schema.DType;
import io.kairos.schema.Tensor;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.function.IntConsumer;

/**
 * Measures a model as a device runs it (InferLine's profiler): at each allowed batch size, some
 * warm-up batches and then timed ones, each the very {@link OnnxDevice#infer} of the serving
 * path (stacking, one {@code session.run}, splitting); the cold start (session creation plus the
 * first batch); and the line {@code tau(b) = alpha*b + beta} fitted to the medians by least
 * squares, with its R², which says whether the linear model the schedulers assume holds.
 *
 * <p>Energy where the device's power can be read ({@link PowerMeter}: {@code nvidia-smi} on a GPU):
 * the board power is sampled while each batch size's timed runs go on, a batch's energy is that
 * power times its mean latency, and the SMDP paper's line {@code zeta(b) = beta*b + zeta0} is fitted
 * to them. On the CPU, or without {@code nvidia-smi}, the energy stays unknown: no
 * {@code energy_mj} in the profiles file.
 */
public final class ModelProfiler {
    private final OnnxDevice.Options options;
    private final int warmupRuns;
    private final int timedRuns;
    private final PowerMeter power;

    /** A profiler that reads the power of the device {@code options} name where it can ({@link PowerMeter#forDevice}). */
    public ModelProfiler(OnnxDevice.Options options, int warmupRuns, int timedRuns) {
        this(options, warmupRuns, timedRuns, PowerMeter.forDevice(options.gpuIndex()));
    }

    ModelProfiler(OnnxDevice.Options options, int warmupRuns, int timedRuns, PowerMeter power) {
        if (warmupRuns < 0 || timedRuns < 1) throw new IllegalArgumentException("need at least one timed run and no negative warm-up, got " + warmupRuns + "/" + timedRuns);
        this.options = options;
        this.warmupRuns = warmupRuns;
        this.timedRuns = timedRuns;
        this.power = power;
    }

    /** Latencies of one batch size, in milliseconds, and the board power while it ran (W; NaN: unknown). */
    public record BatchStats(int batchSize, double p50Ms, double p99Ms, double meanMs, double powerW) {
        public BatchStats(int batchSize, double p50Ms, double p99Ms, double meanMs) {
            this(batchSize, p50Ms, p99Ms, meanMs, Double.NaN);
        }

        /** Requests per second one device sustains at this batch size (median latency). */
        public double throughputPerSecond() {
            return batchSize * 1000.0 / p50Ms;
        }

        /** Millijoules of one batch: the power times the mean latency (W x ms = mJ); NaN when the power is unknown. */
        public double energyMj() {
            return powerW * meanMs;
        }
    }

    /**
     * Everything measured of one model; {@code energyBetaMj} and {@code energyZeta0Mj} are the fit
     * {@code zeta(b) = beta*b + zeta0}, both NaN when the power could not be read.
     */
    public record Profile(String model, double coldStartMs, List<BatchStats> batches, double alphaMs, double betaMs, double r2,
                          double energyBetaMj, double energyZeta0Mj) {
        public boolean energyKnown() {
            return !Double.isNaN(energyBetaMj);
        }
    }

    /**
     * Profiles {@code m}; {@code afterBatchSize} is told after each batch size (progress).
     * Inputs are seeded random tensors, since a dense model's time does not depend on the values.
     */
    public Profile profile(OnnxModel m, IntConsumer afterBatchSize) throws OrtException {
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        Random random = new Random(42);
        ByteBuffer buffer = ByteBuffer.allocateDirect((int) (m.maxBatch() * m.input().byteSize())).order(ByteOrder.nativeOrder());
        List<Tensor> one = inputs(m, 1, random);
        try (OrtSession.SessionOptions so = OnnxDevice.sessionOptions(options)) {
            // Cold start: session creation plus the first batch, as a device pays it. The first
            // load in a process also pays one-off runtime set-up, so it is thrown away and the
            // median of the next three is kept.
            double[] cold = new double[3];
            for (int i = -1; i < cold.length; i++) {
                long t0 = System.nanoTime();
                try (OrtSession fresh = env.createSession(m.file().toString(), so)) {
                    OnnxDevice.infer(env, fresh, m, one, buffer.clear());
                }
                if (i >= 0) cold[i] = (System.nanoTime() - t0) / 1e6;
            }
            Arrays.sort(cold);
            double coldStartMs = cold[1];
            List<BatchStats> stats = new ArrayList<>();
            try (OrtSession session = env.createSession(m.file().toString(), so)) {
                for (int b : m.batchSizes()) {
                    List<Tensor> batch = inputs(m, b, random);
                    for (int i = 0; i < warmupRuns; i++) OnnxDevice.infer(env, session, m, batch, buffer.clear());
                    double[] ms = new double[timedRuns];
                    double sum = 0;
                    PowerSampler sampler = new PowerSampler(power);
                    for (int i = 0; i < timedRuns; i++) {
                        long t0 = System.nanoTime();
                        OnnxDevice.infer(env, session, m, batch, buffer.clear());
                        ms[i] = (System.nanoTime() - t0) / 1e6;
                        sum += ms[i];
                    }
                    double watts = sampler.stop();
                    Arrays.sort(ms);
                    stats.add(new BatchStats(b, percentile(ms, 0.50), percentile(ms, 0.99), sum / timedRuns, watts));
                    afterBatchSize.accept(b);
                }
            }
            double[] fit = fitLine(stats);
            double[] energy = fitEnergy(stats);
            return new Profile(m.name(), coldStartMs, List.copyOf(stats), fit[0], fit[1], fit[2], energy[0], energy[1]);
        }
    }

    /**
     * Least-squares {beta, zeta0} of each batch's energy against its size, neither negative (a
     * batch's energy does not fall with its size, nor is it below zero when empty): the best line
     * with a slope of 0 (the mean) when the free fit falls, through the origin when it starts
     * below 0. NaNs when a power is unknown.
     */
    static double[] fitEnergy(List<BatchStats> stats) {
        List<BatchStats> asLatency = new ArrayList<>();
        double sxy = 0, sxx = 0, sy = 0;
        for (BatchStats s : stats) {
            double e = s.energyMj();
            if (Double.isNaN(e)) return new double[]{Double.NaN, Double.NaN};
            asLatency.add(new BatchStats(s.batchSize(), e, e, e));
            sxy += s.batchSize() * e;
            sxx += (double) s.batchSize() * s.batchSize();
            sy += e;
        }
        double[] fit = fitLine(asLatency);
        if (fit[0] < 0) return new double[]{0, sy / stats.size()};
        if (fit[1] < 0) return new double[]{sxy / sxx, 0};
        return new double[]{fit[0], fit[1]};
    }

    /**
     * Reads the power on a thread of its own while the timed runs go on, every 20 ms (a call to
     * {@code nvidia-smi} takes about that), and once more at the end, so that a short series of
     * runs still gets a reading. The mean of the readings; NaN when none could be read.
     */
    private static final class PowerSampler {
        private final PowerMeter meter;
        private final Thread thread;
        private volatile boolean running = true;
        private double sum;
        private int n;

        PowerSampler(PowerMeter meter) {
            this.meter = meter;
            if (meter == PowerMeter.NONE) {
                thread = null;
                return;
            }
            thread = new Thread(() -> {
                while (running) {
                    read();
                    try {
                        Thread.sleep(20);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "power-sampler");
            thread.setDaemon(true);
            thread.start();
        }

        private synchronized void read() {
            java.util.OptionalDouble w = meter.watts();
            if (w.isPresent()) {
                sum += w.getAsDouble();
                n++;
            }
        }

        double stop() {
            if (thread == null) return Double.NaN;
            running = false;
            thread.interrupt();
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            read();
            synchronized (this) {
                return n == 0 ? Double.NaN : sum / n;
            }
        }
    }

    /** Nearest-rank percentile of sorted values. */
    static double percentile(double[] sorted, double q) {
        int rank = (int) Math.ceil(q * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    /** Least-squares {alpha, beta, R²} of p50 against batch size; R² is 1 for a single size. */
    static double[] fitLine(List<BatchStats> stats) {
        int n = stats.size();
        double sx = 0, sy = 0;
        for (BatchStats s : stats) {
            sx += s.batchSize();
            sy += s.p50Ms();
        }
        double mx = sx / n, my = sy / n, sxx = 0, sxy = 0, syy = 0;
        for (BatchStats s : stats) {
            double dx = s.batchSize() - mx, dy = s.p50Ms() - my;
            sxx += dx * dx;
            sxy += dx * dy;
            syy += dy * dy;
        }
        if (sxx == 0) return new double[]{0, my, 1};
        double alpha = sxy / sxx;
        double beta = my - alpha * mx;
        double r2 = syy == 0 ? 1 : (sxy * sxy) / (sxx * syy);
        return new double[]{alpha, beta, r2};
    }

    private static List<Tensor> inputs(OnnxModel m, int n, Random random) {
        List<Tensor> inputs = new ArrayList<>(n);
        List<Long> shape = new ArrayList<>();
        for (long d : m.input().shape()) shape.add(d);
        for (int i = 0; i < n; i++) {
            byte[] bytes = new byte[(int) m.input().byteSize()];
            if (m.input().dtype().equals("FLOAT32")) {
                ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
                while (b.hasRemaining()) b.putFloat((float) random.nextGaussian());
            } else {
                // Integer inputs are often indices (token ids): zeros are always in range.
                Arrays.fill(bytes, (byte) 0);
            }
            inputs.add(Tensor.newBuilder().setDtype(DType.valueOf(m.input().dtype())).setShape(shape).setData(ByteBuffer.wrap(bytes)).build());
        }
        return inputs;
    }

    /**
     * The profiles file that {@code serve --models}, the simulator and the experiments read: each
     * model's input, its batch sizes and, as {@code latency_ms}, the measured p99 per batch size
     * (the schedulers plan with it, so a deadline is met even by a slow run) and, as
     * {@code load_ms}, the cold start, which the scheduler books in front of a batch of a model its
     * device does not hold; beside them, for people and notebooks, the fit and the p50s. On no
     * named hardware type: the catalog's one type is then {@code default}.
     */
    public static String profilesJson(ModelRepository repository, List<Profile> profiles) {
        ObjectMapper json = new ObjectMapper();
        ObjectNode root = json.createObjectNode();
        ArrayNode models = root.putArray("models");
        for (Profile p : profiles) entry(repository.get(p.model()).catalogEntry(models.addObject()), p, true);
        return write(json, root);
    }

    /**
     * The profiles, as {@link #profilesJson(ModelRepository, List)} writes them, as each model's
     * profile on hardware type {@code type}, in a profiles file:
     * a new one ({@code existing} null) whose one type is {@code type}, or {@code existing} with
     * them put in. There, on the file's first type they replace the models' {@code latency_ms} (a
     * model the file lacks is added); on another type they become the models'
     * {@code hardware_profiles.<type>}, and the models must be in the file already (their first
     * profile is on its first type). {@code type} joins the file's {@code hardware} list if it is
     * not there, at {@code pricePerHour}, or 0 when that is null; a price given replaces the
     * listed one.
     *
     * @throws IllegalArgumentException naming {@code source} and what is wrong: a file that is no
     *         catalog, has no {@code hardware} list (its profiles are on no named type), or lacks a
     *         model profiled on another type than its first
     */
    public static String profilesJson(ModelRepository repository, List<Profile> profiles, String type, Double pricePerHour, String existing, String source) {
        return profilesJson(repository, profiles, type, pricePerHour, HardwareType.Execution.ANY, existing, source);
    }

    /**
     * As {@link #profilesJson(ModelRepository, List, String, Double, String, String)}; a type the
     * file did not list joins it with {@code measuredOn} as its {@code execution} (the CPU or
     * CUDA the profiles were measured on; {@link HardwareType.Execution#ANY} writes none). A
     * listed type keeps what it says.
     */
    public static String profilesJson(ModelRepository repository, List<Profile> profiles, String type, Double pricePerHour, HardwareType.Execution measuredOn,
                                      String existing, String source) {
        ObjectMapper json = new ObjectMapper();
        ObjectNode root;
        if (existing == null) {
            root = json.createObjectNode();
            ObjectNode t = root.putArray("hardware").addObject().put("name", type).put("price_per_hour", pricePerHour == null ? 0 : pricePerHour);
            if (measuredOn.word() != null) t.put("execution", measuredOn.word());
            root.putArray("models");
        } else {
            try {
                root = (ObjectNode) json.readTree(existing);
            } catch (java.io.IOException | ClassCastException e) {
                throw new IllegalArgumentException(source + ": not a profiles file to add to (not a JSON object)");
            }
            if (!(root.get("models") instanceof ArrayNode)) throw new IllegalArgumentException(source + ": not a profiles file to add to (no 'models' array)");
            if (!(root.get("hardware") instanceof ArrayNode hardware) || hardware.isEmpty()) {
                throw new IllegalArgumentException(source + ": has no 'hardware' list, so its profiles are on no named type; write to a new file, "
                        + "or add \"hardware\": [{\"name\": ..., \"price_per_hour\": ...}] naming the type they were measured on");
            }
            ObjectNode listed = null;
            for (com.fasterxml.jackson.databind.JsonNode t : hardware) {
                if (type.equals(t.path("name").asText())) listed = (ObjectNode) t;
            }
            if (listed == null) {
                ObjectNode t = hardware.addObject().put("name", type).put("price_per_hour", pricePerHour == null ? 0 : pricePerHour);
                if (measuredOn.word() != null) t.put("execution", measuredOn.word());
            } else if (pricePerHour != null) {
                listed.put("price_per_hour", pricePerHour);
            }
        }
        boolean first = type.equals(root.get("hardware").get(0).path("name").asText());
        ArrayNode models = (ArrayNode) root.get("models");
        for (Profile p : profiles) {
            ObjectNode there = null;
            for (com.fasterxml.jackson.databind.JsonNode m : models) {
                if (p.model().equals(m.path("name").asText())) there = (ObjectNode) m;
            }
            if (first) {
                ObjectNode fresh = entry(repository.get(p.model()).catalogEntry(json.createObjectNode()), p, true);
                if (there == null) {
                    models.add(fresh);
                } else {
                    com.fasterxml.jackson.databind.JsonNode others = there.get("hardware_profiles");
                    there.removeAll();
                    there.setAll(fresh);
                    if (others != null) there.set("hardware_profiles", others);
                }
            } else {
                if (there == null) {
                    throw new IllegalArgumentException(source + ": has no model '" + p.model() + "'; its first profile is on '"
                            + root.get("hardware").get(0).path("name").asText() + "', the file's first hardware type: profile it there first");
                }
                ObjectNode onTypes = there.has("hardware_profiles") ? (ObjectNode) there.get("hardware_profiles") : there.putObject("hardware_profiles");
                onTypes.set(type, entry(json.createObjectNode(), p, false));
            }
        }
        return write(json, root);
    }

    /**
     * A profile's fields in a model's entry, or, {@code batchSizes} false, in a hardware type's
     * profile of it (where the catalog reads {@code latency_ms} and {@code load_ms}; the energy
     * there is for people and notebooks, the catalog's being the first type's).
     */
    private static ObjectNode entry(ObjectNode e, Profile p, boolean batchSizes) {
        ArrayNode sizes = batchSizes ? e.putArray("batch_sizes") : null;
        ObjectNode p99 = e.objectNode();
        ObjectNode p50 = e.objectNode();
        for (BatchStats s : p.batches()) {
            if (sizes != null) sizes.add(s.batchSize());
            p99.put(Integer.toString(s.batchSize()), round(s.p99Ms()));
            p50.put(Integer.toString(s.batchSize()), round(s.p50Ms()));
        }
        e.putObject("latency_ms").set("table", p99);
        e.set("p50_ms", p50);
        ObjectNode fit = e.putObject("fit_ms");
        fit.put("alpha", round(p.alphaMs()));
        fit.put("beta", round(p.betaMs()));
        fit.put("r2", round(p.r2()));
        e.put("load_ms", round(p.coldStartMs()));
        if (p.energyKnown()) {
            ObjectNode energy = e.putObject("energy_mj");
            energy.put("beta", round(p.energyBetaMj()));
            energy.put("zeta0", round(p.energyZeta0Mj()));
            ObjectNode watts = e.putObject("power_w");
            for (BatchStats s : p.batches()) watts.put(Integer.toString(s.batchSize()), round(s.powerW()));
        }
        return e;
    }

    private static String write(ObjectMapper json, ObjectNode root) {
        try {
            return json.writerWithDefaultPrettyPrinter().writeValueAsString(root) + "\n";
        } catch (com.fasterxml.jackson.core.JsonProcessingException ex) {
            throw new IllegalStateException(ex);
        }
    }

    /** One line per batch size and the fit, for the terminal and BENCHMARKS.md. */
    public static String table(Profile p) {
        StringBuilder s = new StringBuilder(String.format(Locale.ROOT, "%s: cold start %.1f ms, tau(b) = %.4f*b %s %.4f ms, R^2 %.4f%n",
                p.model(), p.coldStartMs(), p.alphaMs(), p.betaMs() < 0 ? "-" : "+", Math.abs(p.betaMs()), p.r2()));
        s.append(p.energyKnown()
                ? String.format(Locale.ROOT, "zeta(b) = %.4f*b + %.4f mJ%n", p.energyBetaMj(), p.energyZeta0Mj())
                : "energy: unknown (no power reading on this device)" + System.lineSeparator());
        s.append(String.format(Locale.ROOT, "%6s %10s %10s %10s %14s %8s %10s%n", "batch", "p50 ms", "p99 ms", "mean ms", "requests/s", "W", "mJ"));
        for (BatchStats b : p.batches()) {
            s.append(String.format(Locale.ROOT, "%6d %10.3f %10.3f %10.3f %14.0f %8s %10s%n", b.batchSize(), b.p50Ms(), b.p99Ms(), b.meanMs(),
                    b.throughputPerSecond(), Double.isNaN(b.powerW()) ? "-" : String.format(Locale.ROOT, "%.1f", b.powerW()),
                    Double.isNaN(b.energyMj()) ? "-" : String.format(Locale.ROOT, "%.2f", b.energyMj())));
        }
        return s.toString();
    }

    private static double round(double v) {
        return Math.round(v * 10_000.0) / 10_000.0;
    }
}
