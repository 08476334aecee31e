package io.kairos.core.device;

import io.kairos.core.api.Internal;
import io.kairos.core.model.HardwareType;
import io.kairos.core.model.ModelCatalog;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * The device slots of a job or of a simulation, each of a hardware type: slot {@code i} is the
 * {@code i}-th device. Written as a count, {@code "4"}: four slots of the catalog's first type; or as
 * a list of types with counts, {@code "cpu:2,gpu-t4:1"}: slots 0 and 1 of type {@code cpu}, slot 2
 * of type {@code gpu-t4}, in the order written. The cost of the configuration is the sum of its
 * devices' prices ({@link #costPerHour}). Immutable.
 */
@Internal
public final class DeviceSlots implements Serializable {
    private static final long serialVersionUID = 1L;

    private final String[] types;

    private DeviceSlots(String[] types) {
        if (types.length == 0) throw new IllegalArgumentException("a configuration needs at least one device slot");
        for (String t : types) {
            if (!HardwareType.validName(t)) throw new IllegalArgumentException("device slot type '" + t + "' is no hardware type name");
        }
        this.types = types;
    }

    /** One slot per entry, of that type, in order. */
    public static DeviceSlots of(List<String> types) {
        return new DeviceSlots(types.toArray(new String[0]));
    }

    /** {@code count} slots of one type. */
    public static DeviceSlots uniform(String type, int count) {
        if (count < 1) throw new IllegalArgumentException("a configuration needs at least one device slot, got " + count);
        String[] types = new String[count];
        Arrays.fill(types, type);
        return new DeviceSlots(types);
    }

    /** {@code count} slots of the catalog's first hardware type: what a plain count of devices means. */
    public static DeviceSlots of(int count, ModelCatalog catalog) {
        return uniform(catalog.firstHardwareType().name(), count);
    }

    /**
     * Reads {@code "4"} or {@code "cpu:2,gpu-t4:1"} against the catalog's hardware types.
     *
     * @throws IllegalArgumentException in one line naming the part that is wrong: an empty list or
     *                                  part, a count that is no integer or below 1, a type the catalog lacks
     */
    public static DeviceSlots parse(String spec, ModelCatalog catalog) {
        List<Part> parts = parts(spec);
        if (parts == null) return of(count(spec.strip(), spec.strip()), catalog);
        List<String> types = new ArrayList<>();
        for (Part p : parts) {
            if (catalog.hardwareType(p.type) == null) {
                throw new IllegalArgumentException("devices '" + spec + "': part '" + p.text + "' names hardware type '" + p.type
                        + "', which the model catalog lacks (it has " + catalog.hardwareTypes().stream().map(HardwareType::name).toList() + ")");
            }
            for (int i = 0; i < p.count; i++) types.add(p.type);
        }
        return of(types);
    }

    /**
     * How many slots {@code spec} writes, read without a catalog: what a command needs before it
     * has its models (the types are checked by {@link #parse}).
     *
     * @throws IllegalArgumentException as {@link #parse} does for the form of the list
     */
    public static int countIn(String spec) {
        List<Part> parts = parts(spec);
        if (parts == null) return count(spec.strip(), spec.strip());
        int n = 0;
        for (Part p : parts) n = Math.addExact(n, p.count);
        return n;
    }

    /**
     * Types with counts read without a catalog, for a view of a plan that has none (the status
     * page): the names are not checked against one. {@code null} for a plain count, whose type is
     * the catalog's first.
     */
    public static DeviceSlots parseUnchecked(String spec) {
        List<Part> parts = parts(spec);
        if (parts == null) {
            count(spec.strip(), spec.strip());
            return null;
        }
        List<String> types = new ArrayList<>();
        for (Part p : parts) {
            for (int i = 0; i < p.count; i++) types.add(p.type);
        }
        return of(types);
    }

    /** Whether {@code spec} is a plain count rather than types with counts. */
    public static boolean isCount(String spec) {
        return parts(spec) == null;
    }

