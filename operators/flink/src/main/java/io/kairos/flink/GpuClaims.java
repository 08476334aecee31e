package io.kairos.flink;

import org.apache.flink.api.common.externalresource.ExternalResourceInfo;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The GPUs of this TaskManager and how many of its device subtasks hold each. Flink decides which
 * device slots run in which TaskManager (slots 0 and 2 may land together, 1 and 3 elsewhere), so a
 * slot cannot pick its GPU by its number alone: two slots of one TaskManager would take the same
 * GPU and leave another idle. A slot takes the GPU the fewest slots hold, its own turn
 * ({@code slot mod GPUs}, in index order) first among equals, and gives it back when it closes.
 * One per process: the device subtasks of a job in one TaskManager share its classes.
 */
final class GpuClaims {
    static final GpuClaims THIS_PROCESS = new GpuClaims();

    private final Map<Integer, Integer> holders = new HashMap<>();

    /** The GPU indices among Flink's GPU resources (their {@code index} properties), sorted. */
    static int[] indices(Collection<ExternalResourceInfo> gpus) {
        return gpus.stream().map(g -> g.getProperty("index")).flatMap(Optional::stream).mapToInt(Integer::parseInt).sorted().toArray();
    }

    /** The GPU for a device slot, now held by it; -1 when Flink manages none. */
    synchronized int claim(int slot, int[] indices) {
        if (indices.length == 0) return -1;
        int chosen = indices[slot % indices.length];
        for (int gpu : indices) {
            if (holders.getOrDefault(gpu, 0) < holders.getOrDefault(chosen, 0)) chosen = gpu;
        }
        holders.merge(chosen, 1, Integer::sum);
        return chosen;
    }

    /** A slot's GPU given back (-1: it had none). */
    synchronized void release(int gpu) {
        if (gpu < 0) return;
        holders.computeIfPresent(gpu, (g, n) -> n > 1 ? n - 1 : null);
    }
}
