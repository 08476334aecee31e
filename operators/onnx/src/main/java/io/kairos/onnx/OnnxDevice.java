package io.kairos.onnx;

import ai.onnxruntime.OnnxJavaType;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OnnxValue;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtProvider;
import ai.onnxruntime.OrtSession;
import io.kairos.core.device.Eviction;
import io.kairos.core.device.ModelCache;
import io.kairos.core.model.InputConversion;
import io.kairos.onnx.ModelRepository.OnnxModel;
import io.kairos.schema.DType;
import io.kairos.schema.Tensor;
import io.kairos.wire.device.Device;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * A device that runs batches with ONNX Runtime: on the CPU, or on a GPU through the CUDA execution
 * provider when the GPU build of ONNX Runtime is on the classpath (Maven profile {@code cuda}).
 *
 * <p>Two threads per device. The <em>runner</em> runs one batch at a time, in the order handed
 * over: the requests' tensors are stacked along the batch dimension into one direct buffer that
 * ONNX Runtime reads without a copy, one {@code session.run}, and the output is split back into
 * one tensor per request. The <em>loader</em> creates sessions, so that a cold start of one model
 * does not stall the batches of the models already loaded: a batch whose model is not loaded waits
 * for the load, then queues again behind the runner's work, and is flagged {@code coldStart}.
 * The {@link ModelCache} of sessions (LRU within the memory budget) is touched on the runner
 * thread only, so a session is never closed under a running batch.
 *
 * <p>An ONNX Runtime error fails that batch only, with the runtime's message. A batch whose future
 * is cancelled is skipped if it has not started; if it is running, the device's run options are
 * set to terminate, and ONNX Runtime stops the run before its next operator, so that a batch given
 * up on (timed out, preempted) does not hold the device to its end.
 */
public final class OnnxDevice implements Device {

    /**
     * @param memoryBudgetBytes what the device's loaded models may take together (manifests' {@code memory_bytes})
     * @param intraOpThreads    CPU threads of one {@code session.run}; set so that the devices of a
     *                          machine share its cores instead of fighting over them
     * @param gpuIndex          the GPU of this device, used when the process can use CUDA
     *                          ({@link #cudaProblem}); -1: CPU
     * @param warmUp            whether {@link #warmUp()} loads and warms the repository's models
     *                          (serve {@code --warmup}); false: it does nothing
     */
    public record Options(long memoryBudgetBytes, int intraOpThreads, int gpuIndex, boolean warmUp, Eviction eviction) {
        public Options {
            if (intraOpThreads < 1) throw new IllegalArgumentException("intra-op threads must be at least 1, got " + intraOpThreads);
            java.util.Objects.requireNonNull(eviction);
        }

        /** Least recently used evicted first. */
        public Options(long memoryBudgetBytes, int intraOpThreads, int gpuIndex, boolean warmUp) {
            this(memoryBudgetBytes, intraOpThreads, gpuIndex, warmUp, Eviction.LRU);
        }

        /** Without a warm-up. */
        public Options(long memoryBudgetBytes, int intraOpThreads, int gpuIndex) {
            this(memoryBudgetBytes, intraOpThreads, gpuIndex, false);
        }

        /** CPU cores shared evenly among {@code devices} devices, at least one each. */
        public static int fairShareOfCores(int devices) {
            return Math.max(1, Runtime.getRuntime().availableProcessors() / Math.max(1, devices));
        }
    }

    private final int slot;
    private final ModelRepository repository;
    private final Options options;
    private final LongSupplier clockMicros;
    private final OrtEnvironment env = OrtEnvironment.getEnvironment();
    private final ExecutorService runner;
    private final ExecutorService ownLoader;
    private final Executor loader;
    // Runner thread only, as is everything below.
    private final ModelCache<OrtSession> sessions;
    private final Map<String, CompletableFuture<OrtSession>> loading = new HashMap<>();
    private final Map<String, Long> lastLoadMicros = new HashMap<>();
    private ByteBuffer inputBuffer = ByteBuffer.allocateDirect(0);
    // One run options object for the runner's runs; its terminate flag is the only way into a run
    // under way. The lock pairs "which batch is running" with the flag, so that a cancellation
    // arriving as one batch ends never terminates the next.
    private final OrtSession.RunOptions runOptions;
    private final Object runLock = new Object();
    private CompletableFuture<Execution> running;
    private long terminatedRuns;

    public OnnxDevice(int slot, ModelRepository repository, Options options, LongSupplier clockMicros) {
        this(slot, repository, options, clockMicros, null);
    }

