package io.kairos.core.model;

import io.kairos.core.api.PublicEvolving;
import java.util.regex.Pattern;

/**
 * A kind of device a model can run on ({@code cpu}, {@code gpu-t4}, {@code gpu-v100}), with what
 * one device of it costs per hour. The catalog lists the types it knows ({@link
 * ModelCatalog#hardwareTypes}) and holds a latency profile per model and type; a device slot of the
 * job or of the simulator is of one type ({@link io.kairos.core.device.DeviceSlots}), and the cost
 * of a configuration is the sum of its devices' prices (InferLine's planner minimises it under the
 * pipelines' SLOs).
 *
 * @param name         lower-case letters, digits, {@code '-'}, {@code '.'} and {@code '_'}
 * @param pricePerHour what one device of this type costs per hour, in the user's currency; not negative
 * @param execution    what a real (ONNX Runtime) device of this type runs on
 */
@PublicEvolving
public record HardwareType(String name, double pricePerHour, Execution execution) {

    /**
     * What a real device of a type runs its batches on. A simulated device takes its type's
     * profiles whatever this says.
     */
    public enum Execution {
        /** As the process can: CUDA where ONNX Runtime's CUDA provider loads, else the CPU (a type that does not say). */
        ANY,
        /** The CPU, even in a process that could use a GPU. */
        CPU,
        /** A GPU through CUDA; a device of the type where CUDA is not available fails, naming why, rather than running on the CPU. */
        CUDA;

        /** The catalog's word for it: {@code cpu} or {@code cuda}; null for {@link #ANY}, which the catalog leaves out. */
        public String word() {
            return this == ANY ? null : name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    // Before DEFAULT: its constructor checks the name against it.
    private static final Pattern NAME = Pattern.compile("[a-z0-9._-]+");

    /** The one type of a catalog that lists none: every existing catalog, free. */
    public static final String DEFAULT_NAME = "default";
    public static final HardwareType DEFAULT = new HardwareType(DEFAULT_NAME, 0);

    /** A type whose devices run as the process can ({@link Execution#ANY}). */
    public HardwareType(String name, double pricePerHour) {
        this(name, pricePerHour, Execution.ANY);
    }

    public HardwareType {
        if (execution == null) throw new IllegalArgumentException("hardware type '" + name + "': execution must be given (ANY, CPU or CUDA)");
        if (!validName(name)) {
            throw new IllegalArgumentException("hardware type name '" + name + "' must be lower-case letters, digits, '-', '.' or '_'");
        }
        if (!(pricePerHour >= 0) || !Double.isFinite(pricePerHour)) {
            throw new IllegalArgumentException("hardware type '" + name + "': price per hour must be a non-negative number, got " + pricePerHour);
        }
    }

    /** Whether {@code name} may name a hardware type. */
    public static boolean validName(String name) {
        return name != null && NAME.matcher(name).matches();
    }
}
