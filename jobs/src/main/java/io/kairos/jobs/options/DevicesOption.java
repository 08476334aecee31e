package io.kairos.jobs.options;

import io.kairos.core.device.DeviceSlots;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.plan.ServingPlan;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.jobs.config.ServingConfig;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * The job's device slots: {@code serve} (the job's default), {@code control status}, {@code
 * bench}, {@code overload} and {@code fidelity} (their own defaults, given when the command creates
 * the group). A count of slots of the model catalog's first hardware type ({@code 4}), or hardware
 * types with counts in slot order ({@code cpu:2,gpu-t4:1}), whose names the catalog's
 * {@code hardware} list must have; the types are checked once the command has its catalog
 * ({@link #slots}).
 */
public final class DevicesOption {
    @Option(names = "--devices", paramLabel = "N|TYPES",
            description = "Device slots: a number of slots of the model catalog's first hardware type, or hardware types with counts "
                    + "in slot order (cpu:2,gpu-t4:1) from the catalog's hardware list; commands on the built-in catalog take a number "
                    + "(default: ${DEFAULT-VALUE}).")
    public String spec;

    public DevicesOption() {
        this(ServingConfig.DEFAULTS.devices);
    }

    public DevicesOption(int defaultDevices) {
        this.spec = Integer.toString(defaultDevices);
    }

    /** How many slots; {@link #check} first for a one-line error. */
    public int count() {
        return DeviceSlots.countIn(spec);
    }

    /** The types with counts as given, or {@code null} when given as a plain count (every slot of the catalog's first type). */
    public String types() {
        return DeviceSlots.isCount(spec) ? null : spec.strip();
    }

    /** Fails with a one-line message unless the list reads and has at least one device. */
    public void check(CommandLine cl) {
        try {
            DeviceSlots.countIn(spec);
        } catch (IllegalArgumentException | ArithmeticException e) {
            if (spec != null && spec.strip().matches("-?\\d+")) throw new CommandLine.ParameterException(cl, flag(cl) + " must be at least 1, got " + spec.strip());
            throw error(cl, e);
        }
    }

    /** The flag, or the key of serve's configuration file where the value came from there ({@link ConfigFlags}). */
    private static String flag(CommandLine cl) {
        return ConfigFlags.names(cl).apply("devices");
    }

    // The core names the list "devices"; here it is the flag.
    private static CommandLine.ParameterException error(CommandLine cl, RuntimeException e) {
        String m = String.valueOf(e.getMessage());
        return new CommandLine.ParameterException(cl, m.startsWith("devices") ? flag(cl) + m.substring("devices".length()) : flag(cl) + ": " + m);
    }

    /** Fails with a one-line message unless the slots are a number: for a command whose devices have no types. */
    public void checkCount(CommandLine cl) {
        check(cl);
        if (types() != null) throw new CommandLine.ParameterException(cl, flag(cl) + ": this command takes a number of devices, got '" + spec + "'");
    }

    /** The slots with their types, read against the catalog; a type it lacks fails in one line. */
    public DeviceSlots slots(CommandLine cl, ModelCatalog catalog) {
        try {
            return DeviceSlots.parse(spec, catalog);
        } catch (IllegalArgumentException e) {
            throw error(cl, e);
        }
    }

    /**
     * The default serving plan of a job started with these devices, for a command that has no
     * catalog ({@code control status}, {@code control show}): typed slots where the types were
     * written, else a number of slots of unknown type.
     */
    public ServingPlan planWithoutCatalog(String policy, PolicyParams params) {
        DeviceSlots slots = DeviceSlots.parseUnchecked(spec);
        return slots == null ? new ServingPlan(count(), policy, params) : new ServingPlan(slots, Long.MAX_VALUE, policy, params, null);
    }

    /** Puts the slots into a job's configuration: their count, and their types if given. */
    public void applyTo(ServingConfig.Builder config) {
        config.devices = count();
        config.deviceTypes = types();
    }
}