    /** @param loader where sessions are created; null: a thread of the device's own (tests pass one they can hold up) */
    OnnxDevice(int slot, ModelRepository repository, Options options, LongSupplier clockMicros, Executor loader) {
        this.slot = slot;
        this.repository = repository;
        this.options = options;
        this.clockMicros = clockMicros;
        this.sessions = new ModelCache<>(options.memoryBudgetBytes(), options.eviction());
        this.runner = Executors.newSingleThreadExecutor(r -> daemon(r, "kairos-onnx-device-" + slot));
        this.ownLoader = loader == null ? Executors.newSingleThreadExecutor(r -> daemon(r, "kairos-onnx-loader-" + slot)) : null;
        this.loader = loader == null ? ownLoader : loader;
        try {
            this.runOptions = new OrtSession.RunOptions();
        } catch (OrtException e) {
            throw new IllegalStateException("device " + slot + ": cannot create ONNX Runtime run options: " + e.getMessage(), e);
        }
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /** The GPU this device runs its batches on, or -1 when it runs them on the CPU. */
    public int gpu() {
        return options.gpuIndex() >= 0 && cudaProblem() == null ? options.gpuIndex() : -1;
    }

    @Override
    public int slot() {
        return slot;
    }

    @Override
    public CompletableFuture<Execution> execute(String model, int size, List<Tensor> inputs) {
        CompletableFuture<Execution> done = new CompletableFuture<>();
        done.whenComplete((execution, error) -> {
            if (error instanceof CancellationException) terminateIfRunning(done);
        });
        runner.execute(() -> runOrLoad(model, inputs, false, done));
        return done;
    }

    @Override
    public CompletableFuture<Void> load(String model) {
        CompletableFuture<Void> loaded = new CompletableFuture<>();
        runner.execute(() -> {
            try {
                OnnxModel m = repository.get(model);
                if (m == null) throw new IllegalArgumentException("device " + slot + " has no model '" + model + "' in " + repository.root());
                if (sessions.getUncounted(model) != null) { // already loaded: now the most recently used (no batch: no use counted)
                    loaded.complete(null);
                    return;
                }
                CompletableFuture<OrtSession> underWay = loading.get(model);
                if (underWay != null) { // a batch's load of it: that one
                    underWay.whenComplete((session, error) -> {
                        if (error == null) loaded.complete(null);
                        else loaded.completeExceptionally(error);
                    });
                    return;
                }
                loadInTurn(m);
                loaded.complete(null);
            } catch (RuntimeException e) {
                loaded.completeExceptionally(e instanceof CompletionException && e.getCause() != null ? e.getCause() : e);
            }
        });
        return loaded;
    }

    /**
     * Runner thread: a load the scheduler decided, as device work in its turn: the runner waits
     * for it, so the batches handed over after it start once it is done, as the scheduler booked
     * them behind it on the device's timeline (a batch's own cold load lets the batches of loaded
     * models run meanwhile). Throws with the reason when the model cannot be loaded.
     */
    private void loadInTurn(OnnxModel m) {
        sessions.makeRoom(m.name(), m.memoryBytes()); // may evict; throws when the model exceeds the budget
        long start = clockMicros.getAsLong();
        OrtSession session;
        try {
            session = CompletableFuture.supplyAsync(() -> open(m), loader).join();
        } catch (RuntimeException e) {
            sessions.cancel(m.name());
            throw e;
        }
        sessions.install(m.name(), session);
        lastLoadMicros.put(m.name(), clockMicros.getAsLong() - start);
    }

    @Override
    public CompletableFuture<Void> unload(String model) {
        // On the runner, behind the batches handed over before: none of them loses its session.
        return CompletableFuture.runAsync(() -> sessions.unload(model), runner);
    }

    private void terminateIfRunning(CompletableFuture<Execution> batch) {
        synchronized (runLock) {
            if (running != batch) return;
            try {
                runOptions.setTerminate(true);
                terminatedRuns++;
            } catch (OrtException e) {
                // The run goes on to its end; its result is discarded as the future is cancelled.
            }
        }
    }

    /** Runner thread: runs the batch if its model is loaded, else waits for the load and queues it again. */
    private void runOrLoad(String model, List<Tensor> inputs, boolean waitedForLoad, CompletableFuture<Execution> done) {
        if (done.isDone()) return; // withdrawn before it started
        try {
            OnnxModel m = repository.get(model);
            if (m == null) {
                long now = clockMicros.getAsLong();
                done.complete(Execution.failed(now, now, "device " + slot + " has no model '" + model + "' in " + repository.root()));
                return;
            }
            // After its load the batch's use is counted already (the load's install, as in the
            // scheduler's view of the device): one use per batch, whichever the eviction rule.
            OrtSession session = waitedForLoad ? sessions.getUncounted(model) : sessions.get(model);
            if (session != null) {
                run(m, session, inputs, waitedForLoad, done);
                return;
            }
            load(m).whenCompleteAsync((loaded, error) -> {
                if (error == null) {
                    runOrLoad(model, inputs, true, done);
                } else {
                    long now = clockMicros.getAsLong();
                    Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
                    done.complete(Execution.failed(now, now, "device " + slot + " cannot load model '" + model + "': " + cause.getMessage()));
                }
            }, runner);
        } catch (RuntimeException e) {
            long now = clockMicros.getAsLong();
            done.complete(Execution.failed(now, now, "device " + slot + " failed on model '" + model + "': " + e));
        }
    }

    /** Runner thread: the load of the model under way, or a new one. Completes on the runner thread once installed. */
    private CompletableFuture<OrtSession> load(OnnxModel m) {
        CompletableFuture<OrtSession> underWay = loading.get(m.name());
        if (underWay != null) return underWay;
        sessions.makeRoom(m.name(), m.memoryBytes()); // may evict; throws when the model exceeds the budget
        long start = clockMicros.getAsLong();
        CompletableFuture<OrtSession> installed = CompletableFuture
                .supplyAsync(() -> open(m), loader)
                .handleAsync((session, error) -> {
                    loading.remove(m.name());
                    if (error != null) {
                        sessions.cancel(m.name());
                        throw error instanceof CompletionException c ? c : new CompletionException(error);
                    }
                    sessions.install(m.name(), session);
                    lastLoadMicros.put(m.name(), clockMicros.getAsLong() - start);
                    return session;
                }, runner);
        loading.put(m.name(), installed);
        return installed;
    }

    private OrtSession open(OnnxModel m) {
        try {
            return env.createSession(m.file().toString(), sessionOptions(options));
        } catch (OrtException e) {
            throw new CompletionException(new IllegalStateException(m.file() + ": " + e.getMessage(), e));
        }
    }

    /** Session options of a device: its share of the CPU threads, and its GPU when there is one. */
    public static OrtSession.SessionOptions sessionOptions(Options options) throws OrtException {
        OrtSession.SessionOptions o = new OrtSession.SessionOptions();
        o.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.ALL_OPT);
        o.setIntraOpNumThreads(options.intraOpThreads());
        o.setInterOpNumThreads(1);
        // Intra-op threads spin between batches by default, burning the cores that the other
        // devices and Flink's own threads need; a batch starts a few microseconds later instead.
        o.addConfigEntry("session.intra_op.allow_spinning", "0");
        if (options.gpuIndex() >= 0 && cudaProblem() == null) o.addCUDA(options.gpuIndex());
        return o;
    }

