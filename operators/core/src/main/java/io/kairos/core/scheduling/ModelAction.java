package io.kairos.core.scheduling;

import io.kairos.core.api.Internal;
import java.util.Objects;

/**
 * A model to load on a device, or to unload from it, because the group's placement changed or
 * the load planner decided it. The view books a load on the device's timeline, the model held
 * from its end ({@link DeviceView#bookLoad}); a device takes its actions and batches in the
 * order they are sent. {@code why} says, for the operator reading the telemetry, what made it:
 * the placement, or the demand the load planner saw.
 */
@Internal
public record ModelAction(int device, String model, boolean load, String why) {
    /** A placement lists the model on the device (again). */
    public static final String PLACED = "the placement lists it";
    /** A placement no longer lists the model on the device. */
    public static final String UNPLACED = "the placement no longer lists it";
    /** The device left the group (a replica taken away) and no group keeps the model there. */
    public static final String LEFT = "the device left the group";

    public ModelAction {
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(why, "why");
    }

    public static ModelAction load(int device, String model, String why) {
        return new ModelAction(device, model, true, why);
    }

    public static ModelAction unload(int device, String model, String why) {
        return new ModelAction(device, model, false, why);
    }
}