    private record Part(String text, String type, int count) {}

    /** The parts {@code type:count} of a list; null for a plain count. */
    private static List<Part> parts(String spec) {
        if (spec == null || spec.isBlank()) {
            throw new IllegalArgumentException("devices: empty; expected a count (4) or types with counts (cpu:2,gpu-t4:1)");
        }
        String trimmed = spec.strip();
        if (!trimmed.contains(":") && !trimmed.contains(",")) return null;
        List<Part> parts = new ArrayList<>();
        for (String part : trimmed.split(",", -1)) {
            String p = part.strip();
            if (p.isEmpty()) throw new IllegalArgumentException("devices '" + spec + "': an empty part; expected type:count, e.g. cpu:2,gpu-t4:1");
            int colon = p.lastIndexOf(':');
            if (colon < 0) throw new IllegalArgumentException("devices '" + spec + "': part '" + p + "' has no count; expected type:count, e.g. gpu-t4:1");
            String type = p.substring(0, colon).strip();
            int n = count(p.substring(colon + 1).strip(), p);
            if (!HardwareType.validName(type)) {
                throw new IllegalArgumentException("devices '" + spec + "': part '" + p + "' names hardware type '" + type
                        + "', which is no type name (lower-case letters, digits, '-', '.' or '_')");
            }
            parts.add(new Part(p, type, n));
        }
        return parts;
    }

    private static int count(String text, String part) {
        int n;
        try {
            n = Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("devices: part '" + part + "' has count '" + text + "', which is no integer");
        }
        if (n < 1) throw new IllegalArgumentException("devices: part '" + part + "' has count " + n + "; a count must be at least 1");
        return n;
    }

    /** How many slots. */
    public int count() {
        return types.length;
    }

    /** The hardware type of slot {@code slot}. */
    public String typeOf(int slot) {
        if (slot < 0 || slot >= types.length) throw new IndexOutOfBoundsException("device slot " + slot + " of " + types.length);
        return types[slot];
    }

    /** The slots of type {@code type}, in order; empty when none is. */
    public List<Integer> slotsOf(String type) {
        List<Integer> slots = new ArrayList<>();
        for (int i = 0; i < types.length; i++) {
            if (types[i].equals(type)) slots.add(i);
        }
        return Collections.unmodifiableList(slots);
    }

    /** The type of every slot, by slot. */
    public List<String> types() {
        return List.of(types);
    }

    /** The distinct types, in the order they first appear. */
    public List<String> distinctTypes() {
        return Arrays.stream(types).distinct().toList();
    }

    /** Whether every slot is of one type. */
    public boolean uniform() {
        return distinctTypes().size() == 1;
    }

    /**
     * What the slots cost per hour together: the sum of their types' prices in the catalog.
     *
     * @throws IllegalArgumentException if a slot's type is not in the catalog
     */
    public double costPerHour(ModelCatalog catalog) {
        double sum = 0;
        for (int i = 0; i < types.length; i++) {
            HardwareType t = catalog.hardwareType(types[i]);
            if (t == null) throw new IllegalArgumentException("device slot " + i + " is of hardware type '" + types[i] + "', which the model catalog lacks");
            sum += t.pricePerHour();
        }
        return sum;
    }

    /**
     * The slots as {@link #parse} reads them: runs of one type as {@code type:count}, in order
     * ({@code "cpu:2,gpu-t4:1"}); a plain count when every slot is of type {@code default}, the type
     * of a catalog that lists none.
     */
    @Override
    public String toString() {
        if (uniform() && types[0].equals(HardwareType.DEFAULT_NAME)) return Integer.toString(types.length);
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < types.length; ) {
            int j = i;
            while (j < types.length && types[j].equals(types[i])) j++;
            if (s.length() > 0) s.append(',');
            s.append(types[i]).append(':').append(j - i);
            i = j;
        }
        return s.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DeviceSlots d && Arrays.equals(d.types, types);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(types);
    }
}