    private static volatile String cudaProblem;

    /**
     * Why this process cannot run models on a GPU, or null when it can: ONNX Runtime's CPU build
     * has no CUDA execution provider, and the GPU build has one that cannot load where CUDA's
     * libraries are missing (a machine without a GPU). Found out once, by adding the provider to
     * throw-away session options.
     */
    public static String cudaProblem() {
        String problem = cudaProblem;
        if (problem != null) return problem.isEmpty() ? null : problem;
        if (!OrtEnvironment.getAvailableProviders().contains(OrtProvider.CUDA)) {
            problem = "this ONNX Runtime has no CUDA execution provider (providers " + OrtEnvironment.getAvailableProviders()
                    + "; the GPU build is mvn -Pcuda)";
        } else {
            try (OrtSession.SessionOptions probe = new OrtSession.SessionOptions()) {
                probe.addCUDA(0);
                problem = "";
            } catch (OrtException e) {
                problem = "ONNX Runtime's CUDA execution provider does not load: " + e.getMessage().lines().findFirst().orElse("").strip();
            }
        }
        cudaProblem = problem;
        return problem.isEmpty() ? null : problem;
    }

    /** Runner thread: one batch, one {@code session.run}, unless the batch was withdrawn. */
    private void run(OnnxModel m, OrtSession session, List<Tensor> inputs, boolean coldStart, CompletableFuture<Execution> done) {
        synchronized (runLock) {
            if (done.isDone()) return;
            try {
                runOptions.setTerminate(false);
            } catch (OrtException e) {
                long now = clockMicros.getAsLong();
                done.complete(Execution.failed(now, now, "device " + slot + ": cannot reset the run options: " + e.getMessage()));
                return;
            }
            running = done;
        }
        long start = clockMicros.getAsLong();
        Execution execution;
        try {
            List<Tensor> outputs = infer(env, session, m, inputs, stackingBuffer(inputs.size() * m.input().byteSize()), runOptions);
            execution = new Execution(start, clockMicros.getAsLong(), coldStart, outputs, null);
        } catch (OrtException | IllegalArgumentException e) {
            execution = new Execution(start, clockMicros.getAsLong(), coldStart, List.of(),
                    "device " + slot + ", model '" + m.name() + "': " + e.getMessage());
        } finally {
            synchronized (runLock) {
                running = null;
            }
        }
        done.complete(execution); // no effect on a cancelled batch: its run was terminated or ran out
    }

