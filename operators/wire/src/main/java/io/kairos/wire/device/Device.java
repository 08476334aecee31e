package io.kairos.wire.device;

import io.kairos.core.api.PublicEvolving;
import io.kairos.schema.Tensor;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Something that runs batches, one at a time, in the order they are handed to it: a GPU, a CPU
 * executor, or a simulated device. Execution is asynchronous so that the caller's thread never
 * blocks on it.
 *
 * <p>Why it lives here, beside the wire records, and not in the engine-free core: a device runs the
 * requests' tensors as they came off the wire. The Flink operator that drives it
 * ({@code AsyncInference}) hands over the {@link Tensor}s of the admitted requests; the ONNX
 * Runtime device copies their data once, straight into the batch buffer the runtime reads, and
 * splits the runtime's output straight into the tensors that the results carry. A tensor type of
 * the core's own would add a conversion per request each way on the serving path, for no caller in
 * the core: the scheduler never runs a device, it plans against {@code DeviceView}, and the
 * simulator runs its own {@code DiscreteEventDevice} in virtual time. What is shared between a
 * device and the scheduler's view of it (the {@code ExecutionModel}, the {@code ModelCache}, the
 * {@code Eviction} rule) stays in the core.
 */
@PublicEvolving
public interface Device extends AutoCloseable {

    int slot();

    /**
     * Queues a batch behind the ones already handed over.
     *
     * <p>Cancelling the returned future withdraws the batch: one that has not started never runs,
     * and a running one is stopped where the device can stop it (an ONNX Runtime device terminates
     * the run at its next operator; a simulated device frees the time of its last batch).
     *
     * @param inputs one tensor per request, or an empty list for a device that needs none (simulated)
     */
    CompletableFuture<Execution> execute(String model, int size, List<Tensor> inputs);

    /**
     * Loads a model ahead of its batches, beside the models already loaded (a control decision
     * placed it here, or the scheduler's load planner gave the model another copy): device work in
     * its turn, after the batches handed over before and before those handed over after, as the
     * scheduler booked it on the device's timeline. Completes when it is loaded, exceptionally
     * with the reason when it cannot be; a device that loads nothing completes at once.
     */
    default CompletableFuture<Void> load(String model) {
        return CompletableFuture.completedFuture(null);
    }

    /** Unloads a model once the batches handed over before are done (a control decision took it off). */
    default CompletableFuture<Void> unload(String model) {
        return CompletableFuture.completedFuture(null);
    }

    /**
     * Readies the device before it takes traffic, in the manner of Triton's {@code model_warmup}:
     * a device that has a first-run cost (a runtime to initialise, kernels to pick, code for the
     * JIT compiler to compile) pays it here on synthetic inputs, so that the first real batch runs
     * as fast as the later ones. Blocks until done. Nothing it runs is traffic: no execution of it
     * is handed to anyone, so it produces no result and no telemetry. A device with nothing to warm
     * (simulated) returns {@link WarmUp#NONE} at once.
     */
    default WarmUp warmUp() {
        return WarmUp.NONE;
    }

    @Override
    default void close() {}

    /**
     * What a warm-up did: how long it took, the models it left loaded and warm, the batches it ran
     * (synthetic), and one line per model it could not warm up (that model is served as if there
     * were no warm-up: its first batch loads it).
     */
    record WarmUp(long micros, List<String> models, int batches, List<String> problems) {
        public static final WarmUp NONE = new WarmUp(0, List.of(), 0, List.of());

        public WarmUp {
            models = List.copyOf(models);
            problems = List.copyOf(problems);
        }

        /** One line for the log. */
        public String describe(int slot) {
            if (this == NONE || (models.isEmpty() && problems.isEmpty())) return "device " + slot + ": no warm-up";
            return "device " + slot + " warmed up " + models + " (" + batches + " synthetic batches, every batch size of each) in "
                    + micros / 1000 + " ms before taking traffic" + (problems.isEmpty() ? "" : "; not warmed up: " + String.join("; ", problems));
        }
    }

    /** What happened to one batch. {@code outputs} is empty when the device produces no tensors. */
    record Execution(long startMicros, long endMicros, boolean coldStart, List<Tensor> outputs, String error) {

        public static Execution failed(long startMicros, long endMicros, String error) {
            return new Execution(startMicros, endMicros, false, List.of(), error);
        }

        public boolean succeeded() {
            return error == null;
        }
    }
}