    // One direct buffer per device, grown as needed: the runner runs one batch at a time and the
    // input tensor that reads it is closed before the next batch.
    private ByteBuffer stackingBuffer(long bytes) {
        if (bytes > Integer.MAX_VALUE) throw new IllegalArgumentException("batch input of " + bytes + " bytes is too large");
        if (inputBuffer.capacity() < bytes) inputBuffer = ByteBuffer.allocateDirect((int) bytes).order(ByteOrder.nativeOrder());
        inputBuffer.clear().limit((int) bytes);
        return inputBuffer;
    }

    /**
     * Stacks the requests' tensors along a new first dimension into {@code buffer}, runs the model
     * once, and splits its output into one tensor per request, in order. Public so that the
     * profiler measures exactly what the device does.
     */
    public static List<Tensor> infer(OrtEnvironment env, OrtSession session, OnnxModel m, List<Tensor> inputs, ByteBuffer buffer) throws OrtException {
        return infer(env, session, m, inputs, buffer, null);
    }

    /** As {@link #infer(OrtEnvironment, OrtSession, OnnxModel, List, ByteBuffer)}, under {@code runOptions} (null: none). */
    static List<Tensor> infer(OrtEnvironment env, OrtSession session, OnnxModel m, List<Tensor> inputs, ByteBuffer buffer,
                              OrtSession.RunOptions runOptions) throws OrtException {
        int n = inputs.size();
        String modelDtype = m.input().dtype();
        // Each request's tensor is copied once, from its record into the direct buffer the model
        // reads, and converted on the way when it came in a compact type (UINT8 for a FLOAT32 input).
        for (int i = 0; i < n; i++) {
            Tensor t = inputs.get(i);
            ByteBuffer data = t.getData();
            String dtype = t.getDtype().name();
            if (!InputConversion.converts(dtype, modelDtype) || data.remaining() != InputConversion.byteSize(m.input(), dtype)) {
                throw new IllegalArgumentException("request " + i + " of the batch has " + t.getDtype() + " " + data.remaining()
                        + " bytes, expected " + m.input() + " (" + m.input().byteSize() + " bytes) or the same elements as one of "
                        + InputConversion.accepted(modelDtype));
            }
            InputConversion.copy(data, dtype, buffer, modelDtype);
        }
        buffer.flip();
        long[] shape = new long[m.input().shape().length + 1];
        shape[0] = n;
        System.arraycopy(m.input().shape(), 0, shape, 1, shape.length - 1);
        try (OnnxTensor input = OnnxTensor.createTensor(env, buffer, shape, javaType(m.input().dtype()));
             OrtSession.Result result = runOptions == null
                     ? session.run(Map.of(m.inputTensor().name(), input))
                     : session.run(Map.of(m.inputTensor().name(), input), runOptions)) {
            OnnxValue value = result.get(m.outputTensor().name()).orElseThrow(() ->
                    new IllegalArgumentException("the model gave no output '" + m.outputTensor().name() + "'"));
            if (!(value instanceof OnnxTensor output)) throw new IllegalArgumentException("output '" + m.outputTensor().name() + "' is not a tensor");
            long[] outShape = output.getInfo().getShape();
            if (outShape.length == 0 || outShape[0] != n) {
                throw new IllegalArgumentException("output shape " + Arrays.toString(outShape) + " has no batch dimension of " + n);
            }
            String wireType = dtypeOf(output.getInfo().type);
            if (wireType == null) throw new IllegalArgumentException("output element type " + output.getInfo().type + " has no wire dtype");
            DType dtype = DType.valueOf(wireType);
            List<Long> perRequestShape = new ArrayList<>(outShape.length - 1);
            for (int d = 1; d < outShape.length; d++) perRequestShape.add(outShape[d]);
            ByteBuffer all = output.getByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
            int each = all.remaining() / n;
            List<Tensor> split = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                byte[] bytes = new byte[each];
                all.get(bytes);
                split.add(Tensor.newBuilder().setDtype(dtype).setShape(perRequestShape).setData(ByteBuffer.wrap(bytes)).build());
            }
            return split;
        }
    }

    static OnnxJavaType javaType(String dtype) {
        return switch (dtype) {
            case "FLOAT32" -> OnnxJavaType.FLOAT;
            case "FLOAT16" -> OnnxJavaType.FLOAT16;
            case "FLOAT64" -> OnnxJavaType.DOUBLE;
            case "INT32" -> OnnxJavaType.INT32;
            case "INT64" -> OnnxJavaType.INT64;
            case "UINT8" -> OnnxJavaType.UINT8;
            case "INT8" -> OnnxJavaType.INT8;
            case "BOOL" -> OnnxJavaType.BOOL;
            default -> throw new IllegalArgumentException("unknown dtype " + dtype);
        };
    }

    /** The wire dtype of an ONNX Runtime element type; null for one the wire format lacks. */
    static String dtypeOf(OnnxJavaType type) {
        return switch (type) {
            case FLOAT -> "FLOAT32";
            case FLOAT16 -> "FLOAT16";
            case DOUBLE -> "FLOAT64";
            case INT32 -> "INT32";
            case INT64 -> "INT64";
            case UINT8 -> "UINT8";
            case INT8 -> "INT8";
            case BOOL -> "BOOL";
            default -> null;
        };
    }

    /**
     * Before the device takes traffic (Triton's {@code model_warmup}): loads each model of the
     * repository, in folder order and as long as they fit the memory budget together, and runs it
     * once at each batch size of its manifest on zero-filled inputs, through {@link #execute} as a
     * real batch would go (the runner thread, the stacking, one {@code session.run}, the split), so
     * that the session, ONNX Runtime and the JIT-compiled device path are warm when the first real
     * batch comes. The outputs are dropped here: nothing reaches the caller's results.
     *
     * <p>The models stay loaded. The scheduler's view of the device starts with none loaded and so
     * books a load in front of each model's first batch that the device then does not need: the
     * device reports that batch as no cold start and the view re-bases on that report. Models it
     * never sends are the least recently used here and the first to be evicted, so the view never
     * counts a model as loaded that the device has not. Call it once, before the first batch.
     */
    @Override
    public WarmUp warmUp() {
        if (!options.warmUp()) return WarmUp.NONE;
        long start = clockMicros.getAsLong();
        List<String> warmed = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        int batches = 0;
        long bytes = 0;
        for (OnnxModel m : repository.models().values()) {
            if (bytes + m.memoryBytes() > options.memoryBudgetBytes()) {
                problems.add("'" + m.name() + "' (" + m.memoryBytes() + " bytes) does not fit the device's memory budget beside the models before it");
                continue;
            }
            ByteBuffer zeros = ByteBuffer.allocate((int) m.input().byteSize());
            Tensor input = Tensor.newBuilder().setDtype(DType.valueOf(m.input().dtype()))
                    .setShape(Arrays.stream(m.input().shape()).boxed().toList()).setData(zeros).build();
            String failed = null;
            for (int size : m.batchSizes()) {
                Execution e = execute(m.name(), size, Collections.nCopies(size, input)).join();
                if (e.error() != null) {
                    failed = "'" + m.name() + "' at batch " + size + ": " + e.error();
                    break;
                }
                batches++;
            }
            if (failed == null) {
                warmed.add(m.name());
                bytes += m.memoryBytes();
            } else {
                problems.add(failed);
                unload(m.name()).join();
            }
        }
        return new WarmUp(clockMicros.getAsLong() - start, warmed, batches, problems);
    }

    /** How long the last load of each model took on this device, in microseconds (a snapshot). */
    public Map<String, Long> lastLoadMicros() {
        return call(() -> Map.copyOf(lastLoadMicros));
    }

    /** Runs stopped by a cancellation while they ran. */
    public long terminatedRuns() {
        synchronized (runLock) {
            return terminatedRuns;
        }
    }

    /** Models loaded on this device, least recently used first (a snapshot). */
    public List<String> loadedModels() {
        return call(sessions::lruOrder);
    }

    private <T> T call(java.util.concurrent.Callable<T> onRunner) {
        try {
            return runner.submit(onRunner).get();
        } catch (Exception e) {
            throw new IllegalStateException("device " + slot + " did not answer: " + e, e);
        }
    }

    @Override
    public void close() {
        if (ownLoader != null) ownLoader.shutdownNow();
        try {
            runner.submit(sessions::clear).get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            // Closing at shutdown: sessions not closed are released with the process.
        }
        runner.shutdownNow();
        try {
            // Closed only once no run can be using it; else it goes with the process.
            if (runner.awaitTermination(1, TimeUnit.SECONDS)) runOptions.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
